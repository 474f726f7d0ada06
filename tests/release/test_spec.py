"""What to release: one query (ReleaseQuery) and the release.toml that lists several."""

from __future__ import annotations

import math

import pytest

import privrisk
from privrisk.errors import PrivriskError
from privrisk.release.spec import ReleaseQuery, read_release_spec


# ------------------------------------------------------------------------------------------ bad queries
@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"universe": (5, 1)}, "universe"),
        ({"universe": (3, 3)}, "universe"),
        ({"universe": (0, math.inf)}, "universe"),
        ({"epsilon": 0}, "epsilon"),
        ({"epsilon": -1}, "epsilon"),
        ({"query": "mode"}, "unknown query"),
    ],
)
def test_bad_queries_are_refused(kwargs, fragment):
    args = {"column": "h", "query": "mean", "epsilon": 1.0, "universe": (0, 24), **kwargs}
    with pytest.raises(PrivriskError, match=fragment):
        ReleaseQuery(**args)


# ------------------------------------------------------------------------------------------ spec files
def test_spec_is_read(tmp_path):
    spec = tmp_path / "release.toml"
    spec.write_text(
        'public_n = 30000\nmissing = "negative"\n\n'
        '[[query]]\ncolumn = "hours"\nquery = "mean"\nepsilon = "ln3"\nuniverse = [0, 24]\n\n'
        '[[query]]\ncolumn = "income"\nquery = "var"\nepsilon = 0.5\nuniverse = [0, 1e5]\nmissing = [-1, 99]\n'
        'label = "Income, variance"\n'
    )
    s = read_release_spec(spec)
    assert s.public_n == 30000 and len(s.queries) == 2
    q1, q2 = s.queries
    assert q1.epsilon == pytest.approx(math.log(3)) and q1.missing.negative
    assert q2.query == "variance" and q2.missing.codes == (-1.0, 99.0) and not q2.missing.negative
    assert q2.universe == privrisk.Universe.from_bounds(0, 1e5)
    assert q1.label == "mean(hours)" and q2.label == "Income, variance"


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        ("", ["no queries"]),
        ("[[query]\n", ["not valid TOML"]),
        ('budgt = 1\n[[query]]\ncolumn="h"\n', ["unknown key 'budgt'"]),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\n', ["query 1", "'universe'"]),
        ('[[query]]\ncolumn="h"\nquery="mode"\nepsilon=1\nuniverse=[0,1]\n', ["query 1", "unknown query"]),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=0\nuniverse=[0,1]\n', ["query 1", "epsilon"]),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=true\nuniverse=[0,1]\n', ["query 1", "epsilon"]),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\nuniverse=[2,1]\n', ["query 1", "universe"]),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\nuniverse=3\n', ["query 1", "universe"]),
        (
            '[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\nuniverse=[0,1]\nsigma=2\n',
            ["unknown key 'sigma'"],
        ),
        ('public_n = 1\n[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\nuniverse=[0,1]\n', ["public_n"]),
    ],
)
def test_bad_specs_name_the_file_and_query(tmp_path, body, fragments):
    spec = tmp_path / "bad.toml"
    spec.write_text(body)
    with pytest.raises(PrivriskError) as info:
        read_release_spec(spec)
    for fragment in ["bad.toml", *fragments]:
        assert fragment in str(info.value)


def test_query_to_dict_and_public_n():
    from privrisk.release.spec import check_public_n

    q = ReleaseQuery("h", "var", "ln3", (0, 24), missing="negative,99", name="Hours, variance")
    assert q.to_dict() == {
        "column": "h",
        "query": "variance",
        "epsilon": pytest.approx(math.log(3)),
        "universe": [0.0, 24.0],
        "missing": {"negative": True, "codes": [99.0]},
    }
    assert check_public_n(100.0) == 100 and check_public_n(None) is None
    for bad in (1, 2.5, True, "100"):
        with pytest.raises(PrivriskError, match=r"^public_n: the published number of people"):
            check_public_n(bad)


def test_spec_columns_are_checked_against_the_data_file():
    from privrisk.release.spec import check_spec_columns

    qs = [ReleaseQuery("hours", "mean", 1, (0, 24)), ReleaseQuery("income", "sum", 1, (0, 9))]
    check_spec_columns(qs, ["income", "hours"], spec="r.toml", source="a.csv")
    with pytest.raises(
        PrivriskError, match=r"r\.toml: query 2 names column 'income', which a\.csv does not have"
    ):
        check_spec_columns(qs, ["hours"], spec="r.toml", source="a.csv")
