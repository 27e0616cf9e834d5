"""CDB90 loss-ratio bands: the derivation script, the shipped figures, and the column."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sim.history
import sim.history.render
from sim.history.bands import BANDS, CaseBand, band_of, case_band, placement
from sim.history.run import MAX_RUNS
from tests.batch.helpers import SCENARIOS, invoke

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "cdb90_bands.py"

BATTLES = """\
"isqno","war","name","post1"
1,"AMERICAN CIVIL WAR","ONE","PD"
2,"AMERICAN CIVIL WAR","TWO","HD"
3,"AMERICAN CIVIL WAR","THREE","FD"
4,"AMERICAN CIVIL WAR","FOUR","HD"
5,"AMERICAN CIVIL WAR","FIVE","HD"
6,"AMERICAN CIVIL WAR","SIX","HD"
7,"THE NAPOLEONIC WARS","SEVEN","HD"
8,"THE NAPOLEONIC WARS","EIGHT","PD"
9,"THE NAPOLEONIC WARS","NINE","HD"
"""
# attacker's cas, defender's cas: ratios 1, 2, 3, 4, 5, and battle 6 left out (no defender
# loss); Napoleonic 0.5, 2 and battle 9 out of the years (1799).
CAS = {1: (100, 100), 2: (200, 100), 3: (300, 100), 4: (400, 100), 5: (500, 100), 6: (50, 0),
       7: (50, 100), 8: (400, 200), 9: (100, 10)}  # fmt: skip
YEARS = {7: 1805, 8: 1815, 9: 1799}


def _cdb90(folder: Path) -> Path:
    data = folder / "CDB90" / "data"
    data.mkdir(parents=True)
    (data / "battles.csv").write_text(BATTLES)
    (data / "version.csv").write_text('"version"\n"9.0.3"\n')
    rows = ['"isqno","attacker","cas"']
    for i, (a, d) in CAS.items():
        rows += [f'{i},1,"{a}"', f'{i},0,"{d}"']
    (data / "belligerents.csv").write_text("\n".join(rows) + "\n")
    periods = ['"isqno","atp_number","start_time_min","start_time_max","end_time_min"']
    for i in CAS:
        periods.append(f'{i},1,"{YEARS.get(i, 1862)}-05-01T08:00:00",,')
    (data / "active_periods.csv").write_text("\n".join(periods) + "\n")
    return data.parent


def test_the_script_derives_quantiles_of_the_ratios(tmp_path: Path) -> None:
    """ACW ratios 1…5 (battle 6 has no defender loss): type-7 quantiles 1.4, 2, 3, 4, 4.6;
    prepared (PD, FD) are battles 1 and 3; Napoleonic 1800-1815: 0.5 and 2."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(_cdb90(tmp_path)), "--commit", "abc"],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(done.stdout)
    acw = data["bands"]["acw"]
    assert acw["battles"] == 5
    assert acw["quantiles"] == {"p10": 1.4, "p25": 2.0, "p50": 3.0, "p75": 4.0, "p90": 4.6}
    assert (acw["max"], acw["max_battle"]) == (5.0, "Five")
    prepared = data["bands"]["acw_prepared"]
    assert (prepared["battles"], prepared["quantiles"]["p50"]) == (2, 2.0)
    assert data["bands"]["acw_not_prepared"]["battles"] == 3
    nap = data["bands"]["napoleonic"]
    assert (nap["battles"], nap["quantiles"]["p10"], nap["max"]) == (2, 0.65, 2.0)
    assert "ODC-By" in data["license"] and "commit abc" in data["attribution"]


def test_the_script_quantiles_are_numpys() -> None:
    """The script's quantile is numpy's default (linear, type 7) on any sample."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from cdb90_bands import _quantile  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    rng = np.random.default_rng(30)
    for n in (1, 2, 7, 49):
        xs = list(rng.lognormal(size=n))
        for q in (0.1, 0.25, 0.5, 0.75, 0.9):
            assert _quantile(xs, q) == pytest.approx(float(np.quantile(xs, q)), abs=1e-12)


def test_the_shipped_figures() -> None:
    """Issue 30's figures: 49 ACW battles, median 1.24; prepared defence median 1.70, 90th
    percentile 4.9, Cold Harbor's 7.3 the largest; the Napoleonic 75th percentile 1.50."""
    data = json.loads(BANDS.read_text(encoding="utf-8"))
    assert "ODC-By" in data["license"]
    acw, prepared, nap = band_of("acw"), band_of("acw_prepared"), band_of("napoleonic")
    assert (acw.battles, acw.quantiles["p50"]) == (49, 1.24)
    assert (prepared.quantiles["p50"], prepared.quantiles["p90"]) == (1.697, 4.91)
    assert (prepared.max, prepared.max_battle) == (7.333, "Cold Harbor")
    assert nap.quantiles["p75"] == 1.5
    for b in data["bands"].values():
        qs = list(b["quantiles"].values())
        assert qs == sorted(qs) and qs[-1] <= b["max"]
    for found in _shipped_bands().values():
        band_of(found.band)  # every case names a band the file has


def _shipped_bands() -> dict[str, CaseBand]:
    """Each shipped case's band (its file's ``loss_band``), by case id."""
    from sim.history import SUITE, load_suite

    found = {case.id: case_band(case) for case in load_suite(SUITE)}
    return {cid: band for cid, band in found.items() if band is not None}


def test_placement() -> None:
    band = band_of("acw_prepared")
    assert placement(0.1, band) == "below p10"
    assert placement(1.697, band) == "p25–p50"
    assert placement(2.0, band) == "p50–p75"
    assert placement(4.91, band) == "p75–p90"
    assert placement(4.92, band) == "above p90"
    assert placement(math.nan, band) == "n/a"


CASE = """\
format: 1
id: {id}
title: A small case
scenario: {scenario}
seed: 3
runs: 4
measures:
  - id: ratio
    label: French ÷ Allied loss
    kind: loss_ratio
    side: french
    over: allies
    unit: men
    historical: 1
    accept: {{min: 0, max: 1000}}
    source: A test.
"""


BAND = """\
loss_band:
  band: napoleonic
  attacker: french
  defender: allies
"""


def test_a_musket_case_is_shown_beside_its_band(tmp_path: Path) -> None:
    """A case whose file gives a loss_band (napoleonic, french over allies) is shown beside
    it: the band's ratio is the case's own loss_ratio measure of the same runs. A musket case
    with none is listed as such, even with a shipped case's id (quatre_bras_hedge's band is
    its file's, not its id's)."""
    folder = tmp_path / "suite"
    folder.mkdir()
    scenario = SCENARIOS / "napoleonic_brigade.yaml"
    for cid in ("banded", "quatre_bras_hedge"):
        text = CASE.format(id=cid, scenario=scenario)
        if cid == "banded":
            text = text.replace("measures:\n", BAND + "measures:\n")
        (folder / f"{cid}.yaml").write_text(text)
    result = invoke("history", "--suite", folder, "--json")
    assert result.exit_code == 0, result.output
    by_id = {c["id"]: c for c in json.loads(result.stdout)["cases"]}
    qb = by_id["banded"]
    (m,) = qb["measures"]
    band = qb["loss_band"]
    assert (band["value"], band["low"], band["high"]) == (m["value"], m["low"], m["high"])
    assert (band["band"], band["attacker"], band["defender"]) == ("napoleonic", "french", "allies")
    assert band["placement"] == placement(m["value"], band_of("napoleonic"))
    assert band["above_p90"] is (m["value"] > band_of("napoleonic").quantiles["p90"])
    assert by_id["quatre_bras_hedge"]["loss_band"] is None
    text = invoke("history", "--suite", folder).output
    assert re.search(r"\n  quatre_bras_hedge +— +no band assigned\n", text), text
    assert "jrnold/CDB90" in text and "ODC-By" in text


@pytest.mark.parametrize(
    ("band", "field", "message"),
    [
        ("band: acw_fortified", "band", "no band 'acw_fortified' (acw, acw_not_prepared, "),
        ("attacker: russian", "attacker", "no side 'russian' (allies, french)"),
        ("defender: french", "defender", "the attacker and the defender are one side"),
        ("battle: quatre_bras", "battle", "a scenario's case has one battle: give no 'battle'"),
    ],
)
def test_a_bad_loss_band_is_located(tmp_path: Path, band: str, field: str, message: str) -> None:
    """A loss_band naming a band CDB90's figures lack, a side the scenario lacks, one side
    twice or a battle of a lone scenario: one located line, exit 2, nothing fought."""
    folder = tmp_path / "suite"
    folder.mkdir()
    given = BAND
    key = band.split(":", maxsplit=1)[0]
    if key == "battle":
        given += f"  {band}\n"
    else:
        given = re.sub(rf"  {key}: \w+", f"  {band}", given)
    text = CASE.format(id="banded", scenario=SCENARIOS / "napoleonic_brigade.yaml")
    (folder / "banded.yaml").write_text(text.replace("measures:\n", given + "measures:\n"))
    result = invoke("history", "--suite", folder, "-q")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    at = 1 + text.splitlines().index("measures:") + given.splitlines().index(f"  {band}")
    assert line.startswith(f"battlesim: error: {folder / 'banded.yaml'}:{at}: loss_band.{field}: ")
    assert message in line


def test_a_misspelt_side_of_a_loss_band_is_refused_with_the_side_meant(tmp_path: Path) -> None:
    """A band's attacker one letter off a side of the battle is refused at its line with the
    side it was meant to be, as the scenario loader says it (it said 'no side 'frenc'
    (allies, french)')."""
    folder = tmp_path / "suite"
    folder.mkdir()
    text = CASE.format(id="banded", scenario=SCENARIOS / "napoleonic_brigade.yaml")
    given = BAND.replace("attacker: french", "attacker: frenc")
    (folder / "banded.yaml").write_text(text.replace("measures:\n", given + "measures:\n"))
    result = invoke("history", "--suite", folder, "-q")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: {folder / 'banded.yaml'}:9: loss_band.attacker: no side 'frenc'; "
        "did you mean 'french'?\n",
    )


def test_every_shipped_musket_case_has_a_band_with_its_own_sides() -> None:
    """Each shipped musket case's file gives its band, whose attacker and defender are two of
    its sides (and its campaign battle one of its battles); no other case's does."""
    from sim.history import SUITE, load_suite

    bands = _shipped_bands()
    for case in load_suite(SUITE):
        musket = case.target.ruleset().name == "musket"
        assert (case.id in bands) == musket, case.id
        if not musket:
            continue
        found = bands[case.id]
        sides = case.target.sides()
        assert {found.attacker, found.defender} <= set(sides), case.id
        assert found.attacker != found.defender
        if found.battle is not None:
            assert found.battle in [b["id"] for b in case.target.data["battles"]], case.id


def _fight_once(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """Make the history command fight each choice of cases once in this test: a later command
    with the same cases, workers and run cap renders the results the first one fought (a
    fight is deterministic, and a band's reason is read when results are rendered, not when
    they are fought). Returns the case ids of each fight, in order."""
    fought: list[tuple[str, ...]] = []
    results: dict[tuple[Any, ...], Any] = {}
    real = sim.history.run_suite

    def once(
        cases: list[Any], jobs: int = 1, progress: Any = None, max_runs: int = MAX_RUNS
    ) -> Any:
        key = (tuple(c.id for c in cases), jobs, max_runs)
        if key not in results:
            fought.append(key[0])
            results[key] = real(cases, jobs, progress, max_runs)
        return results[key]

    monkeypatch.setattr(sim.history, "run_suite", once)
    return fought


def _fort_wagner(out: Path) -> tuple[str, dict[str, Any]]:
    """The shipped fort_wagner case at its seed and 200 runs: its band row and loss_band."""
    result = invoke("history", "--case", "fort_wagner", "--max-runs", "200", "-q", "-o", out)
    assert result.exit_code in (0, 1), result.output
    text = (out / "history.txt").read_text(encoding="utf-8")
    (row,) = [line for line in text.splitlines() if line.startswith("  fort_wagner ")]
    (case,) = json.loads((out / "history.json").read_text(encoding="utf-8"))["cases"]
    return row, case["loss_band"]


def test_a_case_with_a_sourced_reason_is_not_flagged_and_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fort_wagner's file's loss_band has a reason: the record's own ratio, 8.7 (6.7 killed
    and wounded), is above the prepared band's p90 of 4.91. Its simulated ratio is above p90
    too, so its row ends with `reason: ` and the reason's exact text, not the flag, and
    --json gives that reason with `flagged` false. The same results with the reason taken
    away are flagged, in the text and in `flagged` (the case is fought once: the second
    command renders the first one's results)."""
    reason = _shipped_bands()["fort_wagner"].reason
    assert reason is not None
    fought = _fight_once(monkeypatch)
    row, band = _fort_wagner(tmp_path / "with")
    p90 = band_of("acw_prepared").quantiles["p90"]
    assert band["placement"] == "above p90" and band["value"] > p90 == 4.91
    assert (band["above_p90"], band["flagged"], band["reason"]) == (True, False, reason)
    assert row.endswith(f"  above p90  reason: {reason}"), row
    assert "needs a sourced reason" not in row

    def no_reason(case: Any) -> CaseBand | None:
        found = case_band(case)
        return None if found is None else replace(found, reason=None)

    monkeypatch.setattr(sim.history.render, "case_band", no_reason)
    row, band = _fort_wagner(tmp_path / "without")
    assert (band["above_p90"], band["flagged"], band["reason"]) == (True, True, None)
    assert row.endswith("  above p90  ABOVE p90: needs a sourced reason"), row
    assert fought == [("fort_wagner",)]


def test_every_reason_is_one_sourced_sentence() -> None:
    """A reason is one sentence (one full stop, at its end) that gives the record's figures
    (digits) and names its source (a quoted title, or an author and work in brackets)."""
    reasons = {cid: b.reason for cid, b in _shipped_bands().items() if b.reason is not None}
    assert reasons, "no case has a reason"
    for cid, text in reasons.items():
        assert text.endswith(".") and ". " not in text, cid
        assert re.search(r"\d", text) and "(" in text and '"' in text, cid


def test_a_figure_is_rounded_as_its_decimal_and_the_docs_table_is_the_commands() -> None:
    """Three significant figures, half up from the data file's decimal: 2.175 is 2.18 (the
    float's own ``.3g`` gives 2.17, below the half). docs/history.md's table of the bands
    shows each band's figures as ``battlesim history`` prints them."""
    from sim.history.bands import _data, figure

    assert [figure(q) for q in (2.175, 3.555, 1.697, 0.105, 1.5, 7.333)] == [
        "2.18", "3.56", "1.70", "0.105", "1.5", "7.33",
    ]  # fmt: skip
    docs = (ROOT / "docs" / "history.md").read_text(encoding="utf-8")
    shown = 0
    for name in _data()["bands"]:
        band = band_of(name)
        cells = [str(band.battles), *(figure(q) for q in band.quantiles.values())]
        row = f"| {band.label} | {' | '.join(cells)} | {figure(band.max)} ({band.max_battle}) |"
        if f"| {band.label} |" in docs:
            assert row in docs.splitlines()
            shown += 1
    assert shown == 4


def test_a_campaign_cases_band_sides_are_its_named_battles(tmp_path: Path) -> None:
    """A campaign of the stone wall (usa, csa) and a Napoleonic brigade (french, allies): a
    band reading battle b with the wall's sides is refused at each side, naming b's sides
    (the sides of any battle of the campaign were accepted)."""
    campaign = tmp_path / "camp.yaml"
    campaign.write_text(
        "campaign: Two fields\nbattles:\n"
        f"  - {{id: a, scenario: {SCENARIOS / 'stone_wall.yaml'}}}\n"
        f"  - {{id: b, scenario: {SCENARIOS / 'napoleonic_brigade.yaml'}}}\n",
        encoding="utf-8",
    )
    folder = tmp_path / "suite"
    folder.mkdir()
    text = (
        CASE.format(id="two", scenario="x")
        .replace("scenario: x\n", f"campaign: {campaign}\n")
        .replace("side: french\n    over: allies", "side: usa\n    over: csa\n    battle: a")
    )
    band = "loss_band:\n  band: napoleonic\n  attacker: usa\n  defender: csa\n  battle: b\n"
    (folder / "two.yaml").write_text(text.replace("measures:\n", band + "measures:\n"))
    result = invoke("history", "--suite", folder, "-q")
    assert result.exit_code == 2
    at = text.splitlines().index("measures:") + 1
    assert result.stderr.splitlines() == [
        f"battlesim: error: {folder / 'two.yaml'}:{at + 2}: loss_band.attacker: no side 'usa' "
        "(allies, french)",
        f"battlesim: error: {folder / 'two.yaml'}:{at + 3}: loss_band.defender: no side 'csa' "
        "(allies, french)",
    ]
