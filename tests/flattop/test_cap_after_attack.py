"""``cap_kills_after_attack`` [ours]: of each 1 + N hits the CAP scores on the bombers, one
shoots an AF down before the attack and N after it.

The hand-made raid (:data:`tests.flattop.builders.BASE`, Red's CAP raised to 18 AF): the
escort's 4 AF tie down 4 CAP AF, the other 14 fire at the bombers on table 9, column 13-15:
4.2, so the ``.2`` die rolled 0 gives 1 hit and the ``n>1`` die rolled 0 gives n + 2 = 6:
7 hits.  Red's AA is 3 + 2 + 1 = 6 (carrier, heavy cruiser, destroyer): table 4, column
5-6, 0.7, rolled 0: 2 hits, both spoiling an attack (``aa_spoiled_per_kill`` 2).  The
attacks' dice are rolled 9, which hits nothing on any column of these cells.
"""

from __future__ import annotations

import doctest
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.events import Event
from engine.rng import Stream
from sim import api
from sim.rulesets.flattop.model.events import (
    AfterAttackKills,
    AirCombat,
    AntiAircraft,
    Attacked,
)
from sim.rulesets.flattop.model.options import FlattopOptions
from sim.rulesets.flattop.model.tables import CRT_FRACTION, MATRIX, column_index
from sim.rulesets.flattop.reading.audit import audit
from sim.rulesets.flattop.reading.report import narrate
from sim.rulesets.flattop.rules import combat
from sim.rulesets.flattop.rules.context import Battle
from tests.flattop import sweep_suite
from tests.flattop.builders import battle, scenario_data
from tests.flattop.scripted import Scripted
from tests.forge import bodies, invoke, reseal

SCENARIO = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "cap_after_attack.yaml"
"""A hand-made raid under a large CAP, with the option at 1 (not a historical case)."""

DICE = {
    "s1/air_combat/escort": (7,),  # 4 AF [3-4] 1.0: column 1 rolled 7 → 0
    "s1/air_combat/cap/escort": (7,),  # the same: no escort lost
    "s1/air_combat/cap/bombers": (0, 0),  # 14 AF [13-15] 4.2: 1 + 6 = 7 hits
    "s1/anti_aircraft/tf2": (0,),  # AA 6 [5-6] 0.7: .7 rolled 0 → 2 hits
    "s1/attack/0": (9, 9),
    "s1/attack/1": (9, 9),
}


def _raid(n: int | None) -> tuple[Battle, list[Event]]:
    """The hand-made raid fought through the rules and the state's apply, every event audited
    against the state before it; ``n``: the option (None: left at its default)."""
    options = {} if n is None else {"cap_kills_after_attack": n}
    data = scenario_data(options=options)
    data["sides"][1]["task_forces"][0]["cap"] = 18
    b = battle(data)
    s = b.state.strikes["s1"]
    s.status, s.escort, s.attacks = "airborne", 4, [8, 6]

    def stream(strike: str, purpose: str, *key: str | int) -> Stream:
        return Scripted(*DICE["/".join(str(p) for p in (strike, purpose, *key))])

    b.stream = stream  # type: ignore[method-assign]
    log: list[Event] = []

    def emit(event: Event | None) -> None:
        if event is None:
            return
        event.stamped(len(log) + 1)
        assert audit(b.scenario, b.state, event) is None
        b.state.apply(event)
        log.append(event)

    for event in combat.decide_air_combat(b, "s1", cause=0):
        emit(event)
    emit(combat.decide_anti_aircraft(b, "s1", cause=0))
    for index in (0, 1):
        emit(combat.decide_attack(b, "s1", index, cause=0))
    emit(combat.decide_after_attack_kills(b, "s1"))
    return b, log


def test_the_split_functions_doctests_hold() -> None:
    """The doctests of allocate, aa_split and cap_split (N=1: 3 hits → 1 before, 2 after;
    N=0: all before) hold."""
    result = doctest.testmod(combat)
    assert (result.failed, result.attempted) == (0, 3)
    assert [combat.cap_split(h, 1) for h in range(5)] == [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)]
    assert [combat.cap_split(h, 0) for h in range(4)] == [(0, 0), (1, 0), (2, 0), (3, 0)]
    # docs/rules/flattop.md's example: N=1, 4 hits on 8 and 6 → 2+0 before, 1+1 after
    assert combat.cap_split(4, 1) == (2, 2)
    assert (combat.allocate([8, 6], 2), combat.allocate([6, 6], 2)) == ([2, 0], [1, 1])


def test_the_default_is_zero_and_left_out_of_the_header() -> None:
    """0 by default: not in the options' dump (so no replay header changes), in it when set."""
    assert FlattopOptions().cap_kills_after_attack == 0
    assert "cap_kills_after_attack" not in FlattopOptions().model_dump()
    assert FlattopOptions(cap_kills_after_attack=1).model_dump()["cap_kills_after_attack"] == 1


@pytest.mark.parametrize("bad", [-1, 11])
def test_the_option_is_from_0_to_10(bad: int) -> None:
    with pytest.raises(ValueError, match="cap_kills_after_attack"):
        FlattopOptions(cap_kills_after_attack=bad)


def test_the_tables_give_the_hand_made_raids_numbers() -> None:
    """The cells and CRT entries the module docstring reads off the seed's tables."""
    assert MATRIX[9][column_index(4)] == 10 and MATRIX[9][column_index(14)] == 42
    assert CRT_FRACTION[2][0] == 1 and MATRIX[4][column_index(6)] == 7
    assert CRT_FRACTION[7][0] == 2 and CRT_FRACTION[7][9] == 0


def test_at_1_the_raid_attacks_with_the_after_attack_kills_and_loses_them_after() -> None:
    """N=1: of 7 hits 3 shoot down before (8,6 → 5,6: [3,0]) and 4 after ([2,2] over 5,6);
    the AA spoils 1+1 of 5,6; the attacks go in with 4 and 5 AF (8 factors [7-8] 1.7 on
    table 7, 10 [9-10] 1.9 on table 6), then 2+2 are shot down: 3,4 left, 7 AF lost in air
    combat, as at N=0."""
    b, log = _raid(1)
    fight = log[2]
    assert isinstance(fight, AirCombat) and fight.target == "bombers"
    assert (fight.result.cell, fight.result.hits) == (4.2, 7)
    assert (fight.attack_losses, fight.attack_losses_after) == ([3, 0], [2, 2])
    aa = log[3]
    assert isinstance(aa, AntiAircraft)
    assert (aa.result.hits, aa.attack_losses, aa.attack_spoiled) == (2, [0, 0], [1, 1])
    attacks = [e for e in log if isinstance(e, Attacked)]
    assert [(a.result.factors, a.result.column, a.result.cell) for a in attacks] == [
        (8, "7-8", MATRIX[7][3] / 10), (10, "9-10", MATRIX[6][4] / 10),
    ]  # fmt: skip
    assert [a.result.cell for a in attacks] == [1.7, 1.9]
    kills = log[-1]
    assert isinstance(kills, AfterAttackKills)
    assert (kills.attack_losses, kills.cause, kills.task_force) == ([2, 2], fight.seq, "tf2")
    s = b.state.strikes["s1"]
    assert (s.attacks, s.after) == ([3, 4], [])
    assert b.state.sides["blue"].air_lost == {
        "air_combat": 7, "anti_aircraft": 0, "aboard": 0, "ditched": 0,
    }  # fmt: skip


def test_at_0_every_cap_hit_shoots_down_before_the_attack() -> None:
    """N=0 (and the default): the 7 hits take 5+2 before the attack, none after, no
    after-attack event; the attacks go in with 2 and 3 AF (0.8 and 1.1), 7 AF lost."""
    for n in (0, None):
        b, log = _raid(n)
        fight = log[2]
        assert isinstance(fight, AirCombat)
        assert (fight.attack_losses, fight.attack_losses_after) == ([5, 2], [])
        assert '"attack_losses_after"' not in fight.model_dump_json()
        attacks = [e for e in log if isinstance(e, Attacked)]
        assert [(a.result.factors, a.result.cell) for a in attacks] == [(4, 0.8), (6, 1.1)]
        assert not any(isinstance(e, AfterAttackKills) for e in log)
        assert b.state.strikes["s1"].attacks == [3, 4]
        assert b.state.sides["blue"].air_lost["air_combat"] == 7


def test_an_after_attack_kill_is_capped_at_what_the_attack_has_left() -> None:
    """After-attack kills [2, 0] of an attack the AA has cut to 1 AF: 1 is shot down; of one it
    has shot down entirely, none (no event); the audit refuses the uncapped kill."""
    b = battle(scenario_data(options={"cap_kills_after_attack": 1}))
    s = b.state.strikes["s1"]
    s.status, s.attacks, s.after, s.after_cause = "airborne", [1, 3], [2, 0], 5
    kills = combat.decide_after_attack_kills(b, "s1")
    assert kills is not None and (kills.attack_losses, kills.cause) == ([1, 0], 5)
    assert audit(b.scenario, b.state, kills) is None
    uncapped = kills.model_copy(update={"attack_losses": [2, 0]})
    assert audit(b.scenario, b.state, uncapped) == (
        "after-attack kills [2, 0], not [1, 0] of [1, 3] left"
    )
    s.attacks = [0, 3]
    assert combat.decide_after_attack_kills(b, "s1") is None


def test_the_audit_names_what_is_wrong_with_an_after_attack_kill() -> None:
    """An after_attack_kills whose losses are right but whose task force is not the one the
    strike is over, or that shoots down AF of attacks the AA has emptied, is refused saying
    so (each was refused as "[2, 0], not [2, 0]" or "[0, 0], not [0, 0]": no reason)."""
    b = battle(scenario_data(options={"cap_kills_after_attack": 1}))
    s = b.state.strikes["s1"]
    s.status, s.attacks, s.after, s.after_cause = "airborne", [6, 3], [2, 0], 5
    kills = combat.decide_after_attack_kills(b, "s1")
    assert kills is not None and (kills.task_force, kills.attack_losses) == ("tf2", [2, 0])
    elsewhere = kills.model_copy(update={"task_force": "tf1"})
    assert audit(b.scenario, b.state, elsewhere) == (
        "after-attack kills of s1 by tf1's CAP, not by tf2's, whose CAP hit it"
    )
    s.attacks = [0, 3]  # the AA shot attack 0 down whole: no after-attack kill is left
    none_left = kills.model_copy(update={"attack_losses": [0, 0]})
    assert audit(b.scenario, b.state, none_left) == (
        "after-attack kills [0, 0] of s1, whose AF the CAP hit for after the attack (after "
        "[2, 0]) the AA has shot down: none is left to shoot down"
    )


def test_the_audit_checks_the_split_of_the_caps_hits() -> None:
    """An air combat whose after-attack kills are not the split's (one moved before the attack,
    one dropped, or any at N=0) breaks an invariant."""
    b, log = _raid(1)
    fight = log[2]
    assert isinstance(fight, AirCombat)
    b = battle(scenario_data(options={"cap_kills_after_attack": 1}))
    s = b.state.strikes["s1"]
    s.status, s.escort, s.attacks = "airborne", 4, [8, 6]
    assert audit(b.scenario, b.state, fight) is None
    moved = fight.model_copy(update={"attack_losses": [4, 0], "attack_losses_after": [1, 2]})
    assert audit(b.scenario, b.state, moved) == "4 bombers shot down, not the 3 of 7 hits"
    dropped = fight.model_copy(update={"attack_losses_after": [2, 1]})
    assert audit(b.scenario, b.state, dropped) == "3 after-attack kills, not the 4 of 7 hits"
    zero = battle(scenario_data())
    zs = zero.state.strikes["s1"]
    zs.status, zs.escort, zs.attacks = "airborne", 4, [8, 6]
    assert audit(zero.scenario, zero.state, fight) == "3 bombers shot down, not the 7 of 7 hits"


def test_escorts_first_splits_the_bombers_share() -> None:
    """``escorts_first``: 18 CAP AF at the strike, [16-20] on table 9: 5.3, rolled .3 → 0 and
    n>1 → 5 + 2 = 7 hits; the 4 escorts take 4, the bombers' 3 split 1 before, 2 after."""
    assert MATRIX[9][column_index(18)] == 53
    data = scenario_data(options={"cap_kills_after_attack": 1, "interception": "escorts_first"})
    data["sides"][1]["task_forces"][0]["cap"] = 18
    b = battle(data)
    s = b.state.strikes["s1"]
    s.status, s.escort, s.attacks = "airborne", 4, [8, 6]
    dice = {"s1/air_combat/escort": (7,), "s1/air_combat/cap/strike": (9, 0)}

    def stream(strike: str, purpose: str, *key: str | int) -> Stream:
        return Scripted(*dice["/".join(str(p) for p in (strike, purpose, *key))])

    b.stream = stream  # type: ignore[method-assign]
    [_, fight] = combat.decide_air_combat(b, "s1", cause=0)
    assert isinstance(fight, AirCombat) and fight.target == "strike"
    assert (fight.result.hits, fight.escort_lost) == (7, 4)
    assert (fight.attack_losses, fight.attack_losses_after) == ([1, 0], [2, 0])
    assert audit(b.scenario, b.state, fight) is None


def test_the_narrative_tells_the_after_attack_kills() -> None:
    """``show`` and ``why`` read "bombers lose 3+0 before their attack and 2+2 after it", then
    "TF 2's CAP shoots down 2+2 AF of bombers after their attack"."""
    b, log = _raid(1)
    fight, kills = log[2], log[-1]
    line = narrate(b.scenario, b.state, fight)
    assert line is not None
    assert line.endswith("; bombers lose 3+0 before their attack and 2+2 after it")
    assert narrate(b.scenario, b.state, kills) == (
        "Turn 1, 06:00 — Strike 1: TF 2's CAP shoots down 2+2 AF of bombers after their attack"
    )


def _scenario(folder: Path, **options: Any) -> Path:
    """The test scenario with ``options`` in place of its own (none: the option's default),
    written under its own name in ``folder`` (the header names the file)."""
    data = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    data["options"] = options
    folder.mkdir()
    path = folder / SCENARIO.name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _events(path: Path) -> list[Event]:
    return list(api.load_replay(path).events)


def test_a_replay_at_1_verifies_and_tells_its_kills_in_words(tmp_path: Path) -> None:
    """The test scenario at its seed: verify says OK; the air combat's after-attack kills are
    the after_attack_kills event's, which why walks back to it; the outcome counts them."""
    out = tmp_path / "r.jsonl"
    run = api.run(SCENARIO, out=out)
    assert invoke("verify", str(out)).exit_code == 0
    events = _events(out)
    [fight] = [e for e in events if isinstance(e, AirCombat) and e.attack_losses_after]
    [kills] = [e for e in events if isinstance(e, AfterAttackKills)]
    assert kills.cause == fight.seq and kills.attack_losses == fight.attack_losses_after
    chain = [line for _, line in api.why(out, kills.seq)]
    assert "after it" in chain[-2] and chain[-1].endswith(
        f"shoots down {'+'.join(map(str, kills.attack_losses))} AF of bombers after their attack"
    )
    lost = sum(e.escort_lost + sum(e.attack_losses) for e in events if isinstance(e, AirCombat))
    blue = {m.name: m.value for m in run.outcome.sides["blue"].losses}
    assert blue["air_factors_air_combat"] == lost + sum(kills.attack_losses)


def test_at_0_written_out_the_replay_is_byte_for_byte_the_defaults(tmp_path: Path) -> None:
    """The option written as 0 is left out of the header: the same bytes as without it."""
    plain = _scenario(tmp_path / "plain")
    zero = _scenario(tmp_path / "zero", cap_kills_after_attack=0)
    api.run(plain, seed=11, out=tmp_path / "a.jsonl")
    api.run(zero, seed=11, out=tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert b"cap_kills_after_attack" not in (tmp_path / "a.jsonl").read_bytes()
    replay = (tmp_path / "a.jsonl").read_bytes()
    assert b"attack_losses_after" not in replay and b"flattop.after_attack_kills" not in replay


@pytest.mark.parametrize("seed", range(1, 9))
def test_without_aa_the_same_dice_attack_with_more_and_lose_the_same(
    tmp_path: Path, seed: int
) -> None:
    """With no AA (every ship's ``aa`` 0), the same seed: at 1 the CAP rolls the same hits, each
    attack goes in with its after-attack kills more (× the scale 2) than at 0, and the side's
    air-combat losses are the same (``allocate`` one hit at a time: split or not, each attack
    loses the same in all)."""
    runs = {}
    for n in (0, 1):
        data = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
        data["options"] = {"cap_kills_after_attack": n}
        for ship in data["sides"][1]["task_forces"][0]["ships"]:
            ship["aa"] = 0
        path = tmp_path / f"n{n}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        runs[n] = (
            api.run(path, seed=seed, out=tmp_path / f"n{n}.jsonl"),
            _events(tmp_path / f"n{n}.jsonl"),
        )
    fights = {n: [e for e in ev if isinstance(e, AirCombat)] for n, (_, ev) in runs.items()}
    assert [f.result for f in fights[0]] == [f.result for f in fights[1]]
    [zero] = [f for f in fights[0] if f.target == "bombers"]
    [one] = [f for f in fights[1] if f.target == "bombers"]
    after = one.attack_losses_after or [0, 0]
    assert sum(after) == one.result.hits - one.result.hits // 2 > 0
    assert [b + a for b, a in zip(one.attack_losses, after, strict=True)] == zero.attack_losses
    first = {n: next(e for e in ev if isinstance(e, Attacked)) for n, (_, ev) in runs.items()}
    assert first[0].attack == first[1].attack
    assert first[1].result.factors == first[0].result.factors + 2 * after[first[0].attack]
    losses = [
        {m.name: m.value for m in run.outcome.sides["blue"].losses}["air_factors_air_combat"]
        for run, _ in runs.values()
    ]
    assert losses[0] == losses[1]


def _tampered(tmp_path: Path, find: str, old: str, new: str) -> tuple[int, str]:
    """The test scenario's replay with ``old`` → ``new`` in its line holding ``find``, the chain
    resealed; verify's exit code and first line."""
    out = tmp_path / "r.jsonl"
    api.run(SCENARIO, out=out)
    texts = bodies(out)
    [i] = [k for k, t in enumerate(texts) if find in t and old in t]
    texts[i] = texts[i].replace(old, new)
    forged = tmp_path / "forged.jsonl"
    forged.write_text(reseal(texts), encoding="utf-8")
    result = invoke("verify", str(forged))
    return result.exit_code, result.output.splitlines()[0]


def test_verify_catches_a_tampered_after_attack_field(tmp_path: Path) -> None:
    """The scenario's seed: the CAP's 3 hits on the bombers, 1+0 before, 2+0 after.  An air
    combat that says 1+0 after, or an after_attack_kills that says 1+0, is an invariant
    broken at that line."""
    code, line = _tampered(
        tmp_path, '"target":"bombers"', '"attack_losses_after":[2,0]', '"attack_losses_after":[1,0]'
    )
    assert code == 1
    assert line.startswith("INVARIANT broken at seq ") and line.endswith(
        "flattop.air_combat: 1 after-attack kill, not the 2 of 3 hits"
    )
    code, line = _tampered(
        tmp_path, "flattop.after_attack_kills", '"attack_losses":[2,0]', '"attack_losses":[1,0]'
    )
    assert code == 1
    assert line.endswith(
        "flattop.after_attack_kills: after-attack kills [1, 0], not [2, 0] of [8, 4] left"
    )


def test_the_protocols_sweep_writes_the_option_into_a_copy_of_the_scenario() -> None:
    """A later_option (left out of canonical data at 0), so the protocol's ``sweep_suite.py
    --grid cap_kills_after_attack=…`` writes it into a copy of each case's scenario."""
    assert sweep_suite._later("cap_kills_after_attack")


def test_check_ruleset_passes_on_the_scenario_with_the_option_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The contract suite (``battlesim check-ruleset flattop``) on the test scenario, whose
    after-attack kills every tool reads: every requirement met.

    The command checks the ruleset's examples first; every one of them is a case of
    tests/contract/test_contract.py, which holds it to every requirement already, so here
    the command is given the scenario alone (the examples it leaves out are checked to be
    exactly those cases: fighting them again cost 12 of this test's 13 CPU s)."""
    from sim import conformance
    from tests.contract.cases import INSTALLED_CASES

    real = conformance.scenarios_for
    left_out: list[Path] = []

    def given_alone(ruleset: Any, extra: Any = (), folder: Any = None) -> list[Path]:
        found = real(ruleset, extra, folder)
        mine = [p for p in found if p.resolve() == SCENARIO.resolve()]
        left_out.extend(p for p in found if p not in mine)
        return mine

    monkeypatch.setattr(conformance, "scenarios_for", given_alone)
    result = invoke("check-ruleset", "flattop", "--scenario", str(SCENARIO))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].endswith(" passed, 0 failed")
    cases = {c.scenario.resolve() for c in INSTALLED_CASES if c.ruleset == "flattop" and c.scenario}
    assert left_out and {p.resolve() for p in left_out} == cases
