"""``aboard_loss_order`` [ours]: the order a hit carrier's air factors are lost in each box.

``bombers_first`` (the default, ``data.LOSS_ORDER``, every rules version's): dive, torpedo
and level bombers, then fighters; ``fighters_first``: fighters, then dive, torpedo and level
bombers.  Left out of a replay's header at its default, so no replay changes.  The Coral Sea
sketch (tests/data/scenarios/coral_sea_sketch.yaml) at seed 2 hits Shoho twice while her
strike (2 AF of fighters, 3 of torpedo bombers) sits in her Ready box: she loses 4 AF aboard,
then 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sim import api
from sim.rulesets.flattop.model.data import ABOARD_LOSS_ORDERS, AIRCRAFT, LOSS_ORDER
from sim.rulesets.flattop.model.events import Attacked
from sim.rulesets.flattop.model.options import FlattopOptions
from sim.rulesets.flattop.rules import combat
from tests.flattop.builders import battle, with_options
from tests.forge import invoke

SKETCH = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "coral_sea_sketch.yaml"


def test_the_default_is_bombers_first_and_left_out_of_the_header() -> None:
    assert FlattopOptions().aboard_loss_order == "bombers_first"
    assert ABOARD_LOSS_ORDERS == {"bombers_first": LOSS_ORDER, "fighters_first": AIRCRAFT}
    assert LOSS_ORDER == ("dive_bomber", "torpedo_bomber", "level_bomber", "fighter")
    assert AIRCRAFT == ("fighter", "dive_bomber", "torpedo_bomber", "level_bomber")
    assert "aboard_loss_order" not in FlattopOptions().model_dump()
    dump = FlattopOptions(aboard_loss_order="fighters_first").model_dump()
    assert dump["aboard_loss_order"] == "fighters_first"
    with pytest.raises(ValueError, match="aboard_loss_order"):
        FlattopOptions(aboard_loss_order="largest_first")  # type: ignore[arg-type]


def test_one_af_lost_from_a_mixed_ready_box_is_a_bomber_or_a_fighter() -> None:
    """Ready box of strike a: 1 AF of fighters, 1 of dive bombers; 1 AF lost."""
    b = battle()
    deck = b.state.decks["cv1"]
    deck.ready = {"a": {"fighter": 1, "dive_bomber": 1}}
    o = FlattopOptions()
    assert combat.lost_aboard(o, deck, 1, 1, sunk=False) == ({"a": {"dive_bomber": 1}}, {}, {})
    o = FlattopOptions(aboard_loss_order="fighters_first")
    assert combat.lost_aboard(o, deck, 1, 1, sunk=False) == ({"a": {"fighter": 1}}, {}, {})


def _sketch(folder: Path, **options: Any) -> Path:
    return with_options(SKETCH, folder, **options)


def _losses(path: Path) -> list[dict[str, dict[str, int]]]:
    events = api.load_replay(path).events
    return [e.lost_ready for e in events if isinstance(e, Attacked) and e.lost_ready]


def test_written_at_its_default_the_battle_is_byte_for_byte_the_same(tmp_path: Path) -> None:
    api.run(_sketch(tmp_path / "plain"), seed=2, out=tmp_path / "a.jsonl")
    api.run(_sketch(tmp_path / "set", aboard_loss_order="bombers_first"), seed=2,
            out=tmp_path / "b.jsonl")  # fmt: skip
    replay = (tmp_path / "a.jsonl").read_bytes()
    assert replay == (tmp_path / "b.jsonl").read_bytes()
    assert b"aboard_loss_order" not in replay
    assert _losses(tmp_path / "a.jsonl") == [
        {"shoho_strike": {"torpedo_bomber": 3, "fighter": 1}},
        {"shoho_strike": {"fighter": 1}},
    ]


def test_fighters_first_loses_the_fighters_first_and_the_replay_verifies(
    tmp_path: Path,
) -> None:
    """The same 4 then 1 AF from Shoho's Ready box (F2 TB3): fighters first, 2 of fighters and
    2 of torpedo bombers, then the last torpedo bomber; every other event as at the
    default.  The option is in the header and verify fights the battle again byte for byte."""
    api.run(_sketch(tmp_path / "plain"), seed=2, out=tmp_path / "a.jsonl")
    api.run(_sketch(tmp_path / "ff", aboard_loss_order="fighters_first"), seed=2,
            out=tmp_path / "b.jsonl")  # fmt: skip
    assert b'"aboard_loss_order":"fighters_first"' in (tmp_path / "b.jsonl").read_bytes()
    assert invoke("verify", str(tmp_path / "b.jsonl")).exit_code == 0
    assert _losses(tmp_path / "b.jsonl") == [
        {"shoho_strike": {"fighter": 2, "torpedo_bomber": 2}},
        {"shoho_strike": {"torpedo_bomber": 1}},
    ]
    plain, ff = (list(api.load_replay(tmp_path / p).events) for p in ("a.jsonl", "b.jsonl"))
    assert len(plain) == len(ff)
    for a, b in zip(plain, ff, strict=True):
        skip = {"lost_ready", "state_digest"}
        assert a.model_dump(exclude=skip) == b.model_dump(exclude=skip)
