"""A stream that gives prescribed d10 rolls, for driving the live resolution path exactly."""

from __future__ import annotations

from engine.rng import Stream


class Scripted(Stream):
    """A :class:`Stream` whose uniforms are chosen so ``roll(10) - 1`` gives ``rolls`` in order."""

    def __init__(self, *rolls: int) -> None:
        super().__init__(0, "scripted")
        self.uniforms = [(r + 0.5) / 10 for r in rolls]

    def uniform(self) -> float:
        self.count += 1
        return self.uniforms.pop(0)
