"""Field paths: by key, by list index and by item id; values parsed as YAML."""

from __future__ import annotations

import pytest

from sim.batch.inputs.fieldpath import PathError, get_path, parse_values, set_paths

DATA = {
    "options": {"fire_hcv": 25},
    "map": {"terrain": [{"terrain": "stone_wall", "hexes": [[3, 3]]}]},
    "sides": [
        {"id": "usa", "units": [{"id": "69ny", "strength": 450}]},
        {"id": "csa", "units": [{"id": "cobb", "strength": 420}, {"id": "24ga", "strength": 500}]},
    ],
}


def test_paths_reach_keys_indices_and_ids() -> None:
    """A segment is a key, an index into a list, or the id of a list item."""
    assert get_path(DATA, "options.fire_hcv") == 25
    assert get_path(DATA, "map.terrain.0.terrain") == "stone_wall"
    assert get_path(DATA, "sides.csa.units.cobb.strength") == 420
    assert get_path(DATA, "sides.1.units.1.strength") == 500


def test_set_paths_copies_and_sets_each_value() -> None:
    """Setting values returns a changed deep copy; the original is untouched."""
    out = set_paths(DATA, {"sides.csa.units.24ga.strength": 300, "map.terrain.0.terrain": "clear"})
    assert out["sides"][1]["units"][1]["strength"] == 300
    assert out["map"]["terrain"][0]["terrain"] == "clear"
    assert DATA["sides"][1]["units"][1]["strength"] == 500  # type: ignore[index]
    assert DATA["map"]["terrain"][0]["terrain"] == "stone_wall"  # type: ignore[index]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("options.fire_hvc", "no field 'fire_hvc' in options; did you mean 'options.fire_hcv'?"),
        ("options.range", "no field 'range' in options (fields: fire_hcv)"),
        (
            "sides.csa.units.nope.strength",
            "no item with id 'nope' in sides.csa.units (ids: cobb, 24ga)",
        ),
        ("map.terrain.3", "map.terrain has 1 item; no index 3"),
        ("sides.csa.units.2", "sides.csa.units has 2 items; no index 2"),
        (
            "sides.csa.units.-1.strength",
            "no index -1 in sides.csa.units: an index counts from 0, not back from the end "
            "(2 items: 0 to 1)",
        ),
        (
            "map.terrain.-1",
            "no index -1 in map.terrain: an index counts from 0, not back from the end "
            "(1 item: only 0)",
        ),
        ("options.fire_hcv.x", "options.fire_hcv is a single value; it has no field 'x'"),
        ("options..x", "'options..x' is not a dotted field path (e.g. options.fire_hcv)"),
    ],
)
def test_bad_paths_say_what_is_there(path: str, message: str) -> None:
    """A path that leads nowhere is refused with what the data has at that point."""
    with pytest.raises(PathError) as info:
        set_paths(DATA, {path: 1})
    assert str(info.value) == message


def test_values_are_read_as_yaml_scalars_and_flow_lists() -> None:
    """V1,V2,… are ints, floats, booleans, text or [lists], commas inside brackets kept."""
    assert parse_values("15,25.5,true,B,[3, 4]", "--sweep x") == [15, 25.5, True, "B", [3, 4]]
    with pytest.raises(PathError, match="empty value"):
        parse_values("1,,2", "--sweep x")


def test_a_field_left_out_at_its_default_is_found_in_the_fallback_and_written_in() -> None:
    """An option added after replays were written is left out of the canonical data at its
    default (``later_option``); the fallback (the data with those defaults filled in) finds
    it, and setting it writes it into the copy, sharing nothing the caller can change."""
    data = {"options": {"fire_hcv": 25}, "sides": [{"id": "a", "units": [{"id": "u"}]}]}
    full = {
        "options": {"fire_hcv": 25, "fire_scale": 1.0},
        "sides": [{"id": "a", "units": [{"id": "u", "later_orders": []}]}],
    }
    assert get_path(data, "options.fire_scale", full) == 1.0
    assert get_path(data, "sides.a.units.u.later_orders", full) == []
    out = set_paths(data, {"options.fire_scale": 2.0, "options.fire_hcv": 30}, full)
    assert out["options"] == {"fire_hcv": 30, "fire_scale": 2.0}
    assert data == {"options": {"fire_hcv": 25}, "sides": [{"id": "a", "units": [{"id": "u"}]}]}
    assert full["options"] == {"fire_hcv": 25, "fire_scale": 1.0}
    with pytest.raises(PathError, match="no field 'fire_scale' in options"):
        get_path(data, "options.fire_scale")  # without the fallback, as before
    with pytest.raises(PathError, match=r"did you mean 'options.fire_scale'\?"):
        get_path(data, "options.fire_scal", full)  # suggested among every field


def test_filled_writes_in_every_field_a_dump_leaves_out() -> None:
    from sim.batch.inputs.fieldpath import filled
    from sim.scenario.load import validate_data

    _, sc = validate_data(
        {
            "ruleset": "musket",
            "name": "t",
            "map": {"width": 4, "height": 4},
            "turns": {"limit": 2},
            "sides": [
                {"id": "a", "name": "A", "retreat": "south", "units": [_unit("x", [0, 3])]},
                {"id": "b", "name": "B", "retreat": "north", "units": [_unit("y", [0, 0])]},
            ],
        },
        {},
        "t.yaml",
    )
    dumped = sc.model_dump(mode="json")
    full = filled(sc)
    assert "fire_scale" not in dumped["options"] and full["options"]["fire_scale"] == 1.0
    assert full["options"]["charging_fire"] is False and full["options"]["counter_charge"] is None
    assert full["sides"][0]["units"][0]["later_orders"] == []
    assert {k: v for k, v in full["options"].items() if k in dumped["options"]} == dumped["options"]


def _unit(uid: str, at: list[int]) -> dict[str, object]:
    return {"id": uid, "name": uid, "kind": "infantry", "strength": 100, "quality": "C",
            "weapon": "rifle_musket", "at": at}  # fmt: skip
