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
        ("map.terrain.3", "map.terrain has 1 items; no index 3"),
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
