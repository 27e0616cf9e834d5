"""The viewer page without a browser: well formed, self-contained, its data true to the fold."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sim import api
from sim.cli import cli
from sim.replay.viewer import report_html
from sim.replay.viewer.model import battle_view, row_data
from sim.rulesets.musket.model.events import MoraleTested
from tests.viewer.conftest import GOLDENS, ROOT
from tests.viewer.pagecheck import NETWORK, embedded, well_formed

STEMS = [p.stem for p in GOLDENS]


@pytest.mark.parametrize("stem", STEMS)
def test_every_golden_page_parses_has_charts_and_no_network(
    pages: dict[str, Path], stem: str
) -> None:
    """Each golden replay's page nests correctly, has ≥ 2 SVG charts, and reaches no network."""
    page = pages[stem].read_text(encoding="utf-8")
    assert well_formed(page) == []
    assert len(re.findall(r'<svg class="chart"', page)) >= 2
    assert NETWORK.search(page) is None
    assert "<script src" not in page and "<link" not in page


def test_the_network_check_catches_what_it_should() -> None:
    """The no-network pattern flags remote sources, fetch and imports, not the page's own text."""
    for bad in ('<img src="https://x/y.png">', "<a href='//cdn/x.js'>", "fetch('/x')", "@import"):
        assert NETWORK.search(bad), bad
    assert NETWORK.search('<a href="#" data-event="3">') is None


@pytest.mark.parametrize("stem", STEMS)
def test_keyframes_are_the_rulesets_rows_at_each_turn_end(stem: str) -> None:
    """The row stored after the last event of each turn is the contract's row at that turn."""
    loaded = api.load_replay(ROOT / "replays" / f"{stem}.jsonl")
    data = battle_view(loaded).data
    rs, sc = loaded.ruleset, loaded.scenario
    turns = {e.turn: i + 1 for i, e in enumerate(loaded.events)}  # last index of each turn
    assert [k["at"] for k in data["keyframes"]] == [0, *turns.values()]
    for turn, at in [(0, 0), *turns.items()]:
        frame = next(k for k in data["keyframes"] if k["at"] == at)
        want = [row_data(r) for r in rs.units(sc, loaded.state_at(turn))]
        assert json.loads(json.dumps(frame["rows"])) == json.loads(json.dumps(want))


@pytest.mark.parametrize("stem", ["stone_wall-s1862", "tavern_brawl-s377", "carrier_duel-s688"])
def test_keyframe_plus_changes_is_the_state_before_every_event(stem: str) -> None:
    """Per-event changes replayed from each keyframe give the fold's rows at every event."""
    loaded = api.load_replay(ROOT / "replays" / f"{stem}.jsonl")
    data = json.loads(json.dumps(battle_view(loaded).data))
    frames = {k["at"]: k["rows"] for k in data["keyframes"]}
    rs, sc = loaded.ruleset, loaded.scenario
    rows: list[Any] = []
    for i, (event, before) in enumerate(loaded.fold()):
        rows = list(frames[i]) if i in frames else rows
        want = [row_data(r) for r in rs.units(sc, before)]
        assert rows == json.loads(json.dumps(want)), f"before seq {event.seq}"
        for u, row in data["events"][i]["delta"]:
            rows[u] = row


def test_a_becmi_page_keeps_every_detail_and_the_tables_cover_kind_beside() -> None:
    """The rows keep a combatant's cover kind ("soft" beside no cover); the details the unit
    table shows (the ruleset's shown_details, "-") are stored beside them where they differ,
    so a ruleset without the hook (musket) gets the same data as before."""
    loaded = api.load_replay(ROOT / "replays" / "dungeon_skirmish-s3.jsonl")
    data = json.loads(json.dumps(battle_view(loaded).data))
    units = [u["id"] for u in data["units"]]
    start = data["keyframes"][0]
    alaric, pip = units.index("alaric"), units.index("pip")
    assert start["rows"][alaric]["details"] == {"cover": "none", "cover_kind": "soft"}
    shown = dict(start["shown"])
    assert shown[alaric] == {"cover": "none", "cover_kind": "-"}
    assert pip not in shown  # in cover: shown as it is
    rs, sc = loaded.ruleset, loaded.scenario
    frames = {k["at"]: k for k in data["keyframes"]}
    for i, (_, before) in enumerate(loaded.fold()):
        if i in frames:
            rows = rs.units(sc, before)
            want = {u: rs.shown_details(r) for u, r in enumerate(rows)}
            want = {u: d for u, d in want.items() if d != rows[u].details}
            assert dict(frames[i].get("shown", [])) == want, f"after {i} events"
    changed = [e for e in data["events"] if e.get("shown")]
    assert changed and all(
        {u for u, _ in e["shown"]} <= {u for u, _ in e["delta"]} for e in changed
    )
    musket = battle_view(api.load_replay(ROOT / "replays" / "stone_wall-s1862.jsonl")).data
    assert all("shown" not in k for k in musket["keyframes"])
    assert all("shown" not in e for e in musket["events"])


def test_large_data_is_embedded_gzip_and_decodes_to_the_same_battle() -> None:
    """Above the threshold the data is gzip+base64 (deterministic) and decodes to the same JSON."""
    loaded = api.load_replay(ROOT / "replays" / "tavern_brawl-s377.jsonl")
    plain, packed = report_html(loaded), report_html(loaded, gzip_above=0)
    assert (
        'data-encoding="gzip+base64"' in packed and "gzip+base64" not in plain.split("<script>")[0]
    )
    assert embedded(plain) == embedded(packed) == [json.loads(json.dumps(battle_view(loaded).data))]
    assert report_html(loaded, gzip_above=0) == packed


def test_key_events_name_what_the_outcome_counts() -> None:
    """Key events include each crippled carrier of the outcome, and each death of a becmi fight."""
    coral = api.load_replay(ROOT / "tests" / "data" / "replays" / "coral_sea_sketch-s1942.jsonl")
    keys = [e["key"] or "" for e in battle_view(coral).data["events"]]
    outcome = coral.ruleset.outcome(coral.scenario, coral.state_at())
    crippled = [n for s in outcome.sides.values() for n in s.details.get("crippled", [])]
    assert crippled and all(any(f"{n}: crippled" in k for k in keys) for n in crippled)
    brawl = api.load_replay(ROOT / "replays" / "tavern_brawl-s377.jsonl")
    keys = [e["key"] or "" for e in battle_view(brawl).data["events"]]
    dead = sum(
        s.loss("dead")
        for s in brawl.ruleset.outcome(brawl.scenario, brawl.state_at()).sides.values()
    )
    assert sum(k.count(": dead") for k in keys) == dead == 1
    assert any("battle ended" in k for k in keys)


def test_report_and_diff_html_refuse_a_missing_directory(tmp_path: Path) -> None:
    """-o and --html into a directory that does not exist: one line, exit 2, nothing written."""
    replay = str(ROOT / "replays" / "tavern_brawl-s377.jsonl")
    nowhere = str(tmp_path / "no" / "x.html")
    r = CliRunner().invoke(cli, ["report", replay, "-o", nowhere])
    assert (r.exit_code, r.stderr.count("\n")) == (2, 1)
    folder = str(tmp_path / "no")
    assert r.stderr == f"battlesim: error: --out {nowhere}: folder {folder!r} does not exist\n"
    r = CliRunner().invoke(cli, ["diff", replay, replay, "--html", nowhere])
    assert r.exit_code == 2
    assert r.stderr == f"battlesim: error: --html {nowhere}: folder {folder!r} does not exist\n"
    assert not (tmp_path / "no").exists()


def test_diff_html_of_identical_battles_says_so(tmp_path: Path) -> None:
    """diff --html of a replay with itself: exit 0, an "Identical" banner, two panes."""
    replay = str(ROOT / "replays" / "tavern_brawl-s377.jsonl")
    out = tmp_path / "same.html"
    r = CliRunner().invoke(cli, ["diff", replay, replay, "--html", str(out)])
    assert r.exit_code == 0
    page = out.read_text(encoding="utf-8")
    assert "<b>Identical</b>" in page and page.count('<section class="pane"') == 2
    assert well_formed(page) == [] and NETWORK.search(page) is None


def test_the_controls_have_names_in_words_and_the_position_is_announced(
    pages: dict[str, Path],
) -> None:
    """A screen reader reads each step button by what it does (the ◀ and ▶ buttons were
    named by their arrows), the position text as it changes, and the map as a region."""
    page = next(iter(pages.values())).read_text(encoding="utf-8")
    buttons = re.findall(r"<button ([^>]*)>([^<]*)</button>", page)
    assert len(buttons) >= 7
    for attrs, text in buttons:
        label = re.search(r'aria-label="([^"]+)"', attrs)
        name = label.group(1) if label is not None else text  # the accessible name
        assert re.search(r"[a-z]{2}", name), (attrs, text)
    assert '<div class="pane-pos" aria-live="polite">' in page
    assert '<div class="map" role="region" aria-label="map">' in page


def test_a_page_names_its_replay_by_file_name_however_the_path_was_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """report and diff --html of replays given by relative paths and by absolute ones write
    the same bytes, naming each replay by its file name and no folder of this machine."""
    monkeypatch.chdir(ROOT)
    a, b = "replays/stone_wall-s1862.jsonl", "replays/chancellorsville-s1863.jsonl"
    written = {}
    for how, (x, y) in {"relative": (a, b), "absolute": (str(ROOT / a), str(ROOT / b))}.items():
        for command in (["report", x, "-o"], ["diff", x, y, "--html"]):
            out = tmp_path / f"{how}-{command[0]}.html"
            result = CliRunner().invoke(cli, [*command, str(out)])
            assert result.exit_code in (0, 1), result.output
            written[how, command[0]] = out.read_text(encoding="utf-8")
    for command in ("report", "diff"):
        assert written["relative", command] == written["absolute", command]
        assert str(ROOT) not in written["absolute", command]
        assert "replays/" not in written["absolute", command]
    assert battle_view(api.load_replay(ROOT / a)).meta["replay"] == "stone_wall-s1862.jsonl"
    assert "replay stone_wall-s1862.jsonl." in written["absolute", "report"]
    assert "A: stone_wall-s1862.jsonl" in written["absolute", "diff"]
    assert "B: chancellorsville-s1863.jsonl" in written["absolute", "diff"]


def test_the_docs_fork_example_is_the_fork_its_picture_shows() -> None:
    """docs/viewer.md forks at the event its picture and caption show (and make screenshots
    draws): the 69th New York's first failed morale check, made to pass in good order."""
    golden = api.load_replay(ROOT / "replays" / "stone_wall-s1862.jsonl")
    check = next(
        e
        for e in golden.events
        if isinstance(e, MoraleTested) and e.unit == "69ny" and not e.passed
    )
    doc = (ROOT / "docs" / "viewer.md").read_text(encoding="utf-8")
    forks = re.findall(r"^battlesim fork replays/stone_wall-s1862\.jsonl (.*)$", doc, re.M)
    assert forks == [
        f"--at {check.seq} --set passed=true --set after={check.before} --out held.jsonl"
    ]
    assert "the 69th New York passes the morale check it failed" in doc


def test_a_measure_read_in_men_and_in_guns_is_a_chart_for_each(tmp_path: Path) -> None:
    """musket's unit strength is men for a regiment and guns for a battery: the page charts
    "strength (men)" with the regiments alone and "strength (guns)" with the batteries alone
    (the guns were drawn as men), and report --png writes a file for each."""
    loaded = api.load_replay(ROOT / "replays" / "stone_wall-s1862.jsonl")
    rows = loaded.ruleset.units(loaded.scenario, loaded.ruleset.initial_state(loaded.scenario))
    by_unit = {u: [r.id for r in rows if r.strength.unit == u] for u in ("men", "guns")}
    assert by_unit["men"] and by_unit["guns"]
    page = tmp_path / "p.html"
    result = CliRunner().invoke(
        cli,
        [
            "report",
            str(ROOT / "replays" / "stone_wall-s1862.jsonl"),
            "-o",
            str(page),
            "--png",
            str(tmp_path / "png"),
        ],
    )
    assert result.exit_code == 0, result.output
    text = page.read_text(encoding="utf-8")
    for unit, ids in by_unit.items():
        (svg,) = re.findall(
            rf'<svg class="chart"[^>]*data-measure="strength" data-unit="{unit}".*?</svg>', text
        )
        assert f"Units: strength ({unit}) by turn" in svg
        assert re.findall(r'data-subject="([^"]+)"', svg) == ids
    assert sorted(p.name for p in (tmp_path / "png").glob("unit_strength*")) == [
        "unit_strength_guns.png",
        "unit_strength_men.png",
    ]
