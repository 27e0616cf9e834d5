"""The suite's checks of trusted models check each content once (CheckedOnce), and no less."""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

import pytest

from sim.contract import parts, row, trusted_part
from sim.contract.models import CheckedOnce, Measure, typed
from sim.rulesets import trusted
from sim.rulesets.trusted import trusted_measure, trusted_row


class Word(str):
    """The same text as a ``str``, another type."""


class Items(list[Any]):
    """The same items as a ``list``, another type."""


class Table(dict[Any, Any]):
    """A ``dict`` to :func:`typed`: a key may tell it apart, or not (either is sound)."""


SCALARS: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    0.0,
    -0.0,
    1.0,
    "",
    "a",
    Word("a"),
    b"a",
    Measure(name="men", value=1, unit="men"),
    Measure(name="men", value=1.0, unit="men"),
]


def _values() -> list[Any]:
    """Every scalar, and every list, tuple, Items and Table of up to two of them."""
    out = list(SCALARS)
    for n in (0, 1, 2):
        for items in itertools.product(SCALARS, repeat=n):
            out += [list(items), tuple(items), Items(items)]
    out += [
        Table(),
        Table(a=1),
        Table(a=1.0),
        {"a": 1},
        {"a": True},
        {"a": 1, "b": 2},
        {"b": 2, "a": 1},
    ]
    return out


def test_two_contents_with_one_key_are_the_same_data_of_the_same_types() -> None:
    """Over 700 values (ints, floats and bools that are equal, -0.0, a str subclass, lists,
    tuples and a list subclass of them, models, dicts in two orders), every group of
    values sharing a key has one typed() form: a key never stands for two typed values."""
    checked = CheckedOnce()
    groups: dict[tuple[type, Any, bytes], list[Any]] = defaultdict(list)
    values = _values()
    for value in values:
        key = checked.key(Measure, value)
        assert key is not None
        groups[key].append(value)
    for same in groups.values():
        assert len({repr(typed(v)) for v in same}) == 1, same
    # the cases a key must tell apart, by name
    for a, b in [
        (1, 1.0),
        (1, True),
        (0.0, False),
        ([1], (1,)),
        ([1], Items([1])),
        ("a", Word("a")),
    ]:
        assert checked.key(Measure, a) != checked.key(Measure, b)
    assert len(values) > 700


def test_a_class_reloaded_under_its_name_is_another_class() -> None:
    """A key holds the class object, not its name: a module reloaded in place (the same
    name, other fields) does not find the old class's passed contents."""
    checked = CheckedOnce()
    old = type("Shot", (), {"__module__": __name__})
    new = type("Shot", (), {"__module__": __name__})
    checked.passed(checked.key(old, {"rounds": 3}))
    assert checked.key(old, {"rounds": 3}) in checked
    assert checked.key(new, {"rounds": 3}) not in checked


def test_a_content_that_does_not_pickle_has_no_key_and_is_never_passed() -> None:
    checked = CheckedOnce()
    key = checked.key(Measure, lambda: 1)
    assert key is None
    checked.passed(key)
    assert key not in checked
    assert len(checked) == 0


def test_the_passed_set_is_emptied_when_full() -> None:
    checked = CheckedOnce(limit=2)
    keys = [checked.key(Measure, n) for n in range(3)]
    checked.passed(keys[0])
    checked.passed(keys[1])
    assert keys[0] in checked and keys[1] in checked and len(checked) == 2
    checked.passed(keys[2])
    assert len(checked) == 1
    assert keys[2] in checked and keys[0] not in checked


def _row(strength: Measure) -> Any:
    return trusted_row(
        "u",
        "U",
        "a",
        "A",
        "infantry",
        (1, 2),
        strength,
        Measure(name="men", value=9, unit="men"),
        ["steady"],
        {"order": "hold"},
    )


def test_a_trusted_row_is_validated_once_for_each_content(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same row built again is not validated again; any change of value or of type is."""
    assert trusted.CHECK_TRUSTED is True
    validated: list[str] = []

    class Counted(CheckedOnce):
        def passed(self, key: Any) -> None:  # once for each content validated and found so
            validated.append(key[0].__name__)
            super().passed(key)

    monkeypatch.setattr(trusted, "_CHECKED", Counted())
    men = trusted_measure("men", 5, "men")
    _row(men)
    assert validated == ["Measure", "UnitRow"]
    _row(trusted_measure("men", 5, "men"))
    assert validated == ["Measure", "UnitRow"]  # the same measure and row: checked already
    _row(trusted_measure("men", 6, "men"))
    _row(trusted_measure("men", 5.0, "men"))
    assert validated == ["Measure", "UnitRow"] + ["Measure", "UnitRow"] * 2


def test_a_wrong_type_is_refused_each_time_after_its_equal_passed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """True == 1, but validation makes 1 of it: refused after 1 passed, and again."""
    monkeypatch.setattr(trusted, "_CHECKED", CheckedOnce())
    trusted_measure("men", 1, "men")
    for _ in range(2):
        with pytest.raises(TypeError, match="a trusted Measure is not what validation makes"):
            trusted_measure("men", True, "men")


@row
class Shot:
    id: str
    rounds: int


def test_a_trusted_part_is_validated_once_for_each_content(monkeypatch: pytest.MonkeyPatch) -> None:
    """initial_state's parts, the same values in every run: the first is validated; a
    string where an int belongs is refused every time."""
    monkeypatch.setattr(parts, "_CHECKED", CheckedOnce())
    trusted_part(Shot, id="s", rounds=3)
    assert parts.CHECK_TRUSTED is True  # read as the first part is made
    trusted_part(Shot, id="s", rounds=3)
    assert len(parts._CHECKED) == 1
    trusted_part(Shot, id="s", rounds=4)
    assert len(parts._CHECKED) == 2
    for _ in range(2):
        with pytest.raises(TypeError, match="a trusted Shot is not what validation makes"):
            trusted_part(Shot, id="s", rounds="4")
    assert len(parts._CHECKED) == 2


class Men(Measure):
    """A Measure of another class: what a row's strength must not stand for."""


def test_a_model_inside_a_row_is_keyed_by_its_exact_class_and_typed_values() -> None:
    """A row's models are written as their fields in the row's key (marshal), and the key
    names them: the plain tuple a model is written as, an int for a float inside it, or
    a subclass in its place never shares a key with the row of the model itself."""
    checked = CheckedOnce()
    men = trusted_measure("men", 5, "men")
    row = _row(men).__dict__
    key = checked.key(type(_row(men)), row)
    assert key is not None and key[1] == ("strength", "initial")  # both models written out
    assert key == checked.key(
        type(_row(men)), dict(_row(trusted_measure("men", 5, "men")).__dict__)
    )
    others = [
        {**row, "strength": (tuple(men.__dict__), tuple(men.__dict__.values()))},
        {**row, "strength": trusted_measure("men", 5.0, "men")},
        {**row, "strength": Men(name="men", value=5, unit="men")},
    ]
    keys = [checked.key(type(_row(men)), other) for other in others]
    assert key not in keys and len(set(keys)) == 3
    assert keys[2] is not None and keys[2][1] == "pickle"  # a subclass: pickle spells it out
