"""Whole musket battles: determinism, fold = live, golden replays, rules in action."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.comparison.jsondiff import diff
from engine.log import GENESIS, MemorySink, seal
from engine.projection import Projection
from engine.recorder import Recorder
from sim import api
from sim.cli.battles.views import verify_lines
from sim.rulesets.musket.model.hexmap import distance
from sim.scenario.load import load_scenario
from sim.scenario.load import validate_data as _validate
from tests.golden import GOLDEN, golden_path

MUSKET_GOLDEN = ["chancellorsville.yaml", "napoleonic_brigade.yaml", "stone_wall.yaml"]

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "scenarios" / "stone_wall.yaml"
BATTLESIM = Path(sys.executable).parent / "battlesim"


def _lines(scenario: Path, seed: int) -> list[str]:
    ruleset, sc = load_scenario(scenario)
    sink = MemorySink()
    ruleset.simulate(sc, api.make_header(ruleset, sc, seed, scenario.name), sink)
    return sink.lines


def test_same_seed_same_bytes_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    """Two subprocesses with different PYTHONHASHSEED write byte-identical replays."""
    outs = []
    for hash_seed in ("0", "12345"):
        out = tmp_path / f"r{hash_seed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run(
            [str(BATTLESIM), "run", str(STONE_WALL), "--seed", "99", "--out", str(out)],
            check=True,
            env=env,
            capture_output=True,
        )
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert outs[0] == "\n".join(_lines(STONE_WALL, 99)).encode() + b"\n"


@pytest.mark.parametrize("scenario", sorted(GOLDEN))
def test_golden_replays_resimulate_byte_for_byte(scenario: str, tmp_path: Path) -> None:
    """Each golden replay in replays/ is exactly what the code writes today."""
    path = golden_path(scenario, GOLDEN[scenario])
    recorded = path.read_text(encoding="utf-8").split("\n")[:-1]
    made = _lines(ROOT / "scenarios" / scenario, GOLDEN[scenario])
    assert made == recorded, _golden_hint(scenario, path, made, recorded, _fresh(path, tmp_path))


def _fresh(golden: Path, tmp_path: Path) -> Path:
    """Where the failure's commands write today's replay: a name made from the golden's
    (``stone_wall-s1862.new.jsonl``) in the test's own ``tmp_path``, which pytest makes for
    this user alone and keeps after a failure. A fixed ``/tmp/new.jsonl`` was shared: two
    failing worktrees wrote over each other's, and another user's file or link there was
    what ``run`` refused or ``diff`` read."""
    return tmp_path / f"{golden.name.removesuffix('.jsonl')}.new.jsonl"


def _golden_hint(scenario: str, path: Path, made: list[str], recorded: list[str], out: Path) -> str:
    """Where today's lines leave the golden's, what differs there, and how to see why (the
    failure's message): two commands to paste, which write today's replay at ``out``
    (:func:`_fresh`) and diff it with the golden."""
    at = next(
        (i for i, (a, b) in enumerate(zip(made, recorded, strict=False)) if a != b),
        min(len(made), len(recorded)),
    )
    rel = path.relative_to(ROOT)
    cd, battlesim = _battlesim_here()
    new = shlex.quote(str(out))
    return (
        f"{rel}: today's code writes {_line_apart(made, recorded, at)} ({len(made)} lines "
        f"against {len(recorded)}). See which event and which draws, with the code this test "
        f"fought ({ROOT / 'sim'}): {cd}{battlesim} run scenarios/{scenario} --seed "
        f"{GOLDEN[scenario]} -o {new} && {battlesim} diff {rel} {new} (an "
        "extra or missing draw shows as the streams' counts; diff compares the battles, so a "
        "changed header or event shape alone is 'identical' there). A rule changed on "
        "purpose: make golden, and review the replays' diff."
    )


def _battlesim_here() -> tuple[str, str]:
    """The ``cd`` (none from the checkout) and the command that run battlesim on the code
    the golden tests fight: ``python -m sim`` from the checkout, which puts it first on
    ``sys.path`` as pytest does, with this test's Python. A ``battlesim`` on ``PATH`` imports
    whatever its environment finds first (an installed copy, another worktree's checkout, a
    package first on ``PYTHONPATH``), fights that, and may call the battles identical."""
    cd = "" if Path.cwd().resolve() == ROOT else f"cd {shlex.quote(str(ROOT))} && "
    return cd, f"{shlex.quote(sys.executable)} -m sim"  # whole: a venv in the checkout too


def _line_apart(made: list[str], recorded: list[str], at: int) -> str:
    """The golden's line ``at`` named, and the fields today's line changes there (their paths,
    a draw's first, as verify names them: a draw taken more or less is the likeliest cause,
    and is not to be cut off by "and N more"; the chain link ``h`` left out: it differs
    wherever the line does)."""
    if at >= len(made) or at >= len(recorded):
        return f"{'fewer' if at >= len(made) else 'more'} lines: the golden's line {at + 1} on"
    old, new = json.loads(recorded[at]), json.loads(made[at])
    name = (
        "its header"
        if at == 0
        else f"its footer (line {at + 1})"
        if "footer" in old
        else f"its line {at + 1} (seq {old.get('seq', at - 1)})"
    )
    paths = [c.path for c in diff(old, new) if c.path != "h"]
    paths.sort(key=lambda path: "draws" not in path.split("."))  # stable: the rest in order
    shown = ", ".join(paths[:6]) + (f" and {len(paths) - 6} more" if len(paths) > 6 else "")
    return f"{name} otherwise, in {shown}"


def test_the_golden_failure_names_the_line_and_the_fields_apart() -> None:
    """A changed header, event shape or footer is named with the fields that differ: diff,
    which the message points to, compares battles and calls those identical."""
    path = golden_path("stone_wall.yaml", GOLDEN["stone_wall.yaml"])
    recorded = path.read_text(encoding="utf-8").split("\n")[:-1]

    def edited(at: int, **fields: Any) -> list[str]:
        made = list(recorded)
        made[at] = json.dumps({**json.loads(made[at]), **fields, "h": "0" * 32})
        return made

    def first(made: list[str]) -> str:
        hint = _golden_hint("stone_wall.yaml", path, made, recorded, Path("/x/new.jsonl"))
        return hint.split(f" ({len(made)} lines against {len(recorded)}). See ")[0]

    golden = "replays/stone_wall-s1862.jsonl: today's code writes its"
    header = first(edited(0, rules_digest="sha256:0"))
    assert header == f"{golden} header otherwise, in rules_digest"
    fired = next(i for i, x in enumerate(recorded) if '"musket.fired"' in x)
    raised = json.loads(recorded[fired])["schema_version"] + 1
    assert first(edited(fired, schema_version=raised, point_blank=False)) == (
        f"{golden} line {fired + 1} (seq {fired - 1}) otherwise, in schema_version, point_blank"
    )
    end = len(recorded)
    footer = first(edited(end - 1, final_turn=-1))
    assert footer == f"{golden} footer (line {end}) otherwise, in final_turn"


def test_the_golden_failure_names_a_changed_draw_first() -> None:
    """A stray draw moves every result after it: the draws were named last, after six other
    fields, and cut off as "and 1 more" when seven changed. They come first, as in verify's
    message, and the rest keep the line's order."""
    path = golden_path("stone_wall.yaml", GOLDEN["stone_wall.yaml"])
    recorded = path.read_text(encoding="utf-8").split("\n")[:-1]
    at = next(i for i, x in enumerate(recorded) if '"musket.fired"' in x)
    line = json.loads(recorded[at])
    result = dict(line["result"])
    moved = ["value", "casualties", "fatigue_value", "fatigue_added", "morale_check_p", "low"]
    for key in moved:
        result[key] += 1
    result["draws"] = [[s, i + 1, u] for s, i, u in result["draws"]]  # one drawn before them
    made = list(recorded)
    made[at] = json.dumps({**line, "result": result, "h": "0" * 32})
    shown = [f"result.{key}" for key in list(result) if key in moved][:5]
    assert _golden_hint("stone_wall.yaml", path, made, recorded, Path("/x/new.jsonl")).startswith(
        f"replays/stone_wall-s1862.jsonl: today's code writes its line {at + 1} (seq {at - 1}) "
        f"otherwise, in result.draws, {', '.join(shown)} and 1 more ("
    )


def test_the_golden_failure_shows_commands_that_fight_the_code_it_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The message's commands read `battlesim run …, then battlesim diff …`: a `battlesim`
    that imports another copy of the code (an installed one, another worktree's checkout, a
    package first on PYTHONPATH) fought that copy, and diff called the battles identical
    (an engineer's review, in a worktree beside the checkout that owned the venv). They are
    `python -m sim` from the checkout, with the test's Python, pasted whole from anywhere:
    with another `sim` first on PYTHONPATH they fight the checkout."""
    path = golden_path("stone_wall.yaml", GOLDEN["stone_wall.yaml"])
    recorded = path.read_text(encoding="utf-8").split("\n")[:-1]
    made = [*recorded[:-1], "{}"]  # today's code, as the test sees it, differs at the footer
    monkeypatch.chdir(tmp_path)
    out = _fresh(path, tmp_path)
    hint = _golden_hint("stone_wall.yaml", path, made, recorded, out)
    python = shlex.quote(sys.executable)
    start = f"with the code this test fought ({ROOT / 'sim'}): cd {shlex.quote(str(ROOT))} && "
    assert f"{start}{python} -m sim run scenarios/stone_wall.yaml --seed 1862 " in hint
    commands = hint.split(start)[1].split(" (an extra or missing draw")[0]
    assert commands.endswith(f" && {python} -m sim diff replays/stone_wall-s1862.jsonl {out}")
    other = tmp_path / "other" / "sim"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("raise SystemExit('another copy of sim was imported')\n")
    run = subprocess.run(
        ["bash", "-c", f"cd {shlex.quote(str(ROOT))} && " + commands],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(other.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (run.returncode, run.stdout.splitlines()[-1]) == (
        0,
        f"identical: replays/stone_wall-s1862.jsonl and {out}",
    ), run.stderr


def test_the_golden_verify_failure_is_what_verify_prints(tmp_path: Path) -> None:
    """The message was the result's repr, `Mismatch(line=7, seq=5, reason=…)`, and `None` for
    a broken invariant, under "battlesim verify … says:": it is verify's own line."""
    lines = golden_path("stone_wall.yaml", 1862).read_text(encoding="utf-8").split("\n")[:-1]
    bodies = [line[: line.rindex(',"h":"')] + "}" for line in lines]
    fired, tested = json.loads(bodies[6]), json.loads(bodies[17])
    assert (fired["type"], tested["type"]) == ("musket.fired", "musket.morale_tested")

    def chained(name: str, k: int, old: str, new: str) -> Path:
        texts, h = [*bodies[:k], bodies[k].replace(old, new, 1), *bodies[k + 1 :]], GENESIS
        out = []
        for body in texts:
            line, h = seal(h, body)
            out.append(line)
        (tmp_path / name).write_text("\n".join(out) + "\n", encoding="utf-8")
        return tmp_path / name

    rng = f'"range":{fired["range"]}'
    mismatch = chained("m.jsonl", 6, rng, f'"range":{fired["range"] + 1}')
    assert _verify_failure(mismatch) == (
        f"battlesim verify {mismatch} says: MISMATCH at seq 5 (line 7): event musket.fired "
        "differs from re-simulation in: range"
    )
    broken = chained("i.jsonl", 17, f'"after":"{tested["after"]}"', '"after":"routed"')
    assert _verify_failure(broken) == (
        f"battlesim verify {broken} says: INVARIANT broken at seq 16 (line 18): "
        f"musket.morale_tested: illegal morale transition {tested['before']} -> routed in melee"
    )


def test_golden_regeneration_fights_the_code_pythonpath_puts_first(tmp_path: Path) -> None:
    """`PYTHONPATH=eli make golden` fought the checkout, which tests/golden.py put first, and
    said "0 of 7 golden replays rewritten" of Eli's changed copy; the checkout now goes after
    PYTHONPATH's folders (as `battlesim` itself runs them) and before the installed packages,
    and the script's own folder, tests/, whose tests/sim is no sim, is left out."""
    from tests.golden import checkout_on

    here, eli, stdlib, site = str(ROOT / "tests"), str(tmp_path / "eli"), "/usr/lib/py", "/site"
    root = str(ROOT)
    assert checkout_on([here, eli, stdlib, site], eli) == [eli, root, stdlib, site]
    assert checkout_on([here, stdlib, site], None) == [root, stdlib, site]
    assert checkout_on([here, stdlib, site], "") == [root, stdlib, site]


@pytest.mark.parametrize("scenario", sorted(GOLDEN))
def test_golden_replays_verify(scenario: str) -> None:
    """verify passes on each golden replay."""
    failure = _verify_failure(golden_path(scenario, GOLDEN[scenario]))
    assert failure is None, failure


def _verify_failure(path: Path) -> str | None:
    """What ``battlesim verify`` prints of ``path`` when it is not OK (the golden test's
    message), else None."""
    result = api.verify_replay(path)
    if result.ok:
        return None
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return f"battlesim verify {shown} says: {verify_lines(result)[0]}"


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**40), scenario=st.sampled_from(sorted(GOLDEN)))
def test_fold_equals_live_state_after_every_event(seed: int, scenario: str) -> None:
    """Folding the log reproduces the live state after every single event."""
    live: list[dict[str, Any]] = []
    original = Recorder.emit

    def spy(self: Recorder[Any], event: Any) -> Any:
        stamped = original(self, event)
        live.append(json.loads(json.dumps(self.snapshot(self.state))))
        return stamped

    Recorder.emit = spy  # type: ignore[method-assign]
    try:
        lines = _lines(ROOT / "scenarios" / scenario, seed)
    finally:
        Recorder.emit = original  # type: ignore[method-assign]
    ruleset, sc = load_scenario(ROOT / "scenarios" / scenario)
    projection = Projection(ruleset.initial_state(sc), ruleset.apply)
    events = [
        ruleset.registry.parse({k: v for k, v in json.loads(x).items() if k != "h"})
        for x in lines[1:-1]
    ]
    assert len(events) == len(live)
    for event, expected in zip(events, live, strict=True):
        projection.apply(event)
        assert json.loads(json.dumps(ruleset.snapshot(projection.state))) == expected


def _draws(event: dict[str, Any]) -> list[dict[str, Any]]:
    found = list(event.get("draws", []))
    for key in ("result", "attacker_losses", "defender_losses", "odds"):
        found += (event.get(key) or {}).get("draws", [])
    # format 4: each draw is [stream, i, u]
    named = [dict(zip(("stream", "i", "u"), d, strict=True)) for d in found]
    return sorted(named, key=lambda d: (d["stream"], d["i"]))


@pytest.mark.parametrize("scenario", MUSKET_GOLDEN)
def test_every_draw_comes_from_a_stream_of_its_turn_and_unit(scenario: str) -> None:
    """No stream is shared between units or turns, so one unit's change moves no other draw."""
    lines = golden_path(scenario, GOLDEN[scenario]).read_text().split("\n")[1:-2]
    seen: dict[str, int] = {}
    for event in map(json.loads, lines):
        for d in _draws(event):
            parts = d["stream"].split("/")
            assert parts[0] == str(event["turn"])
            assert event["unit"] in parts
            assert d["i"] == seen.get(d["stream"], 0)  # each stream's draws in order, no gaps
            seen[d["stream"]] = d["i"] + 1


def test_changing_one_units_order_leaves_other_units_turn_one_unchanged(tmp_path: Path) -> None:
    """Holding the battery back changes its own events only, not the other turn-1 volleys."""
    text = STONE_WALL.read_text().replace(
        "order: {kind: charge, target: cobb}", "order: {kind: hold}"
    )
    variant = tmp_path / "variant.yaml"
    variant.write_text(text)

    def turn_one_fire(lines: list[str]) -> dict[str, Any]:
        return {
            (e["unit"], e["target"]): e["result"]
            for e in map(json.loads, lines[1:-1])
            if e["type"] == "musket.fired"
            and e["turn"] == 1
            and e["unit"] != "116pa"
            and e["target"] != "116pa"
        }

    a, b = turn_one_fire(_lines(STONE_WALL, 5)), turn_one_fire(_lines(variant, 5))
    shared = set(a) & set(b)
    assert shared
    assert all(a[k] == b[k] for k in shared)


def test_every_event_names_its_cause() -> None:
    """Each morale check caused by fire or melee names the seq of that resolution; a
    test before a charge (option ``charge_test``) is the unit's own and names none."""
    lines = golden_path("stone_wall.yaml", 1862).read_text().split("\n")[1:-2]
    events = [json.loads(x) for x in lines]
    by_seq = {e["seq"]: e for e in events}
    tests = [e for e in events if e["type"] == "musket.morale_tested"]
    checks = [e for e in tests if e["reason"] != "charge"]
    assert checks and len(checks) < len(tests)
    assert all(e["cause"] is None for e in tests if e["reason"] == "charge")
    for check in checks:
        cause = by_seq[check["cause"]]
        assert cause["type"] in ("musket.fired", "musket.meleed")
        assert check["unit"] in (cause["target"], cause["unit"])


def test_ring_search_agrees_with_a_full_scan() -> None:
    """Hexes in ring r are exactly those at distance r."""
    from sim.rulesets.musket.model.hexmap import distance, ring

    for center in ((0, 0), (5, 4), (6, 7)):
        for r in range(0, 5):
            got = sorted(ring(center, r))
            want = sorted(
                (c, w)
                for c in range(-6, 20)
                for w in range(-6, 20)
                if distance(center, (c, w)) == r
            )
            assert got == want


def test_distance_is_the_largest_difference_of_cube_coordinates() -> None:
    """distance(a, b) = max |difference| of the two hexes' cube coordinates, for every pair."""
    from sim.rulesets.musket.model.hexmap import _cube

    hexes = [(c, r) for c in range(-5, 9) for r in range(-5, 9)]
    for a in hexes:
        for b in hexes:
            want = max(abs(p - q) for p, q in zip(_cube(a), _cube(b), strict=True))
            assert distance(a, b) == want


def test_nearest_enemy_ring_search_equals_full_scan() -> None:
    """nearest_enemy picks the same unit by ring search as by a scan of every enemy."""
    import random

    import simpy

    from engine.kernel import TurnKernel
    from engine.rng import Streams
    from sim.rulesets.musket.model.state import initial_state
    from sim.rulesets.musket.rules.context import Battle

    picker = random.Random(4)  # test data only: where to put units
    hexes = [(c, r) for c in range(30) for r in range(30)]
    picker.shuffle(hexes)
    units = [
        {
            "id": f"u{i}",
            "name": f"U{i}",
            "kind": "infantry",
            "strength": 100,
            "quality": "C",
            "weapon": "rifle_musket",
            "at": list(hexes[i]),
        }
        for i in range(120)
    ]
    data = {
        "ruleset": "musket",
        "name": "t",
        "map": {"width": 30, "height": 30},
        "turns": {"limit": 1},
        "sides": [
            {"id": "a", "name": "A", "retreat": "north", "units": units[:60]},
            {"id": "b", "name": "B", "retreat": "south", "units": units[60:]},
        ],
    }
    _, sc = load_scenario_data(data)
    state = initial_state(sc)
    b = Battle(sc, state, Streams(1), TurnKernel(simpy.Environment(), ("x",), 20))
    for unit in state.units.values():
        for reach in (1, 2, 3, 4):
            ringed = b.nearest_enemy(unit, within=reach)
            scanned = min(
                (e for e in b.enemies(unit) if distance(unit.hex, e.hex) <= reach),  # type: ignore[arg-type]
                key=lambda e: (distance(unit.hex, e.hex), b.rank[e.id]),  # type: ignore[arg-type]
                default=None,
            )
            assert ringed is scanned


def load_scenario_data(data: dict[str, Any]) -> Any:
    """Validate an in-memory scenario."""
    return _validate(data, {}, "t.yaml")


@settings(max_examples=60, deadline=None)
@given(
    order=st.sampled_from(["hold", "advance", "engage", "charge", "retire"]),
    kind=st.sampled_from(["infantry", "cavalry", "artillery"]),
    morale=st.sampled_from(["good", "disrupted", "routed"]),
    moved=st.booleans(),
    fired=st.booleans(),
    fought=st.booleans(),
)
def test_a_unit_skips_only_the_phase_its_order_leaves_it_nothing_to_do_in(
    order: str, kind: str, morale: str, moved: bool, fired: bool, fought: bool
) -> None:
    """A charging unit never fires offensively and any other unit never charges, whatever
    its state (a fork may set any of it), so a unit waits for every phase but that one."""
    import simpy

    from engine.kernel import TurnKernel
    from engine.rng import Streams
    from sim.rulesets.musket.battle import waits_for
    from sim.rulesets.musket.model.data import PHASES
    from sim.rulesets.musket.model.state import initial_state
    from sim.rulesets.musket.rules.context import Battle
    from sim.rulesets.musket.rules.fire import decide_fire
    from sim.rulesets.musket.rules.melee import decide_melee

    spec: dict[str, Any] = {"kind": "hold"}
    if order in ("advance", "retire"):
        spec = {"kind": order, "to": [2, 5]}
    elif order in ("engage", "charge"):
        spec = {"kind": order, "target": "e"}
    me = {"id": "m", "name": "M", "kind": "infantry", "strength": 400, "quality": "A"}
    me |= {"weapon": "rifle_musket", "at": [2, 2], "order": spec}
    enemy = {**me, "id": "e", "name": "E", "at": [2, 3], "order": {"kind": "hold"}}
    data = {
        "ruleset": "musket",
        "name": "t",
        "map": {"width": 5, "height": 6},
        "turns": {"limit": 3},
        "sides": [
            {"id": "a", "name": "A", "retreat": "north", "units": [me]},
            {"id": "b", "name": "B", "retreat": "south", "units": [enemy]},
        ],
    }
    _, sc = load_scenario_data(data)
    state = initial_state(sc)
    kernel = TurnKernel(simpy.Environment(), PHASES, 20)
    kernel.turn = 2
    b = Battle(sc, state, Streams(1), kernel)
    unit = state.units["m"]
    unit.kind, unit.morale = kind, morale  # as a fork may set them
    unit.moved_turn, unit.fired_turn, unit.fought_turn = (
        2 if x else 1 for x in (moved, fired, fought)
    )
    skipped = "offensive_fire" if order == "charge" else "melee"
    assert waits_for(b, "m") == tuple(p for p in PHASES if p != skipped)
    if order == "charge":
        assert decide_fire(b, unit, "offensive_fire") is None
    else:
        assert decide_melee(b, unit) is None
