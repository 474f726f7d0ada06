"""Issue 12, files and exit codes: interrupts, bugs, unwritable and self-overwriting outputs, CSV formula injection,
file modes and manifests that are not manifests. Each test failed before its fix."""

from __future__ import annotations

import csv
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import privrisk.io.files as files
from helpers import one_line_error

SRC = Path(__file__).resolve().parents[2] / "src"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _values(tmp_path: Path, n: int = 200) -> Path:
    data = tmp_path / "values.csv"
    data.write_text("x\n" + "".join(f"{i % 97}\n" for i in range(n)))
    return data


# "ready" once the study's modules are imported, so that the interrupt lands in the run itself.
READY = (
    "import sys; from privrisk.cli import main; import privrisk.cli.study, privrisk.study.run, "
    "privrisk.study.attack, privrisk.study.report; print('ready', file=sys.stderr, flush=True); sys.exit(main())"
)


def _long_run(tmp_path: Path) -> subprocess.Popen[str]:
    # A study that attacks every sample runs for about 20 s here: long enough to be interrupted in the middle.
    data = _values(tmp_path, n=5000)
    args = ["study", data, "-c", "x", "--attack", "--attack-trials", "100000", "--repetitions", "50"]
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            READY,
            *map(str, args),
            "--out",
            str(tmp_path / "out"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        # Ctrl-C as a terminal delivers it: a suite started in the background (`pytest … &`) ignores SIGINT, its
        # children inherit that, and Python keeps an ignored SIGINT ignored, so the study ran on and ended 0.
        preexec_fn=_sigint_default,
    )


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(tmp_path: Path, sig: int) -> tuple[int, str]:
    proc = _long_run(tmp_path)
    assert proc.stderr is not None
    assert proc.stderr.readline() == "ready\n"  # past the imports
    time.sleep(2)  # inside the simulation
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "code", "word"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]
)
def test_ctrl_c_and_sigterm_exit_130_and_143_with_one_line(tmp_path, sig, code, word):
    returncode, err = _interrupt(tmp_path, sig)
    assert returncode == code, (returncode, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == [f"privrisk: error: {word}"], err
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_main_returns_the_130_typer_gives_for_keyboard_interrupt(cli, monkeypatch):
    import privrisk.risk as risk_lib  # the command imports it when it runs

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(risk_lib, "describe", interrupted)
    r = cli("risk", "--epsilon", "1")
    assert r.code == 130 and r.err.strip() == "privrisk: error: interrupted"


def test_sigterm_handler_is_restored_after_main(cli):
    before = signal.getsignal(signal.SIGTERM)
    assert cli("risk", "--epsilon", "1", "--json").code == 0
    assert signal.getsignal(signal.SIGTERM) == before


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit])
def test_sigterm_or_any_exception_leaves_no_temporary_file_or_folder(tmp_path, exc):
    from privrisk.cli import Terminated  # type: ignore[attr-defined]

    for error in (exc, Terminated):
        with pytest.raises(error):
            with files.atomic_dir(tmp_path / "out") as tmp:
                (tmp / "a.csv").write_text("x\n")
                raise error()
        with pytest.raises(error):
            with files.atomic_path(tmp_path / "f.json") as tmp:
                tmp.write_text("{}")
                raise error()
    assert list(tmp_path.iterdir()) == []


def test_a_bug_is_one_line_exit_70_and_debug_shows_the_traceback(cli, monkeypatch):
    import privrisk.risk as risk_lib  # the command imports it when it runs

    def broken(*args, **kwargs):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(risk_lib, "describe", broken)
    r = cli("risk", "--epsilon", "1")
    assert r.code == 70
    assert r.err.strip().splitlines() == [
        "privrisk: error: internal error: ZeroDivisionError: oops (run with --debug for the traceback)"
    ]
    r = cli("--debug", "risk", "--epsilon", "1")
    assert r.code == 70 and "Traceback" in r.err and "ZeroDivisionError: oops" in r.err


def test_stdout_to_a_full_device_is_one_line_exit_2():
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "privrisk", "risk", "--epsilon", "1", "--json"],
            stdout=full, stderr=subprocess.PIPE, text=True, env=_env(), timeout=120,
        )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "No space left on device" in lines[0], proc.stderr


def test_stdout_closed_early_exits_141_quietly():
    proc = subprocess.Popen(
        [sys.executable, "-m", "privrisk", "risk", "--epsilon", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(),
    )  # fmt: skip
    assert proc.stdout is not None
    proc.stdout.close()  # nobody reads: the first write gets EPIPE
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and err == b"", err


# An --out that cannot be written: refused with one line, before the work.
def _unwritable_cases(tmp_path: Path) -> list[list[str]]:
    data = _values(tmp_path, 20)
    afile = tmp_path / "somefile.csv"
    afile.write_text("x\n1\n")
    trial = tmp_path / "trial.csv"
    trial.write_text("zip,age\n1,10\n1,12\n")
    census = tmp_path / "census.csv"
    census.write_text("zip,age\n1,10\n1,12\n1,13\n")
    under = str(afile / "x")
    return [
        ["study", str(data), "-c", "x", "--out", under],
        ["study", str(data), "-c", "x", "--out", str(afile)],
        ["demo", "--out", under],
        ["attack", str(data), "-c", "x", "-q", "mean", "-e", "1", "--out", under],
        ["attack", str(data), "-c", "x", "-q", "mean", "-e", "1", "--out", str(afile)],
        ["audit", str(data), "-c", "x", "-q", "mean", "-e", "1", "--out", under],
        ["audit", str(data), "-c", "x", "-q", "mean", "-e", "1", "--out", "/proc/x"],
        ["presence", str(trial), "--population", str(census), "--qi", "zip,age", "--out", under],
        ["empirical", str(data), "--out", under],
        ["explain", "--epsilon", "1", "--out", under + ".html"],
        ["explain", "--epsilon", "1", "--out", "/proc/x.html"],
        ["report", str(tmp_path), "--out", under + ".html"],
        ["report", str(tmp_path), "--out", "/proc/x.html"],
    ]


def test_an_out_that_cannot_be_written_is_one_line_exit_2(cli, tmp_path):
    for args in _unwritable_cases(tmp_path):
        r = cli(*args)
        one_line_error(r, "--out")


def test_out_is_checked_before_the_work(cli, tmp_path, monkeypatch):
    import privrisk.io.data

    def never(*args, **kwargs):
        raise AssertionError("the attack ran before --out was checked")

    # The command imports read_column when it runs (privrisk.cli stays light), so the library's is replaced.
    monkeypatch.setattr(privrisk.io.data, "read_column", never)
    afile = tmp_path / "f.csv"
    afile.write_text("x\n1\n2\n")
    one_line_error(cli("attack", afile, "-c", "x", "-q", "mean", "-e", "1", "--out", afile / "x"), "--out")


# Item 8: an --out that would replace an input.
def test_report_out_is_its_own_manifest(cli, tmp_path):
    out = tmp_path / "att"
    assert cli("attack", _values(tmp_path, 20), "-c", "x", "-q", "mean", "-e", "1", "--trials", "50",
               "--out", out).code == 0  # fmt: skip
    before = (out / "manifest.json").read_bytes()
    one_line_error(cli("report", out, "--out", out / "manifest.json"), "--out", "input")
    assert (out / "manifest.json").read_bytes() == before


def test_presence_search_out_holds_the_research_subset(cli, tmp_path):
    d2 = tmp_path / "d2"
    d2.mkdir()
    subset = d2 / "release.csv"
    subset.write_text("zip,age\n85535,10\n85535,12\n85535,13\n85535,13\n85535,16\n85535,43\n")
    census = tmp_path / "census.csv"
    census.write_text(
        "zip,age,n\n85535,10-19,5\n85535,20-29,5\n85535,30-39,10\n85535,40-49,10\n85535,50+,20\n"
    )
    before = subset.read_bytes()
    r = cli("presence", subset, "--population", census, "--population-count", "n", "--qi", "zip,age",
            "-H", "age=breaks:10,20,30,40,50,inf/10,40,50,inf", "--search", "--out", d2)  # fmt: skip
    one_line_error(r, "--out", "input")
    assert subset.read_bytes() == before


def test_an_output_folder_beside_its_input_is_allowed(cli, tmp_path):
    data = _values(tmp_path, 20)
    r = cli("attack", data, "-c", "x", "-q", "mean", "-e", "1", "--trials", "20", "--out", tmp_path)
    assert r.code == 0, r.err
    assert (tmp_path / "attack.json").exists() and data.read_text().startswith("x\n")


# Item 9: CSV formula injection.
def test_safe_csv_cell_neutralises_formulas_but_not_numbers():
    cells = ["=1+2", "+cmd", "-cmd|' /C calc'!A0", "@SUM(A1)", "\tx", "\rx", "-3.5", "+7", "-1e3", "ok", 4]
    assert [files.safe_csv_cell(c) for c in cells] == [
        "'=1+2", "'+cmd", "'-cmd|' /C calc'!A0", "'@SUM(A1)", "'\tx", "'\rx", "-3.5", "+7", "-1e3", "ok", 4,
    ]  # fmt: skip


def test_study_summary_csv_neutralises_a_formula_label(cli, tmp_path):
    data = tmp_path / "s.csv"
    data.write_text("x\n" + "".join(f"{i % 40 + 1}\n" for i in range(120)))
    out = tmp_path / "study"
    r = cli("study", data, "-c", "x", "--label", "x==HYPERLINK(\"http://evil\")", "--proportions", "0.5,1",
            "--repetitions", "2", "--epsilons", "1", "--out", out)  # fmt: skip
    assert r.code == 0, r.err
    cells = [c for row in csv.reader((out / "summary.csv").open()) for c in row]
    assert '\'=HYPERLINK("http://evil")' in cells
    assert not [c for c in cells if c.startswith("=")]


def test_presence_classes_measured_csv_neutralises_formula_values(cli, tmp_path):
    t = tmp_path / "t.csv"
    t.write_text("zip,age\n=1+1,10\n=1+1,12\n@x,13\n")
    p = tmp_path / "p.csv"
    p.write_text("zip,age\n=1+1,10\n=1+1,12\n@x,13\n@x,14\n")
    r = cli("presence", t, "--population", p, "--qi", "zip,age", "--out", tmp_path / "o")
    assert r.code in (0, 1), r.err
    cells = [c for row in csv.reader((tmp_path / "o" / "classes_measured.csv").open()) for c in row]
    assert "'=1+1" in cells and "'@x" in cells
    assert not [c for c in cells if c[:1] in ("=", "@")]


# Item 10: every output gets the umask's mode.
def test_outputs_follow_the_umask(cli, tmp_path):
    old = os.umask(0o022)
    try:
        out = tmp_path / "att"
        r = cli("attack", _values(tmp_path, 20), "-c", "x", "-q", "mean", "-e", "1", "--trials", "20",
                "--out", out)  # fmt: skip
        assert r.code == 0, r.err
        assert cli("explain", "--epsilon", "1", "--out", tmp_path / "e.html").code == 0
    finally:
        os.umask(old)
    files = [out / "attack.json", out / "manifest.json", out / "risk_vs_epsilon.csv", tmp_path / "e.html"]
    for f in files:
        assert stat.S_IMODE(f.stat().st_mode) == 0o644, f
    assert stat.S_IMODE(out.stat().st_mode) == 0o755


# Manifests that are not manifests.
@pytest.mark.parametrize("kind", ["not_utf8", "folder", "deeply_nested"])
def test_report_on_a_manifest_that_is_not_one_is_one_line_exit_2(cli, tmp_path, kind):
    folder = tmp_path / "res"
    folder.mkdir()
    manifest = folder / "manifest.json"
    if kind == "not_utf8":
        manifest.write_bytes(b'{"schema_version": 1, "kind": "\xff\xfe"}')
    elif kind == "folder":
        manifest.mkdir()
    else:
        manifest.write_text("[" * 100000 + "]" * 100000)
    one_line_error(cli("report", folder, "--out", tmp_path / "r.html"), "manifest.json")


def test_empirical_riskiest_csv_neutralises_formula_identifiers(cli, tmp_path):
    rows = ["period,who,v"]
    for p in range(30):
        rows += [
            f"{p},=evil(),{p % 7 + 1}",
            f"{p},@bob,{p % 5 + 2}",
            f"{p},-dave,{p % 3 + 1}",
            f"{p},carol,4",
        ]
    data = tmp_path / "d.csv"
    data.write_text("\n".join(rows) + "\n")
    r = cli("empirical", data, "--period", "period", "--individual", "who", "--query", "sum", "--value", "v",
            "--out", tmp_path / "o")  # fmt: skip
    assert r.code == 0, r.err
    ids = [row["individual"] for row in csv.DictReader((tmp_path / "o" / "riskiest.csv").open())]
    assert sorted(ids) == sorted(["'=evil()", "'@bob", "'-dave", "carol"])


def test_a_mode_set_inside_atomic_path_is_kept(tmp_path):
    target = tmp_path / "private.json"
    with files.atomic_path(target) as tmp:
        os.chmod(tmp, 0o600)
        tmp.write_text("{}")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_release_csv_neutralises_a_formula_column_name(cli, tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("@x\n1\n2\n3\n")
    r = cli("release", data, "--column", "@x", "--query", "mean", "--epsilon", "1", "--universe", "0,10",
            "--allow-useless", "--out", tmp_path / "o")  # fmt: skip
    assert r.code == 0, r.err
    rows = [line.split(",") for line in (tmp_path / "o" / "release.csv").read_text().splitlines()]
    assert rows[1][1] == "'@x"  # the column cell; the label mean(@x) starts with a letter
    assert not any(cell.startswith(("=", "+", "@")) for row in rows for cell in row)
