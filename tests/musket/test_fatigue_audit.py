"""``verify``'s audit holds a loss's fatigue to its arithmetic, for every loss.

Fatigue from a loss is F = Uniform(b, 3b) × factor with b the rounded casualties
(``fatigue_from: rounded``) — one draw, b + (3b − b)·u — then randomly rounded by a second
draw and capped at ``fatigue_max`` less the fatigue the unit already has; the factor is 1
for fire, ``melee_fatigue_factor`` (1.5) for a melee's winner and
``melee_loser_fatigue_factor`` (2) for its loser; the two draws are the last before the
morale check's, which is the result's last when c > 0 (docs/rules/musket.md, *Fatigue*;
``rules/results.py:_after``). The audit checked only a loss of 0 (``_fatigue``): a re-sealed
file giving Phillips' Legion 30 fatigue for the 24 the volley at seq 5 drew was found only
as a re-simulation MISMATCH, not as the broken invariant it is. The expected values below
are worked from the recorded draws by that rule, not read from the audit.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from sim import api
from sim.rulesets.musket.model.events import Casualties, Fired, Meleed
from sim.rulesets.musket.reading.audit import audit
from tests.forge import forge, invoke

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"
CHANCELLORSVILLE = ROOT / "replays" / "chancellorsville-s1863.jsonl"
VOLLEY = 5
"""1st Rhode Island Light, Battery A, on Phillips' Legion: 14 casualties."""
MELEE = 55
"""Cobb's charge on the 69th New York: Cobb wins (2 casualties), the 69th loses 8."""


def _drawn(c: Casualties, factor: float) -> float:
    """F = b + (3b − b)·u times the factor, b the rounded casualties, u the first of the two
    draws before the check's."""
    return (c.casualties + 2 * c.casualties * c.draws[-3].u) * factor


def _rounded(c: Casualties) -> int:
    """F randomly rounded by the second draw: up with probability F − ⌊F⌋."""
    n = math.floor(c.fatigue_value)
    return n + 1 if c.draws[-2].u < c.fatigue_value - n else n


def _tampered(tmp_path: Path, replay: Path, seq: int, path: str, value: object) -> Path:
    """``replay`` with one field of event ``seq`` changed and its chain sealed again."""

    def edit(texts: list[str]) -> list[str]:
        event = json.loads(texts[1 + seq])
        *parents, last = path.split(".")
        node = event
        for name in parents:
            node = node[name]
        node[last] = value
        texts[1 + seq] = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
        return texts

    return forge(tmp_path, edit, source=replay)


def test_the_recorded_fatigue_is_the_rules_arithmetic() -> None:
    """The goldens' losses follow the rule as worked here: the volley's 24.37… rounded to
    24; the melee's 1.5 for Cobb, the winner, and 2 for the 69th, the loser."""
    volley = api.load_replay(STONE_WALL).event(VOLLEY)
    assert isinstance(volley, Fired)
    c = volley.result
    assert (c.fatigue_value, _rounded(c), c.fatigue_added) == (_drawn(c, 1.0), 24, 24)
    melee = api.load_replay(CHANCELLORSVILLE).event(MELEE)
    assert isinstance(melee, Meleed) and melee.winner == melee.unit == "cobb"
    won, lost = melee.attacker_losses, melee.defender_losses
    assert math.isclose(won.fatigue_value, _drawn(won, 1.5), rel_tol=1e-12)
    assert math.isclose(lost.fatigue_value, _drawn(lost, 2.0), rel_tol=1e-12)
    assert (won.fatigue_added, lost.fatigue_added) == (_rounded(won), _rounded(lost))


def test_verify_names_fatigue_added_that_its_draw_does_not_give(tmp_path: Path) -> None:
    volley = api.load_replay(STONE_WALL).event(VOLLEY)
    assert isinstance(volley, Fired)
    c = volley.result
    forged = _tampered(tmp_path, STONE_WALL, VOLLEY, "result.fatigue_added", 30)
    verified = invoke("verify", str(forged))
    assert (verified.exit_code, verified.stdout) == (
        1,
        f"INVARIANT broken at seq 5 (line 7): musket.fired: result.fatigue_added 30 is not "
        f"fatigue_value {c.fatigue_value} rounded by its draw ({_rounded(c)}) and capped at "
        f"fatigue_max 900 less phil's fatigue 0: it is {_rounded(c)}\n",
    )


def test_verify_names_a_fatigue_value_its_draw_does_not_give(tmp_path: Path) -> None:
    volley = api.load_replay(STONE_WALL).event(VOLLEY)
    assert isinstance(volley, Fired)
    forged = _tampered(tmp_path, STONE_WALL, VOLLEY, "result.fatigue_value", 30.0)
    verified = invoke("verify", str(forged))
    assert (verified.exit_code, verified.stdout) == (
        1,
        "INVARIANT broken at seq 5 (line 7): musket.fired: result.fatigue_value 30.0 is not "
        f"(b + 2b·u) × 1.0 from b = 14 and its draw: it is {_drawn(volley.result, 1.0)}\n",
    )


def test_a_melees_sides_are_held_each_to_its_factor(tmp_path: Path) -> None:
    """The loser's fatigue_added, and the winner's value worked at the loser's factor."""
    melee = api.load_replay(CHANCELLORSVILLE).event(MELEE)
    assert isinstance(melee, Meleed)
    lost, won = melee.defender_losses, melee.attacker_losses
    before = api.load_replay(CHANCELLORSVILLE).after(MELEE - 1).units["69ny"].fatigue
    forged = _tampered(tmp_path, CHANCELLORSVILLE, MELEE, "defender_losses.fatigue_added", 50)
    verified = invoke("verify", str(forged))
    assert (verified.exit_code, verified.stdout) == (
        1,
        "INVARIANT broken at seq 55 (line 57): musket.meleed: defender_losses.fatigue_added "
        f"50 is not fatigue_value {lost.fatigue_value} rounded by its draw ({_rounded(lost)}) "
        f"and capped at fatigue_max 900 less 69ny's fatigue {before}: it is "
        f"{min(_rounded(lost), 900 - before)}\n",
    )
    as_loser = _drawn(won, 2.0)
    forged = _tampered(tmp_path, CHANCELLORSVILLE, MELEE, "attacker_losses.fatigue_value", as_loser)
    verified = invoke("verify", str(forged))
    assert verified.exit_code == 1
    assert verified.stdout.startswith(
        f"INVARIANT broken at seq 55 (line 57): musket.meleed: attacker_losses.fatigue_value "
        f"{as_loser} is not (b + 2b·u) × 1.5 from b = {won.casualties} and its draw: it is "
    )


def test_the_cap_is_fatigue_max_less_the_units_fatigue() -> None:
    """Phillips' Legion at 890 of 900 takes 10 of the volley's 24, not 24 (nor 0)."""
    loaded = api.load_replay(STONE_WALL)
    volley, sc = loaded.event(VOLLEY), loaded.scenario
    assert isinstance(volley, Fired)
    state = loaded.after(VOLLEY - 1)
    state.units["phil"].fatigue = 890

    def added(n: int) -> Fired:
        return volley.model_copy(
            update={"result": volley.result.model_copy(update={"fatigue_added": n})}
        )

    assert audit(sc, state, added(10)) is None
    for wrong in (24, 0):
        assert audit(sc, state, added(wrong)) == (
            f"result.fatigue_added {wrong} is not fatigue_value {volley.result.fatigue_value} "
            "rounded by its draw (24) and capped at fatigue_max 900 less phil's fatigue 890: "
            "it is 10"
        )
