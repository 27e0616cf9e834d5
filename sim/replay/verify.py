"""``verify``: a replay's integrity and its ruleset's invariants, checked as it is fought again."""

from __future__ import annotations

from pathlib import Path

from engine.events import Event
from engine.log import Header
from engine.projection import Projection
from engine.replay import Mismatch, VerifyResult, verify
from sim.replay.header import UNFOLDABLE, header_scenario, registry_for, simulate_into

__all__ = ["verify_replay"]


class _Auditor:
    """Checks each recorded event against the ruleset's invariants, folding as it goes.

    In a forked battle the changed event is a counterfactual and is not
    checked; after a state override the rules' bookkeeping (losses that add
    up) no longer holds, so checking stops at the fork.
    """

    def __init__(self, header: Header, path: str) -> None:
        self.ruleset, self.scenario = header_scenario(header, path)
        forks = header.fork.chain() if header.fork is not None else {}
        self.forks = forks
        self.first_state_fork = min((s for s, f in forks.items() if f.state), default=None)
        self.projection = Projection(self.ruleset.initial_state(self.scenario), self.ruleset.apply)
        self.done = self.ruleset.audit is None

    def __call__(self, event: Event) -> Mismatch | None:
        if self.done:
            return None
        audit = self.ruleset.audit
        assert audit is not None
        try:
            if self.first_state_fork is not None and event.seq > self.first_state_fork:
                self.done = True
                return None
            fork = self.forks.get(event.seq)
            problem = None
            if fork is None or not fork.event:
                problem = audit(self.scenario, self.projection.state, event)
            self.projection.apply(event)
        except UNFOLDABLE as exc:  # only a forged log gets here: the reader checked types
            self.done = True
            return Mismatch(
                event.seq + 2, event.seq, f"cannot follow from the battle so far: {exc!r}"
            )
        if problem is not None:
            self.done = True
            return Mismatch(event.seq + 2, event.seq, f"{event.type}: {problem}")
        return None


def verify_replay(path: str | Path) -> VerifyResult:
    """Integrity and the ruleset's invariants, compared line by line while re-simulating.

    The file is streamed: memory holds the recorded fold's state, the
    re-simulation's, and one line of each.
    """
    name = str(path)
    return verify(
        path,
        registry_for,
        lambda header, sink: simulate_into(header, sink, name),
        lambda header: _Auditor(header, name),
    )
