"""A strike in flight is drawn along its route: from its carrier's task force to its target."""

from __future__ import annotations

from pathlib import Path

from sim import api

ROOT = Path(__file__).resolve().parents[2]


def test_an_airborne_strike_has_a_route_from_its_deck_to_its_target_and_no_hex() -> None:
    """lex_strike: no route before launch or after recovery; in the air, tf17's hex → target's."""
    loaded = api.load_replay(ROOT / "replays" / "coral_sea-s1942.jsonl")
    sc, rs = loaded.scenario, loaded.ruleset
    spec = next(st for side in sc.sides for st in side.strikes if st.id == "lex_strike")
    home = next(
        tf.at for s in sc.sides for tf in s.task_forces if spec.origin in {x.id for x in tf.ships}
    )
    target = next(tf.at for s in sc.sides for tf in s.task_forces if tf.id == spec.target)
    routes = []
    for _event, state in loaded.fold():
        row = next(r for r in rs.units(sc, state) if r.id == "lex_strike")
        assert row.position is None
        routes.append((row.status, row.route))
    assert (["airborne"], [home, target]) in routes
    assert all(route is None for status, route in routes if status != ["airborne"])
    assert routes[0] == (["planned"], None)
    last = next(r for r in rs.units(sc, loaded.state_at()) if r.id == "lex_strike")
    assert last.route is None and last.status == ["recovered"]
