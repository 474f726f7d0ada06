"""The table of commands: which module under :mod:`privrisk.cli` defines each, and its line in ``--help``."""

from __future__ import annotations

# Every command: its name → (its module under privrisk.cli, the one line `privrisk --help` shows: the first paragraph
# of the command's docstring). A module is imported only when one of its commands runs or shows its --help, so a
# light command does not wait for pandas or scipy. Adding a command is one line here, in the order of the help;
# tests/cli/test_startup.py checks this table against the commands the modules define.
COMMANDS: dict[str, tuple[str, str]] = {
    "risk": (
        "risk",
        "The risks of one guarantee: membership (advantage, success, posterior, TPR at FPR) and singling out.",
    ),
    "epsilon": ("risk", "The largest ε that keeps the many-worlds risk at or below a target."),
    "table": ("risk", "Risk and leak for several ε and n, laid out like Table 1 of Mehner et al."),
    "sensitivity": (
        "sensitivity",
        "Global and local sensitivity of a query on one column, and with --epsilon the risk it carries.",
    ),
    "study": ("study", "Run the sampling study of Allmann et al., §4 on columns of a survey file."),
    "demo": (
        "study",
        "The sampling study of Allmann et al., §4 on real public survey data, with its report.",
    ),
    "attack": (
        "attack",
        "Simulate the Lee–Clifton attacker: which record is missing from the data behind one noisy answer?",
    ),
    "presence": (
        "presence",
        "δ-presence, k-anonymity and k-map of a research subset against a population; with --search the least\ngeneralisation that meets the targets. --engine spark groups the rows in Apache Spark (same results).",
    ),
    "microdata": (
        "microdata",
        "The re-identification risk of a sample file: f_k, F_k, individual, global and household risk, k, ℓ, t, SUDA2.",
    ),
    "audit": (
        "audit",
        "What an intruder holding every record but one learns from one answer with data-dependent noise.",
    ),
    "derived": (
        "derived",
        "The scale and ε an intruder effectively faces for one query when deriving it from another (Sarathy and Muralidhar 2009, Table 4).",
    ),
    "empirical": (
        "empirical",
        "Empirical differential privacy of a statistic published once per period (Burchard and Daoud, §2–5).",
    ),
    "synthetic": ("synthetic", "The disclosure risk of a synthetic file: singling out, linkability, inference and membership inference."),
    "release": (
        "release",
        "Release noisy answers (Laplace or Gaussian noise from OpenDP) with a public risk statement and a ledger.",
    ),
    "ledger": (
        "release",
        "Check a privacy ledger: what each release spent, the plain sum of ε, the tight composition and its risk.",
    ),
    "outputs": (
        "outputs",
        "Check a researcher's outputs (tables, means, quantiles, models) by a centre's rules, each alone and all\ntogether: the differencing an intruder can do, in sentences, with what to do about it.",
    ),
    "table-pattern": (
        "table_pattern",
        "A suppression pattern for a hierarchical count table: primaries by threshold, secondaries by hypercubes, each proven.",
    ),
    "explain": (
        "explain",
        "Write a self-contained HTML page that explains ε (or any guarantee) to the people in the data (English or German).",
    ),
    "report": (
        "explain",
        "Gather the results of several commands (their manifest.json) into one self-contained HTML page.",
    ),
    "calibrate": (
        "calibrate",
        "The least noise (or the largest ε, ρ, μ, sample rate or number of steps) that keeps a chosen risk at or below a target.",
    ),
    "tradeoff": (
        "accounting",
        "Draw the trade-off curve β(α) of a guarantee beside the worst case with the same (ε, δ).",
    ),
    "app": (
        "webapp",
        "Start the app in the web browser: every capability on one page each, for people who do not use a terminal.",
    ),
}
