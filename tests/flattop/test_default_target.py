"""``default_target`` [ours]: the ship an attack that declares none goes for.

``first_carrier`` (the default, every rules version's): the target task force's first
carrier, else its first ship; ``largest_carrier``: the carrier with the largest damage
factor, else the ship with the largest, the first listed of equals.  Sunk or not, as a
declared target.  Left out of a replay's header at its default, so no replay changes.
Damage factors (rules version 3's defaults): carrier 6, light carrier 4, battleship 8,
heavy cruiser 6, destroyer 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from sim import api
from sim.rulesets.flattop.model.events import Attacked
from sim.rulesets.flattop.model.options import FlattopOptions
from sim.rulesets.flattop.reading.audit import audit
from sim.rulesets.flattop.rules import combat
from tests.flattop.builders import battle, scenario_data
from tests.flattop.scripted import Scripted
from tests.forge import invoke

DAY2 = Path(__file__).resolve().parents[2] / "scenarios" / "carrier_duel_day2.yaml"
"""Its afternoon strikes declare no target, at task forces of two fleet carriers each; at
seed 12 Enterprise's makes its attack (Shokaku listed before Zuikaku), at the scenario's
own seed neither strike flies."""
SEED = 12


def test_the_default_is_first_carrier_and_left_out_of_the_header() -> None:
    assert FlattopOptions().default_target == "first_carrier"
    assert "default_target" not in FlattopOptions().model_dump()
    dump = FlattopOptions(default_target="largest_carrier").model_dump()
    assert dump["default_target"] == "largest_carrier"
    with pytest.raises(ValueError, match="default_target"):
        FlattopOptions(default_target="largest_ship")  # type: ignore[arg-type]


def _red(*ships: dict[str, Any], reading: str | None = None) -> dict[str, Any]:
    """:data:`BASE` with Red's task force made of ``ships`` and strike s1's attacks
    declaring no target; ``reading`` set as the option when given."""
    data = scenario_data(options={"default_target": reading} if reading else {})
    data["sides"][1]["task_forces"][0]["ships"] = list(ships)
    for attack in data["sides"][0]["strikes"][0]["attacks"]:
        del attack["target"]
    return data


CVL = {"id": "cvl", "name": "CVL", "kind": "light_carrier"}
CV = {"id": "cv", "name": "CV", "kind": "carrier"}
BB = {"id": "bb", "name": "BB", "kind": "battleship"}
DD = {"id": "dd", "name": "DD", "kind": "destroyer"}
CA = {"id": "ca", "name": "CA", "kind": "heavy_cruiser"}
BB2 = {"id": "bb2", "name": "BB 2", "kind": "battleship"}


@pytest.mark.parametrize(
    ("ships", "first", "largest"),
    [
        ((CVL, CV, BB), "cvl", "cv"),  # carriers only: 4 < 6; the battleship's 8 is not one
        (({**CVL, "damage": 7}, CV, BB), "cvl", "cvl"),  # her own 7 > 6
        ((CV, {**CV, "id": "cvb"}), "cv", "cv"),  # 6 = 6: the first listed
        ((DD, CA, BB, BB2), "dd", "bb"),  # no carrier: 2, 6, 8, 8
    ],
)
def test_each_reading_picks_its_ship_and_the_attack_goes_for_it(
    ships: tuple[dict[str, Any], ...], first: str, largest: str
) -> None:
    """The ship chosen, and strike s1's first attack (declaring none) made on it: its event
    names it declared and attacked, and the audit passes it."""
    for reading, want in (("first_carrier", first), ("largest_carrier", largest)):
        b = battle(_red(*ships, reading=reading))
        assert combat.default_target(b.ships_of("tf2"), reading).id == want
        s = b.state.strikes["s1"]
        s.status, s.escort, s.attacks = "airborne", 0, [8, 6]

        def stream(*key: Any) -> Scripted:
            return Scripted(9, 9)

        b.stream = stream  # type: ignore[method-assign,assignment]
        event = combat.decide_attack(b, "s1", 0, cause=1)
        assert isinstance(event, Attacked) and (event.declared, event.ship) == (want, want)
        assert audit(b.scenario, b.state, event) is None


def _day2(folder: Path, zuikaku: int | None = None, **options: Any) -> Path:
    """carrier_duel_day2 with ``options``, and Zuikaku's own damage factor when given."""
    data = yaml.safe_load(DAY2.read_text(encoding="utf-8"))
    if zuikaku is not None:
        [kido] = [tf for side in data["sides"] for tf in side["task_forces"] if tf["id"] == "kido"]
        [ship] = [s for s in kido["ships"] if s["id"] == "zuikaku"]
        ship["damage"] = zuikaku
    data["options"] = {**(data.get("options") or {}), **options}
    folder.mkdir()
    path = folder / DAY2.name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_written_at_its_default_the_battle_is_byte_for_byte_the_same(tmp_path: Path) -> None:
    """carrier_duel_day2 (two attacks that declare no target) with the option written at
    first_carrier: the same bytes as without it, and its name nowhere in them."""
    api.run(_day2(tmp_path / "plain"), seed=SEED, out=tmp_path / "a.jsonl")
    written = _day2(tmp_path / "set", default_target="first_carrier")
    api.run(written, seed=SEED, out=tmp_path / "b.jsonl")
    replay = (tmp_path / "a.jsonl").read_bytes()
    assert replay == (tmp_path / "b.jsonl").read_bytes()
    assert b"default_target" not in replay


def test_between_equal_carriers_largest_is_the_first_and_only_the_header_differs(
    tmp_path: Path,
) -> None:
    """Enterprise's afternoon strike (seed 12) meets two fleet carriers of damage 6: the
    largest is the first listed, Shokaku, so under largest_carrier every event is the
    default's (the lines' hash chain, which starts at the header, aside); the header names
    the option, and verify fights it again byte for byte."""
    api.run(_day2(tmp_path / "plain"), seed=SEED, out=tmp_path / "a.jsonl")
    big = _day2(tmp_path / "big", default_target="largest_carrier")
    api.run(big, seed=SEED, out=tmp_path / "b.jsonl")
    assert b'"default_target":"largest_carrier"' in (tmp_path / "b.jsonl").read_bytes()
    assert b'"default_target"' not in (tmp_path / "a.jsonl").read_bytes()
    plain, big = (
        [e.model_dump() for e in api.load_replay(tmp_path / p).events]
        for p in ("a.jsonl", "b.jsonl")
    )
    undeclared = [e for e in plain if e["type"] == "flattop.attacked" and e["strike"] in
                  ("ent_d2_pm", "zui_d2_pm")]  # fmt: skip
    assert plain == big and [e["declared"] for e in undeclared] == ["shokaku"]


def _declared(path: Path) -> list[str]:
    return [
        e.declared
        for e in api.load_replay(path).events
        if isinstance(e, Attacked) and e.strike == "ent_d2_pm"
    ]


def test_a_larger_second_carrier_draws_the_attack_under_largest_carrier(tmp_path: Path) -> None:
    """Zuikaku given damage 7 (Shokaku's is the class's 6): Enterprise's afternoon attack
    goes for Shokaku, listed first, at the default, and for Zuikaku under largest_carrier."""
    api.run(_day2(tmp_path / "plain", zuikaku=7), seed=SEED, out=tmp_path / "a.jsonl")
    big = _day2(tmp_path / "big", zuikaku=7, default_target="largest_carrier")
    api.run(big, seed=SEED, out=tmp_path / "b.jsonl")
    assert _declared(tmp_path / "a.jsonl") == ["shokaku"]
    assert _declared(tmp_path / "b.jsonl") == ["zuikaku"]
    assert invoke("verify", str(tmp_path / "b.jsonl")).exit_code == 0
    assert invoke("verify", str(tmp_path / "b.jsonl")).exit_code == 0
