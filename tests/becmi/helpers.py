"""Building a becmi Battle in a test, with scripted dice."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import simpy

from engine.events import Draw
from engine.kernel import TurnKernel
from engine.rng import Stream, Streams
from sim.rulesets.becmi.model.data import PHASES
from sim.rulesets.becmi.model.scenario import BecmiScenario
from sim.rulesets.becmi.model.state import initial_state
from sim.rulesets.becmi.rules.context import Battle

FIGHTER: dict[str, Any] = {
    "id": "thorgrim",
    "name": "Thorgrim",
    "kind": "character",
    "class": "fighter",
    "level": 4,
    "abilities": {"strength": 16, "dexterity": 13, "constitution": 14},
    "hp": 24,
    "at": [0, 0],
    "attack": "strike",
}
ORC: dict[str, Any] = {
    "id": "grub",
    "name": "Grub",
    "kind": "monster",
    "hd": "1",
    "ac": 6,
    "hp": 6,
    "morale": 8,
    "save_as": "F1",
    "at": [5, 0],
    "attack": "strike",
}


def scenario(
    party: Iterable[dict[str, Any]], foes: Iterable[dict[str, Any]], **extra: Any
) -> BecmiScenario:
    """A two-sided becmi scenario from combatant dicts (their ``kind`` picks the list)."""

    def side(sid: str, members: Iterable[dict[str, Any]]) -> dict[str, Any]:
        lists: dict[str, list[dict[str, Any]]] = {"characters": [], "monsters": []}
        for m in members:
            lists[f"{m['kind']}s"].append({k: v for k, v in m.items() if k != "kind"})
        return {"id": sid, "name": sid.upper(), **lists}

    return BecmiScenario.model_validate(
        {"ruleset": "becmi", "name": "test", "sides": [side("a", party), side("b", foes)], **extra}
    )


class ScriptedStream(Stream):
    """A stream whose rolls are given in advance (each Draw's u maps back to the roll)."""

    def __init__(self, name: str, rolls: list[int]) -> None:
        super().__init__(0, name)
        self.rolls = list(rolls)

    def roll(self, sides: int) -> tuple[int, Draw]:
        value = self.rolls.pop(0)
        assert 1 <= value <= sides
        self.count += 1
        return value, Draw(stream=self.name, i=self.count - 1, u=(value - 0.5) / sides)


class ScriptedStreams(Streams):
    """Streams that serve scripted rolls by stream name."""

    def __init__(self, script: dict[str, list[int]]) -> None:
        super().__init__(0)
        self.script = script

    def stream(self, *key: str | int) -> Stream:
        name = "/".join(str(k) for k in key)
        if name not in self._streams:
            self._streams[name] = ScriptedStream(name, self.script[name])
        return self._streams[name]


def battle(sc: BecmiScenario, script: dict[str, list[int]], round_: int = 1) -> Battle:
    """A Battle at ``round_`` whose dice follow ``script``."""
    kernel = TurnKernel(simpy.Environment(), PHASES, 10)
    kernel.turn = round_
    return Battle(sc, initial_state(sc), ScriptedStreams(script), kernel)


def apply(b: Battle, *events: Any) -> None:
    """Apply events to the battle's state (as the recorder would)."""
    for e in events:
        b.state.apply(e)
