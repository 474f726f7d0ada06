"""The re-identification risk of a sample file of microdata, with sampling weights and households.

After sdcMicro (Templ, Kowarik and Meindl 2015), ARX and Elliot et al.'s SUDA:

- :mod:`~privrisk.microdata.frequencies`: f_k and F_k of every key combination (missing values match any value);
- :mod:`~privrisk.microdata.risk`: individual (Benedetti–Franconi), global and household risk;
- :mod:`~privrisk.microdata.diversity`: ℓ-diversity (distinct, entropy, recursive) and t-closeness;
- :mod:`~privrisk.microdata.suda`: SUDA2's minimal sample uniques, SUDA and DIS-SUDA scores;
- :mod:`~privrisk.microdata.uniqueness`: population uniqueness and the prosecutor, journalist, marketer risks;
- :mod:`~privrisk.microdata.suppression`: local suppression to k-anonymity or a largest risk, measured again;
- :mod:`~privrisk.microdata.recoding`: global recoding through hierarchies and the lattice, any target;
- :mod:`~privrisk.microdata.settings`: :class:`MicrodataSettings`, what to measure, the thresholds and the
  reduction (none, local suppression or global recoding), checked when made;
- :mod:`~privrisk.microdata.measure`: :func:`measure_microdata`, every measure of one file;
- :mod:`~privrisk.microdata.run`: :func:`run_microdata`, the one way in that the command line and the app call:
  measure, reduce, measure again, judge the thresholds on the file as released (:class:`MicrodataRun`);
- :mod:`~privrisk.microdata.report`: the HTML page.
"""

from __future__ import annotations

from privrisk.microdata.diversity import Diversity, diversity
from privrisk.microdata.frequencies import Cells, cell_frequencies, key_codes
from privrisk.microdata.measure import MicrodataResult, measure_microdata
from privrisk.microdata.recoding import Recoding, recode_microdata
from privrisk.microdata.risk import household_risk, individual_risk
from privrisk.microdata.run import MicrodataRun, run_microdata
from privrisk.microdata.settings import MicrodataSettings
from privrisk.microdata.suda import Suda, suda2
from privrisk.microdata.suppression import Suppression, suppress, suppress_microdata
from privrisk.microdata.uniqueness import attacker_risks, sample_population_uniqueness

__all__ = [
    "Cells",
    "Diversity",
    "MicrodataResult",
    "MicrodataRun",
    "MicrodataSettings",
    "Recoding",
    "Suda",
    "Suppression",
    "attacker_risks",
    "cell_frequencies",
    "diversity",
    "household_risk",
    "individual_risk",
    "key_codes",
    "measure_microdata",
    "recode_microdata",
    "run_microdata",
    "sample_population_uniqueness",
    "suda2",
    "suppress",
    "suppress_microdata",
]
