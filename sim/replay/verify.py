"""``verify``: a replay's integrity and its ruleset's invariants, checked as it is fought again."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path

from engine.comparison.compare import AuditRaised
from engine.comparison.replay import Mismatch, VerifyResult, verify
from engine.events import Event
from engine.log import Fork, Header
from engine.projection import Projection
from engine.replayfile.reader import ReplayError, ReplayStream
from sim.contract import HookError, get_ruleset
from sim.replay.forged import cannot_follow
from sim.replay.header import UNFOLDABLE, header_scenario, registry_for, simulate_into
from sim.replay.lineage import changes_text
from sim.scenario.catalog import SCENARIOS
from sim.scenario.load import ScenarioError, read_yaml

__all__ = ["RulesVersion", "rules_version", "source_mismatch", "verify_replay"]


@dataclass(frozen=True)
class RulesVersion:
    """The rules version a replay was fought under, when it is not this battlesim's."""

    ruleset: str
    fought_under: str
    current: str
    fought_again: bool
    """True when this battlesim still fights that version (``Ruleset.older_versions``)."""

    def line(self, fought: bool = True) -> str:
        """One sentence for ``verify``'s text (``fought``: whether verify got as far as
        fighting the battle again; a damaged or incomplete file stops it before)."""
        old = f"fought under {self.ruleset} rules v{self.fought_under}"
        now = f"this battlesim's are v{self.current}"
        if self.fought_again and not fought:
            return f"{old} ({now})"
        if self.fought_again:
            return f"{old} ({now}); fought again under v{self.fought_under}"
        return (
            f"{old}, which this battlesim cannot fight again ({now}): a difference "
            "comes from the rules, not necessarily from tampering"
        )

    @property
    def newer(self) -> bool:
        """Fought under a later rules version than this battlesim's (both whole numbers): a
        newer battlesim's (or plugin's) replay, which this one cannot judge."""
        old, now = self.fought_under, self.current
        return old.isdigit() and now.isdigit() and int(old) > int(now)

    def as_json(self) -> dict[str, object]:
        """The ``rules`` object of ``verify --json``: the fields above, in their order."""
        return asdict(self)


def rules_version(path: str | Path) -> RulesVersion | None:
    """The replay's rules version when it is not today's; None when it is (or is unreadable)."""
    try:
        header = ReplayStream(path, registry_for).header
        ruleset = get_ruleset(header.ruleset)
    except (ReplayError, LookupError):
        return None
    if header.ruleset_version == ruleset.version:
        return None
    v = header.ruleset_version
    return RulesVersion(ruleset.name, v, ruleset.version, ruleset.fights(v))


class _Auditor:
    """Checks each recorded event against the ruleset's invariants, folding as it goes.

    In a forked battle the changed event is a counterfactual: only the ruleset's
    ``audit_change`` checks it (who may act on whom, not its dice); after a state
    override the rules' bookkeeping (losses that add up) no longer holds, so the full
    ``audit`` stops at the fork, while a changed event after it is still held to
    ``audit_change``, as ``fork`` held it.
    """

    def __init__(self, header: Header, path: str) -> None:
        self.ruleset, self.scenario = header_scenario(header, path)
        forks = header.fork.chain() if header.fork is not None else {}
        self.forks = forks
        self.first_state_fork = min((s for s, f in forks.items() if f.state), default=None)
        changes = (s for s, f in forks.items() if f.event)
        self.last_change = max(changes, default=None) if self.ruleset.audit_change else None
        self.projection = Projection(self.ruleset.initial_state(self.scenario), self.ruleset.apply)
        self.done = self.ruleset.audit is None and self.last_change is None

    def _full(self, seq: int) -> bool:
        """Whether ``audit`` holds at ``seq``: there is one, and no state override before."""
        first = self.first_state_fork
        return self.ruleset.audit is not None and (first is None or seq <= first)

    def __call__(self, event: Event) -> Mismatch | None:
        if self.done:
            return None
        try:
            full = self._full(event.seq)
            if not full and (self.last_change is None or event.seq > self.last_change):
                self.done = True  # nothing after this is checked: no need to fold on
                return None
            fork = self.forks.get(event.seq)
            problem, hook = None, "audit"
            if fork is not None and fork.event:  # a counterfactual: its dice broken on purpose
                check, hook = self.ruleset.audit_change, "audit_change"
            else:
                check = self.ruleset.audit if full else None
            if check is not None:
                try:
                    problem = check(self.scenario, self.projection.state, event)
                except Exception as exc:  # the ruleset's bug, or a forged line's (Recorded.next)
                    where = f"seq {event.seq}"
                    error = HookError.raised(self.ruleset.name, hook, exc, where, check)
                    why = cannot_follow(self.ruleset, self.scenario, event, exc)
                    raise AuditRaised(error, why) from exc
            self.projection.apply(event)
        except UNFOLDABLE as exc:  # only a forged log gets here: the reader checked types
            self.done = True
            why = cannot_follow(self.ruleset, self.scenario, event, exc)
            return Mismatch(event.seq + 2, event.seq, why)
        if problem is not None:
            self.done = True
            return Mismatch(event.seq + 2, event.seq, f"{event.type}: {problem}")
        return None


def verify_replay(path: str | Path) -> VerifyResult:
    """Integrity and the ruleset's invariants, compared line by line while re-simulating.

    The file is streamed: memory holds the recorded fold's state, the
    re-simulation's, and one line of each.  The header's ``source``, the one
    field a re-simulation copies rather than derives, is checked against the
    scenario file it names where that file can be found (:func:`source_mismatch`).
    """
    name = str(path)
    headers: list[Header] = []

    def auditor(header: Header) -> _Auditor:
        headers.append(header)
        return _Auditor(header, name)

    result = verify(
        path, registry_for, lambda header, sink: simulate_into(header, sink, name), auditor
    )
    if result.ok and headers:
        found = source_mismatch(headers[0], Path(path))
        if found is not None:
            return replace(result, mismatch=found)
    if result.mismatch is not None and headers:
        result = replace(result, mismatch=_in_its_words(result.mismatch, headers[0]))
    if headers and headers[0].fork is not None:
        result = _left_out_named(result, headers[0].fork)
    return result


def _left_out_named(result: VerifyResult, fork: Fork) -> VerifyResult:
    """A broken invariant or a mismatch at the seq of a change its lineage leaves out
    (:meth:`~engine.log.Fork.left_out`), saying so: the file applies it there, to an event
    of a battle it was not made on (as battlesim wrote a fork of a fork before it left
    such a change out)."""
    left = fork.left_out()

    def named(m: Mismatch | None) -> Mismatch | None:
        if m is None or m.seq not in left:
            return m
        change, cut = left[m.seq]
        return replace(
            m,
            reason=f"{m.reason}; seq {m.seq} is where the header's earlier fork changed its "
            f"parent's battle ({changes_text(change)}), a change left out since the fork at "
            f"seq {cut} changed the battle before it: this file applies it to another event",
        )

    return replace(result, violation=named(result.violation), mismatch=named(result.mismatch))


def _in_its_words(m: Mismatch, header: Header) -> Mismatch:
    """The mismatch naming the first turn apart as the ruleset calls a turn (becmi: "first
    round whose state differs"), as ``diff`` names it."""
    said = f"; first turn whose state differs: {m.turn_apart}"
    if m.turn_apart is None or not m.reason.endswith(said):
        return m
    word = get_ruleset(header.ruleset).turn_name
    return replace(
        m, reason=f"{m.reason.removesuffix(said)}; first {word} whose state differs: {m.turn_apart}"
    )


def source_mismatch(header: Header, path: Path) -> Mismatch | None:
    """The header's ``source`` names a scenario file of another battle (None: it does not).

    The file is looked for beside the replay, then among the shipped
    scenarios; one found must be a scenario of the same ruleset and name as
    the header's (a study's sweep changes values, never the name).  A name
    found nowhere cannot be checked and is taken as written.
    """
    if header.source is None:
        return None
    for folder in (path.parent, SCENARIOS):
        candidate = folder / header.source
        if candidate.is_file():
            break
    else:
        return None
    try:
        data, _ = read_yaml(candidate)
    except (ScenarioError, OSError):
        return None
    if not isinstance(data, dict):
        return None
    ours = header.scenario
    if (data.get("ruleset"), data.get("name")) == (ours.get("ruleset"), ours.get("name")):
        return None
    shipped = candidate.parent != path.parent
    return Mismatch(
        1,
        None,
        f"header differs from re-simulation in: source ({str(candidate)!r} is the "
        f"scenario {data.get('name')!r}, not this battle's {ours.get('name')!r})"
        + (
            "; if this battle's scenario is a file of your own of that name, keep the "
            "replay beside it and verify it there"
            if shipped
            else ""
        ),
    )
