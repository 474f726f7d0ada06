"""The old module paths of presence (hierarchy, lattice, kmap, settings) warn and give the very same objects; the
package's own names and the new homes do not warn."""

from __future__ import annotations

import importlib
import warnings

import pytest

MOVED = [
    ("privrisk.presence.hierarchy", "build_hierarchy", "privrisk.generalisation.hierarchy"),
    ("privrisk.presence.hierarchy", "HierarchyChoice", "privrisk.generalisation.hierarchy"),
    ("privrisk.presence.hierarchy", "parse_hierarchies", "privrisk.generalisation.hierarchy"),
    ("privrisk.presence.hierarchy", "MAX_TABLE_BYTES", "privrisk.generalisation.hierarchy"),
    ("privrisk.presence.hierarchy", "_table_rows", "privrisk.generalisation.hierarchy"),
    ("privrisk.presence.lattice", "minimal", "privrisk.generalisation.lattice"),
    ("privrisk.presence.lattice", "bisection_order", "privrisk.generalisation.lattice"),
    ("privrisk.presence.lattice", "roll_up", "privrisk.presence.rollup"),
    ("privrisk.presence.lattice", "CubeRollUp", "privrisk.presence.rollup"),
    ("privrisk.presence.lattice", "Rolled", "privrisk.presence.rollup"),
    ("privrisk.presence.kmap", "kmap_derived_k", "privrisk.generalisation.kmap"),
    ("privrisk.presence.kmap", "KMAP_ASSUMPTIONS", "privrisk.generalisation.kmap"),
    ("privrisk.presence.kmap", "population_uniqueness", "privrisk.generalisation.uniqueness"),
    ("privrisk.presence.kmap", "UNIQUENESS_ASSUMPTIONS", "privrisk.generalisation.uniqueness"),
    ("privrisk.presence.kmap", "KMapEstimate", "privrisk.presence.estimate"),
    ("privrisk.presence.kmap", "estimate", "privrisk.presence.estimate"),
    ("privrisk.presence.settings", "PresenceSettings", "privrisk.presence.run"),
    ("privrisk.presence.settings", "run_presence", "privrisk.presence.run"),
    ("privrisk.presence.settings", "parse_levels", "privrisk.presence.run"),
]


@pytest.mark.parametrize(("old", "name", "new"), MOVED, ids=lambda v: v.rpartition(".")[2])
def test_an_old_module_path_warns_and_gives_the_same_object(old, name, new):
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"{old}.{name} is deprecated .* use {new}.{name}"):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)


def test_a_name_that_never_was_there_is_an_attribute_error():
    module = importlib.import_module("privrisk.presence.kmap")
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        module.nothing


def test_the_old_functions_still_compute_the_same():
    import pandas as pd

    from privrisk.generalisation.kmap import kmap_derived_k

    with pytest.warns(DeprecationWarning):
        from privrisk.presence.kmap import estimate
        from privrisk.presence.kmap import kmap_derived_k as old_kmap
    assert old_kmap(5, 0.1) == kmap_derived_k(5, 0.1) == (4, pytest.approx(0.0, abs=0.05))
    e = estimate(pd.DataFrame({"a": [0, 0, 0, 0, 1, 1, 2]}), ["a"], kmap=5, sampling_fraction=0.1)
    assert (e.derived_k, e.records_at_risk) == (4, 3)


def test_the_packages_names_and_the_new_homes_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from privrisk.generalisation import (
            build_hierarchy,
            kmap_derived_k,
            population_uniqueness,
            search_lattice,
        )
        from privrisk.microdata import MicrodataRun, MicrodataSettings, run_microdata
        from privrisk.microdata.run import MicrodataSettings as from_run
        from privrisk.presence import (
            Hierarchy,
            KMapEstimate,
            PresenceRun,
            PresenceSettings,
            run_presence,
        )
        from privrisk.presence import (
            population_uniqueness as from_presence,
        )
        from privrisk.presence.run import PresenceSettings as home

        assert (
            home is PresenceSettings
            and from_run is MicrodataSettings
            and from_presence is population_uniqueness
        )
        assert all((build_hierarchy, kmap_derived_k, search_lattice, MicrodataRun, run_microdata, Hierarchy,
                    KMapEstimate, PresenceRun, run_presence))  # fmt: skip
