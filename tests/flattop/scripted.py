"""A stream that gives prescribed d10 rolls, for driving the live resolution path exactly."""

from __future__ import annotations

from typing import Any

from engine.rng import Stream
from sim.rulesets.flattop.model.events import AntiAircraft
from sim.rulesets.flattop.reading.audit import audit
from sim.rulesets.flattop.rules import combat


class Scripted(Stream):
    """A :class:`Stream` whose uniforms are chosen so ``roll(10) - 1`` gives ``rolls`` in order."""

    def __init__(self, *rolls: int) -> None:
        super().__init__(0, "scripted")
        self.uniforms = [(r + 0.5) / 10 for r in rolls]

    def uniform(self) -> float:
        self.count += 1
        return self.uniforms.pop(0)


def scripted_aa(b: Any, *rolls: int) -> AntiAircraft:
    """The AA fire at strike ``s1`` of battle ``b``, every stream's dice scripted to ``rolls``
    (each stream from the first roll), checked lawful by the audit."""

    def stream(strike: str, purpose: str, *key: str | int) -> Stream:
        return Scripted(*rolls)

    b.stream = stream
    aa = combat.decide_anti_aircraft(b, "s1", cause=3)
    assert aa is not None
    assert audit(b.scenario, b.state, aa) is None
    return aa
