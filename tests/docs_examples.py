"""The examples of the README and of the user's guide, as a reader meets them, and how to run them as printed.

An example is one command of a ```bash block (a line ending in ``\\`` continues on the next; a here-document
``cat > f <<'EOF'`` … ``EOF`` is one command) or one whole ```python block, in the order of the page.

What a comment announces is checked:

- the exit code: ``# exits 1: …`` (0 when the comment says nothing);
- numbers: a bash comment's numbers after its last colon (``# Mehner et al.'s running example (§3): 4.8 %``), or
  the whole comment's when it starts with one (``# 14 steps``, ``# ε = 2.25 of 3 at δ = 1e-6``), must be printed
  by the command (or be among its own arguments): a printed number matches when it rounds to the comment's, so
  ``4.8 %`` matches ``4.83 %`` and ``0.0483``; ``ln 3`` matches ``1.0986``; ``10⁻⁵`` matches ``1e-05``;
- a Python statement whose comment starts with a number (``# 0.731``, ``# 0.2908, 0.2919 (…)``, ``# ln 3: …``)
  states its value, and one whose comment starts with an exception's name (``# PrivriskError …``) states that it
  raises it.

:func:`run_page` runs a page's examples in order in a fresh folder holding only what a fresh clone has there
(a copy of ``examples/``), with ``privrisk`` and ``python`` on the PATH being the package and interpreter under
test; the commands of :data:`EXEMPT` are not run, each for the reason given there.
"""

from __future__ import annotations

import ast
import contextlib
import io
import math
import os
import re
import shutil
import stat
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).parents[1]
GUIDE = ROOT / "docs" / "guide"

# Commands that are not run, by how they start, and why. Keep this short: everything else runs.
EXEMPT: dict[str, str] = {
    "python3 -m venv": "installs the package; .ci/run does exactly this on a fresh machine",
    "pip install": "installs packages; .ci/run installs .[all]",
    "python -m pytest": "the test suite itself; .ci/run runs exactly this line",
    "privrisk app": "starts a server that runs until Ctrl-C; tests/app/test_frame.py starts and stops it",
    "spark-submit": "needs a YARN cluster",
    "python benchmarks/": "a benchmark takes minutes; CI runs each in its --quick mode",
    "mkdocs build": "builds the site from the repository's mkdocs.yml; .ci/run runs it",
}


@dataclass(frozen=True)
class Example:
    """One example of a page: a bash command or a Python block, with the line of the page it starts on."""

    page: str
    kind: str  # "bash" or "python"
    text: str
    line: int

    def where(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """The README, the site's first page, then the guide's pages in the order of the site's navigation
    (mkdocs.yml), then any other page of the guide."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    named = [GUIDE / name for name in re.findall(r"\bguide/([\w-]+\.md)\b", config)]
    ordered = list(dict.fromkeys(p for p in named if p.is_file()))
    guide = [*ordered, *sorted(set(GUIDE.glob("*.md")) - set(ordered))]
    return [ROOT / "README.md", ROOT / "docs" / "index.md", *guide]


def page_name(path: Path) -> str:
    return path.relative_to(ROOT / "docs").as_posix() if path.parent != ROOT else path.name


def blocks(path: Path, kind: str | None = None) -> list[tuple[str, str, int]]:
    """The ```bash and ```python blocks of a page: (kind, text, line of the block's first line)."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in re.finditer(r"^```(bash|python)\n(.*?)^```", text, flags=re.S | re.M):
        if kind is None or match.group(1) == kind:
            found.append((match.group(1), match.group(2), text.count("\n", 0, match.start(2)) + 1))
    return found


def commands_of(block: str, first_line: int = 1) -> list[tuple[str, int]]:
    """Every command of a bash block with its line: continued lines joined, comment lines dropped, a
    here-document kept whole with its lines."""
    commands = []
    pending, start = "", 0
    heredoc: list[str] = []
    end = ""
    for number, line in enumerate(block.splitlines(), first_line):
        if heredoc:
            heredoc.append(line)
            if line.strip() == end:
                commands.append(("\n".join(heredoc), start))
                heredoc = []
            continue
        opened = re.search(r"<<-?\s*'?([A-Za-z_]+)'?", line)
        if opened and not line.lstrip().startswith("#"):
            heredoc, end, start = [line.strip()], opened.group(1), number
            continue
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1].rstrip() + " "
            continue
        command = (pending + line.strip()).strip()
        pending = ""
        if command and not command.startswith("#"):
            commands.append((command, start))
    return commands


def page_examples(path: Path) -> list[Example]:
    """Every example of a page, in its order."""
    name = page_name(path)
    found: list[Example] = []
    for kind, text, line in blocks(path):
        if kind == "python":
            found.append(Example(name, "python", text, line))
        else:
            found += [Example(name, "bash", c, n) for c, n in commands_of(text, line)]
    return found


def exemption(command: str) -> str | None:
    return next((why for start, why in EXEMPT.items() if command.startswith(start)), None)


def missing_spark(command: str) -> str | None:
    """Why a ``--engine spark`` example cannot run here (skipped outside CI, as tests/io/test_spark.py does)."""
    if "--engine spark" not in command or os.environ.get("CI"):
        return None
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed"
    return None if shutil.which("java") else "no Java runtime"


def _comment_start(command: str) -> int:
    """Where the comment at the end of a command's first line starts (a `` #`` outside quotes), or -1."""
    first = command.splitlines()[0] if "<<" in command.splitlines()[0] else command
    quote = ""
    for i, ch in enumerate(first):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or first[i - 1].isspace()):
            return i
    return -1


def comment_of(command: str) -> str:
    """The comment at the end of a command, or ''."""
    start = _comment_start(command)
    return command[start + 1 :].splitlines()[0].strip() if start >= 0 else ""


def without_comment(command: str) -> str:
    """The command without its comment: what it is given (a number there is an input, not a result)."""
    start = _comment_start(command)
    return command if start < 0 else command[:start] + command[start:].partition("\n")[2]


def expected_code(command: str) -> int:
    """0, or the exit code the command's comment announces ("# … exits 1 …")."""
    found = re.search(r"\bexits? (?:with (?:code )?)?(\d+)\b", comment_of(command))
    return int(found.group(1)) if found else 0


# ------------------------------------------------------------------------------------------------ numbers
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
# A number as the docs and the output write it: 4.8 %, 1,000, 0.25, 1e-6, 10⁻⁶, 1.2 × 10⁻⁵, ln 3, ln3.
_NUMBER = re.compile(
    r"(?P<ln>\bln ?(?P<arg>\d+(?:\.\d+)?))"
    r"|(?P<pow>\b10(?P<sup2>[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))"
    r"|(?P<mant>[-−]?\d[\d,]*(?:\.\d+)?)(?: ?[×x] ?10(?P<sup>[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?"
    r"(?P<exp>[eE][-+]?\d+)?(?P<pct> ?%)?"
)
# What a comment's numbers may name without claiming a result: sections, tables, figures, years, durations.
_NOT_A_CLAIM = re.compile(
    r"§\s*[\d.]+|\b(?:Tables?|Figures?|Definition|Eq\.|equation)\s+\d+\w*|\b(?:19|20)\d\d\b"
    r"|\d+(?:[-–]\d+)?\s*(?:s|min|minutes|seconds|cores?|GB|MB)\b|\bexits? (?:with (?:code )?)?\d+\b"
)


@dataclass(frozen=True)
class Number:
    value: float
    tolerance: float  # half a unit of the last digit written
    text: str


def numbers_in(text: str) -> list[Number]:
    """Every number of a text, with the tolerance its written digits give it."""
    found = []
    for m in _NUMBER.finditer(text):
        if m.group("ln"):
            arg = float(m.group("arg"))
            found.append(Number(math.log(arg), 5e-4, m.group(0)))
            continue
        if m.group("pow"):
            exponent = int(m.group("sup2").translate(_SUPERSCRIPT))
            found.append(Number(10.0**exponent, 10.0**exponent * 1e-9, m.group(0)))
            continue
        written = m.group("mant").replace("−", "-").rstrip(",")
        if "," in written and not re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", written):
            found += numbers_in(written.replace(",", " "))  # "0.5,1,2": a list, not thousands
            continue
        mantissa = written.replace(",", "")
        try:
            value = float(mantissa)
        except ValueError:
            continue
        decimals = len(mantissa.partition(".")[2])
        tolerance = 0.5 * 10.0**-decimals
        scale = 1.0
        if m.group("sup"):
            scale = 10.0 ** int(m.group("sup").translate(_SUPERSCRIPT))
        if m.group("exp"):
            scale *= 10.0 ** int(m.group("exp")[1:])
        if m.group("pct"):
            scale /= 100
        found.append(Number(value * scale, tolerance * scale, m.group(0)))
    return found


def claimed_numbers(comment: str) -> list[Number]:
    """The numbers a bash comment claims: after its last colon, or all of it when it starts with a number or
    with ``symbol = number``; references (§3, Table 4, 2020, 15-30 s, exits 1) are not claims."""
    comment = _NOT_A_CLAIM.sub(" ", comment)
    if ": " in comment:
        claim = comment.rpartition(": ")[2]
    elif re.match(r"\s*(?:\S{1,3} = )?[-−]?(?:\d|ln ?\d|10[⁻⁰-⁹])", comment):
        claim = comment
    else:
        return []
    return numbers_in(claim)


def matches(claim: Number, printed: list[Number]) -> bool:
    """Whether some printed number, rounded as the claim is written, is the claim."""
    return any(abs(p.value - claim.value) <= claim.tolerance * (1 + 1e-9) + 1e-15 for p in printed)


def unmatched(claims: list[Number], *texts: str) -> list[str]:
    """The claims that none of the texts prints."""
    printed = [n for t in texts for n in numbers_in(t)]
    return [c.text for c in claims if not matches(c, printed)]


def stated_value(comment: str) -> list[Number]:
    """The value a Python statement's comment starts with: ``0.731``, ``0.2908, 0.2919 (…)``, ``ln 3: …``."""
    head = re.match(
        r"\s*((?:ln ?\d+|[-−]?\d[\d.e−-]*\s*%?)(?:\s*,\s*(?:ln ?\d+|[-−]?\d[\d.e−-]*\s*%?))*)", comment
    )
    if not head:
        return []
    return [n for part in head.group(1).split(",") for n in numbers_in(part)]


# ------------------------------------------------------------------------------------------------ running
def make_folder(folder: Path) -> dict[str, str]:
    """A reader's folder: a copy of ``examples/``, ``privrisk`` and ``python`` on the PATH; returns the env."""
    folder.mkdir(parents=True)
    shutil.copytree(ROOT / "examples", folder / "examples")
    bin_dir = folder.parent / f"{folder.name}-bin"
    bin_dir.mkdir()
    for name, line in (("privrisk", f'exec "{sys.executable}" -m privrisk "$@"'),
                       ("python", f'exec "{sys.executable}" "$@"')):  # fmt: skip
        shim = bin_dir / name
        shim.write_text(f"#!/bin/sh\n{line}\n")
        shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    src = str(ROOT / "src")
    pythonpath = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": pythonpath}
    env.pop("COLUMNS", None)
    return env


def run_bash(example: Example, folder: Path, env: dict[str, str]) -> str | None:
    """Run one command; what is wrong with its result, or None."""
    done = subprocess.run(
        ["bash", "-c", example.text], cwd=folder, env=env, capture_output=True, text=True, timeout=900
    )
    expected = expected_code(example.text)
    tail = (done.stderr.strip() or done.stdout.strip())[-600:]
    if done.returncode != expected:
        return f"exit {done.returncode}, expected {expected}: {tail}"
    if "Traceback" in done.stderr or "internal error" in done.stderr:
        return f"a traceback or internal error: {tail}"
    missing = unmatched(claimed_numbers(comment_of(example.text)), done.stdout, done.stderr,
                        without_comment(example.text))  # fmt: skip
    if missing:
        return f"the comment says {', '.join(missing)}; not printed: {(done.stdout + done.stderr)[-800:]}"
    return None


def _comments(source: str) -> dict[int, str]:
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = token.string.lstrip("#").strip()
    return found


def run_python(example: Example, folder: Path) -> str | None:
    """Run one Python block statement by statement in ``folder``, in a namespace of its own; what is wrong."""
    source = example.text
    comments = _comments(source)
    scope: dict[str, object] = {"__name__": "__example__"}
    previous = os.getcwd()
    os.chdir(folder)
    try:
        for statement in ast.parse(source).body:
            line = statement.end_lineno or statement.lineno
            comment = comments.get(line, "")
            raises = re.match(r"([A-Z]\w*(?:Error|Exception|Warning))\b", comment)
            code = ast.get_source_segment(source, statement) or ""
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    if isinstance(statement, ast.Expr):
                        value = eval(compile(ast.Expression(statement.value), example.where(), "eval"), scope)
                    else:
                        exec(compile(ast.Module([statement], []), example.where(), "exec"), scope)
                        targets = getattr(statement, "targets", None) or [getattr(statement, "target", None)]
                        named = [t.id for t in targets if isinstance(t, ast.Name)]
                        value = scope[named[0]] if len(named) == 1 == len(targets) else None  # x = … # 337.0
            except Exception as exc:
                if raises and type(exc).__name__ == raises.group(1):
                    continue
                return f"line {example.line + line - 1}: {code!r} raised {type(exc).__name__}: {exc}"
            if raises:
                return f"line {example.line + line - 1}: {code!r} should raise {raises.group(1)}"
            stated = stated_value(comment)
            if stated:
                if hasattr(value, "tolist") and getattr(value, "ndim", 0):
                    value = value.tolist()  # a numpy array states its values
                values = value if isinstance(value, tuple | list) else (value,)
                printed: list[Number] = []
                for v in values:
                    try:
                        printed.append(Number(float(v), 0, repr(v)))  # type: ignore[arg-type]
                    except (TypeError, ValueError):
                        printed += numbers_in(repr(v))
                wrong = [c.text for c in stated if not matches(c, printed)]
                if wrong:
                    return (
                        f"line {example.line + line - 1}: {code!r} is {value!r}, the comment says {comment!r}"
                    )
    finally:
        os.chdir(previous)
    return None


def run_page(path: Path, folder: Path) -> tuple[list[str], list[str]]:
    """Run a page's examples in order in a fresh ``folder``; (failures, examples that could not run here and why).

    The commands of :data:`EXEMPT` are left out silently: the table says why."""
    env = make_folder(folder)
    failures, skipped = [], []
    for example in page_examples(path):
        if example.kind == "bash":
            if exemption(example.text):
                continue
            why = missing_spark(example.text)
            if why:
                skipped.append(f"{example.where()} {example.text.splitlines()[0]}: {why}")
                continue
            wrong = run_bash(example, folder, env)
        else:
            wrong = run_python(example, folder)
        if wrong:
            failures.append(f"{example.where()} {example.text.splitlines()[0][:160]}\n    {wrong}")
    return failures, skipped
