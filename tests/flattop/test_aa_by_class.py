"""``aa_<class>`` [ours]: the AA factor of a ship that does not set its own, by class.

The defaults are ``data.SHIP_CLASSES``' AA column (carrier 3, light carrier 2, battleship 4,
heavy cruiser 2, light cruiser 2, destroyer 1, auxiliary 0), which every rules version used;
each is left out of a replay's header at its default, so no replay changes.  Red's task
force of :data:`tests.flattop.builders.BASE` answers with 3 + 2 + 1 = 6 (carrier, heavy
cruiser, destroyer): table 4, column 5-6.  With ``aa_heavy_cruiser: 5`` it is 3 + 5 + 1 = 9,
column 9-10.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sim import api
from sim.rulesets.flattop.model.data import SHIP_CLASSES
from sim.rulesets.flattop.model.events import AntiAircraft
from sim.rulesets.flattop.model.options import AA_OPTIONS, FlattopOptions
from sim.rulesets.flattop.model.tables import MATRIX, column_index
from tests.flattop.builders import battle, scenario_data, with_options
from tests.flattop.scripted import scripted_aa
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
CORAL_SEA = ROOT / "scenarios" / "coral_sea.yaml"
DEFAULTS = {"aa_" + kind: int(c["aa"]) for kind, c in SHIP_CLASSES.items()}


def test_the_defaults_are_the_class_tables_and_left_out_of_the_header() -> None:
    """One option a class, each at the table's AA; none in the options' dump until set."""
    o = FlattopOptions()
    assert {kind: f"aa_{kind}" for kind in SHIP_CLASSES} == AA_OPTIONS
    assert DEFAULTS == {
        "aa_carrier": 3, "aa_light_carrier": 2, "aa_battleship": 4, "aa_heavy_cruiser": 2,
        "aa_light_cruiser": 2, "aa_destroyer": 1, "aa_auxiliary": 0,
    }  # fmt: skip
    assert {name: getattr(o, name) for name in DEFAULTS} == DEFAULTS
    assert [o.aa(kind) for kind in SHIP_CLASSES] == list(DEFAULTS.values())
    assert not set(DEFAULTS) & set(o.model_dump())
    assert FlattopOptions(aa_battleship=7).model_dump()["aa_battleship"] == 7


@pytest.mark.parametrize(("name", "bad"), [("aa_auxiliary", -1), ("aa_battleship", 51)])
def test_an_aa_factor_is_from_0_to_50_as_a_ships_own(name: str, bad: int) -> None:
    with pytest.raises(ValueError, match=name):
        FlattopOptions(**{name: bad})


def _coral_sea(folder: Path, **options: Any) -> Path:
    """scenarios/coral_sea.yaml with ``options`` added to its own, under its own name."""
    return with_options(CORAL_SEA, folder, **options)


def test_written_at_their_defaults_the_golden_battle_is_byte_for_byte_the_same(
    tmp_path: Path,
) -> None:
    """The Coral Sea with every ``aa_<class>`` written at its default: the replay's bytes are
    those of the scenario without them (header included), which names none of them."""
    api.run(_coral_sea(tmp_path / "plain"), out=tmp_path / "a.jsonl")
    api.run(_coral_sea(tmp_path / "set", **DEFAULTS), out=tmp_path / "b.jsonl")
    replay = (tmp_path / "a.jsonl").read_bytes()
    assert replay == (tmp_path / "b.jsonl").read_bytes()
    assert not [name for name in DEFAULTS if f'"{name}"'.encode() in replay]


def test_a_class_set_higher_answers_with_it_and_the_replay_verifies(tmp_path: Path) -> None:
    """``aa_light_carrier: 4``: Shoho (a light carrier, no ``aa`` of her own) fires 4, not 2,
    so her task force's AA is 2 more than at the default; every other ship's is unchanged.
    The option is in the header, and verify fights the battle again byte for byte."""
    api.run(_coral_sea(tmp_path / "plain"), out=tmp_path / "a.jsonl")
    api.run(_coral_sea(tmp_path / "four", aa_light_carrier=4), out=tmp_path / "b.jsonl")
    assert b'"aa_light_carrier":4' in (tmp_path / "b.jsonl").read_bytes()
    assert invoke("verify", str(tmp_path / "b.jsonl")).exit_code == 0
    plain, four = (
        [e for e in api.load_replay(tmp_path / p).events if isinstance(e, AntiAircraft)]
        for p in ("a.jsonl", "b.jsonl")
    )
    at_shoho = [(a, b) for a, b in zip(plain, four, strict=False) if "shoho" in a.aa]
    assert at_shoho, "no AA fire over Shoho's task force"
    first_plain, first_four = at_shoho[0]
    assert (first_plain.aa["shoho"], first_four.aa["shoho"]) == (2, 4)
    assert {k: v for k, v in first_four.aa.items() if k != "shoho"} == {
        k: v for k, v in first_plain.aa.items() if k != "shoho"
    }
    assert first_four.result.factors == first_plain.result.factors + 2


def test_each_class_takes_its_option_and_a_ships_own_aa_overrides_it() -> None:
    """Red's ships made a light carrier, battleship, light cruiser and auxiliary (one with
    ``aa`` 9 of its own) under options 6, 7, 5, 2: they start with 6, 7, 9 and 2."""
    data = scenario_data(
        options={"aa_light_carrier": 6, "aa_battleship": 7, "aa_light_cruiser": 5,
                 "aa_auxiliary": 2},
    )  # fmt: skip
    data["sides"][1]["task_forces"][0]["ships"] = [
        {"id": "cv3", "name": "CVL", "kind": "light_carrier", "aircraft": {"fighter": 3}},
        {"id": "bb1", "name": "BB", "kind": "battleship"},
        {"id": "cl1", "name": "CL", "kind": "light_cruiser", "aa": 9},
        {"id": "ao1", "name": "AO", "kind": "auxiliary"},
    ]
    ships = battle(data).state.ships
    assert {s: ships[s].aa for s in ("cv3", "bb1", "cl1", "ao1")} == {
        "cv3": 6, "bb1": 7, "cl1": 9, "ao1": 2,
    }  # fmt: skip


def _fire(options: dict[str, int], *rolls: int, crippled: str | None = None) -> AntiAircraft:
    """Red's AA at strike s1 (8 + 6 AF of bombers, 4 of escort) under ``options``, every die
    scripted to ``rolls``; ``crippled`` names a ship crippled first."""
    b = battle(scenario_data(options=options))
    s = b.state.strikes["s1"]
    s.status, s.escort, s.attacks = "airborne", 4, [8, 6]
    if crippled:
        b.state.ships[crippled].status = "crippled"

    return scripted_aa(b, *rolls)


def test_the_heavy_cruisers_option_moves_the_task_forces_column() -> None:
    """Default: 3 + 2 + 1 = 6, column 5-6 of table 4; ``aa_heavy_cruiser: 5``: 3 + 5 + 1 = 9,
    column 9-10, the seed's cell there; crippled she fires half, 5 // 2 = 2 (total 6)."""
    default = _fire({}, 9, 9)
    assert (default.aa, default.result.factors) == ({"cv3": 3, "ca1": 2, "dd2": 1}, 6)
    assert default.result.cell == MATRIX[4][column_index(6)] / 10 == 0.7
    five = _fire({"aa_heavy_cruiser": 5}, 9, 9)
    assert (five.aa, five.result.factors) == ({"cv3": 3, "ca1": 5, "dd2": 1}, 9)
    assert (five.result.column, five.result.cell) == ("9-10", MATRIX[4][column_index(9)] / 10)
    assert five.result.cell == 1.3
    crippled = _fire({"aa_heavy_cruiser": 5}, 9, 9, crippled="ca1")
    assert (crippled.aa["ca1"], crippled.result.factors) == (2, 6)
