"""Options whose defaults changed more than once read and write as each version had them.

A toy options model: ``spare`` added by version 3 (before it, in effect False; from it,
True) and changed back to False by version 6; ``rate`` a plain option, 1 before version
2, 2 before version 4, 3 today. A replay's header holds its scenario as its own version
dumped it, and must be written back byte for byte when the battle is fought again.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from sim.contract.options import VERSION_KEY, ChangedDefaults, later_option


class Toy(ChangedDefaults):
    CHANGED: ClassVar[dict[str, dict[str, Any]]] = {
        "2": {"rate": 1},
        "3": {"spare": False},
        "4": {"rate": 2},
        "6": {"spare": True},
    }
    rate: int = 3
    spare: bool = later_option(False, "added by version 3, default changed by version 6")


def _read(data: dict[str, Any], version: str) -> Toy:
    return Toy.model_validate(data, context={VERSION_KEY: version})


def _dump(toy: Toy, version: str) -> dict[str, Any]:
    return toy.model_dump(mode="json", context={VERSION_KEY: version})


# version -> (rate, spare) in effect when the scenario sets neither
IN_EFFECT = {
    "1": (1, False),
    "2": (2, False),
    "3": (2, True),
    "4": (3, True),
    "5": (3, True),
    "6": (3, False),
}


@pytest.mark.parametrize("version", sorted(IN_EFFECT))
def test_each_version_reads_its_own_defaults(version: str) -> None:
    toy = _read({}, version)
    assert (toy.rate, toy.spare) == IN_EFFECT[version]


@pytest.mark.parametrize("version", sorted(IN_EFFECT))
def test_each_version_writes_back_what_it_wrote(version: str) -> None:
    """A header's options as that version wrote them (``rate`` always, ``spare`` only away
    from the version's own default; before version 3 there was no ``spare``) read and
    dump back to the same."""
    rate, _ = IN_EFFECT[version]
    written = {"rate": rate}
    assert _dump(_read(written, version), version) == written


def test_a_spare_set_away_from_its_versions_default_is_written() -> None:
    assert _dump(_read({"rate": 2, "spare": True}, "2"), "2") == {"rate": 2, "spare": True}
    assert _dump(_read({"rate": 3, "spare": False}, "5"), "5") == {"rate": 3, "spare": False}
    assert _dump(_read({"rate": 3, "spare": True}, "6"), "6") == {"rate": 3, "spare": True}
