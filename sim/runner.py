"""The one battle runner: environment, kernel, recorder, turn end and battle end, wired once.

A ruleset brings its processes and rules only, as a :class:`Plan`; the
runner builds the SimPy environment and the engine's :class:`TurnKernel`,
the :class:`~engine.recorder.Recorder` over the log and the projection, and
closes every turn the same way:

1. the ruleset's end-of-turn rules (side breaks, battle end) decide events,
   which are emitted;
2. ``engine.turn_ended`` (the state digest) is logged and the file flushed
   (with an ``engine.snapshot`` every 10th turn);
3. the turn's random streams (names starting ``"<turn>/"``) are forgotten,
   unless the plan says its names do not start with the turn;
4. the battle stops when the state says it has ended, or at the turn limit.

Then the footer is written with the final state's digest.

A :class:`DrawTally` handed to :func:`fight` counts the random draws each
event records (its :class:`~engine.events.Draw` records, however nested)
by the unit whose process emitted it (its :class:`Actor`): a study's
"draws per side" measure, for every ruleset through its plan alone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import types
import typing
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import simpy
from pydantic import BaseModel

from engine.events import Draw, Event, EventRegistry
from engine.kernel import TurnKernel, frozen_heap
from engine.log import EventLog, Header, Sink
from engine.projection import Projection
from engine.recorder import Recorder, UnlawfulCause, UnregisteredEvent
from engine.replayfile.checks import check_written_header
from engine.replayfile.formats import derivation_of
from engine.rng import Streams

__all__ = [
    "Actor",
    "BattleView",
    "DrawTally",
    "Ending",
    "Plan",
    "Raised",
    "Started",
    "fight",
    "raised_where",
    "recorded_draws",
]


class Ending(Protocol):
    """What the runner reads of a state: whether the battle is over."""

    ended: bool


ScT = TypeVar("ScT")
StT = TypeVar("StT", bound=Ending)
ViewT = TypeVar("ViewT")


@dataclass
class BattleView(Generic[ScT, StT]):
    """The read-only view of a battle that rules decide from (base of each ruleset's).

    Rules read it and return events; only the recorder's apply changes ``state``.
    """

    scenario: ScT
    state: StT
    streams: Streams
    kernel: TurnKernel

    @property
    def turn(self) -> int:
        """The current turn (1-based)."""
        return self.kernel.turn

    @property
    def now(self) -> float:
        """Simulation time (the kernel's unit: minutes, seconds...)."""
        return float(self.kernel.env.now)


@dataclass(frozen=True)
class Actor:
    """A unit's SimPy process: the unit (its :class:`~sim.contract.UnitRow` id) and its life.

    Every unit on the field is one; a process that is no unit's (a referee)
    is given to the runner as a bare generator.
    """

    unit: str
    body: simpy.events.ProcessGenerator


Started = list[tuple[str | None, simpy.Process]]
"""The processes a battle started with: (unit id, or None for no unit's; the process)."""


@dataclass(frozen=True)
class Plan(Generic[ScT, StT, ViewT]):
    """What a ruleset brings to a battle: its clock, its view, its processes and end rules.

    Attributes:
        phases: the phases of a turn, in order.
        turn_length: simulation time of one turn.
        turn_limit: the last turn.
        view: builds the ruleset's read-only battle view.
        processes: the battle's SimPy processes, started in order: an :class:`Actor`
            for each unit, a bare generator for a process that is no unit's.
        turn_end: ``turn_end(view, turn, last)`` — events decided at a turn's end;
            each is emitted before the next is asked for, so a generator sees
            the state after the events it has yielded, and receives each event
            as logged (with its ``seq``) from its ``yield``, so a later event
            can name an earlier one as its ``cause``.
        forget_streams: drop the streams named ``"<turn>/..."`` at each turn's
            end (False when stream names do not start with the turn).
    """

    phases: tuple[str, ...]
    turn_length: float
    turn_limit: int
    view: Callable[[ScT, StT, Streams, TurnKernel], ViewT]
    processes: Callable[[ViewT, Recorder[StT]], Iterable[Actor | simpy.events.ProcessGenerator]]
    turn_end: Callable[[ViewT, int, bool], Iterable[Event]]
    forget_streams: bool = True


def _emit_all(rec: Recorder[StT], events: Iterable[Event]) -> None:
    """Emit each event in turn; a generator gets each logged event back from its ``yield``."""
    if not isinstance(events, Generator):
        for event in events:
            rec.emit(event)
        return
    try:
        event = next(events)
        while True:
            event = events.send(rec.emit(event))
    except StopIteration:
        return


_PLANS: dict[type[Any], tuple[tuple[str, str], ...]] = {}
"""Per event class: the fields that may hold draws, and how to count them."""


def _may_hold_draws(annotation: Any) -> bool:
    if annotation is Draw or annotation is Any or annotation is object:
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_may_hold_draws(arg) for arg in typing.get_args(annotation))


def _how(annotation: Any) -> str | None:
    """``one`` (a Draw or None), ``list`` (a list or tuple of Draws), ``walk`` or None."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is Draw or (
        origin in (typing.Union, types.UnionType) and set(args) == {Draw, type(None)}
    ):
        return "one"
    if origin in (list, tuple) and args and all(a in (Draw, ...) for a in args):
        return "list"
    return "walk" if _may_hold_draws(annotation) else None


def _plan_of(cls: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    found = _PLANS.get(cls)
    if found is None:
        found = tuple(
            (name, how)
            for name, info in cls.model_fields.items()
            if (how := _how(info.annotation)) is not None
        )
        _PLANS[cls] = found
    return found


def _walk(value: Any) -> int:
    if isinstance(value, Draw):
        return 1
    if isinstance(value, BaseModel):
        return recorded_draws(value)
    if isinstance(value, dict):
        return sum(_walk(v) for v in value.values())
    if isinstance(value, list | tuple):
        return sum(_walk(v) for v in value)
    return 0


def recorded_draws(event: BaseModel) -> int:
    """The random draws an event records: its :class:`Draw` records, however nested.

    Which fields can hold one is read once per class from its annotations
    (``Draw``, ``Draw | None``, ``list[Draw]`` are counted at once; a model,
    a mapping or ``Any`` is walked), so counting costs a few attribute reads.
    """
    n = 0
    for name, how in _plan_of(type(event)):
        value = getattr(event, name)
        if how == "one":
            n += value is not None
        elif how == "list":
            n += len(value)
        else:
            n += _walk(value)
    return n


@dataclass
class DrawTally:
    """Random draws recorded in the events each unit's process emitted (unit id → draws).

    Events emitted by no unit's process — the end of a turn, a referee, a
    process a unit's process started — count under None.
    """

    by_unit: dict[str | None, int] = field(default_factory=dict)
    _owner: dict[simpy.Process, str] = field(default_factory=dict)
    _env: simpy.Environment | None = None

    def watch(self, env: simpy.Environment, started: Started) -> None:
        """Know which process is which unit's."""
        self._env = env
        self._owner = {process: unit for unit, process in started if unit is not None}

    def count(self, event: Event) -> None:
        """Add the draws ``event`` records to the unit whose process is running."""
        n = recorded_draws(event)
        if n:
            active = self._env.active_process if self._env is not None else None
            unit = self._owner.get(active) if active is not None else None
            self.by_unit[unit] = self.by_unit.get(unit, 0) + n


def fight(
    plan: Plan[ScT, StT, ViewT],
    scenario: ScT,
    header: Header,
    sink: Sink,
    state: StT,
    apply: Callable[[StT, Event], None],
    snapshot: Callable[[StT], dict[str, Any]],
    watch: Callable[[Started], None] | None = None,
    snapshot_json: Callable[[StT], str] | None = None,
    draws: DrawTally | None = None,
    registry: EventRegistry | None = None,
    turn_name: str = "turn",
) -> StT:
    """Fight a battle to its end, writing its replay to ``sink``; return the final state.

    Args:
        plan: the battle's clock, view, processes and end-of-turn rules.
        state: the initial state (advanced in place).
        apply, snapshot: the ruleset's apply and snapshot.
        snapshot_json: the ruleset's canonical text of a snapshot, if it has one.
        watch: called with the started processes before the clock runs
            (the contract suite counts them against the unit rows).
        draws: counts each applied event's recorded draws by the unit that emitted it.
        registry: the ruleset's events: an event of a class it does not list is
            refused when emitted (:class:`~engine.recorder.UnregisteredEvent`).
        turn_name: the ruleset's word for a turn, for the note on an error a process
            raises (:class:`Raised`).

    Raises:
        UnregisteredEvent: an event the registry does not list (its replay could not be read).
    """
    if getattr(sink, "discards", False) is not True:  # a line will be read: it must read back
        check_written_header(header)
    with frozen_heap():  # the caller's heap (scenario, modules) is not scanned during set-up
        if draws is not None:
            apply = _counting(apply, draws)
        rec = Recorder(
            EventLog(header, sink), Projection(state, apply), snapshot, snapshot_json, registry
        )
        env = simpy.Environment()
        kernel = TurnKernel(env, plan.phases, plan.turn_length)
        streams = Streams(header.seed, derivation_of(header.format_version))  # the header's dice
        at = Raised(header.ruleset, "", 0, turn_name)
        with _noting(at, "the plan's view (Plan.view)"):
            view = plan.view(scenario, state, streams, kernel)

        def end(turn: int) -> bool:
            _emit_all(rec, plan.turn_end(view, turn, turn == plan.turn_limit))
            rec.end_turn(turn, float(env.now))
            if plan.forget_streams:
                streams.forget(f"{turn}/")
            return state.ended

        started: Started = []
        with _noting(at, "the plan's processes (Plan.processes)"):
            for process in plan.processes(view, rec):
                unit, body = (
                    (process.unit, process.body) if isinstance(process, Actor) else (None, process)
                )
                started.append((unit, kernel.process(body)))
        if watch is not None:
            watch(started)
        if draws is not None:
            draws.watch(env, started)
        clock = kernel.start(plan.turn_limit, end)
        try:
            kernel.run()
        except Exception as exc:
            line = kernel.failed(exc)
            _note_where(
                exc, started, clock, line, Raised(header.ruleset, "", kernel.turn, turn_name)
            )
            raise
        rec.close(kernel.turn)
        kernel.close()  # the units' processes that still wait: freed now, not at a full GC
        return state


@dataclass(frozen=True)
class Raised:
    """Where in a battle a ruleset's code raised: its process, the turn, the ruleset.

    Added to the exception as a note (PEP 678: a notebook's traceback shows it) by
    :func:`fight`; :func:`raised_where` reads it back for a one-line error.
    """

    ruleset: str
    process: str
    """``the process of unit 'x'``, ``the turn-end rules`` or ``a process of the battle``."""
    turn: int
    turn_name: str = "turn"
    """The ruleset's word for a turn (:attr:`sim.contract.Ruleset.turn_name`)."""

    def __str__(self) -> str:
        when = f"{self.turn_name} {self.turn}" if self.turn else f"before {self.turn_name} 1"
        return f"ruleset {self.ruleset!r}, {self.process}, {when}"


def _note_where(
    exc: Exception, started: Started, clock: simpy.Process, line: list[simpy.Process], at: Raised
) -> None:
    """Note on ``exc`` which of the battle's processes raised it — ``line``, the failed process
    and those that started it (:meth:`engine.kernel.TurnKernel.failed`) — and in which turn
    (``at``, its process still to be said); not on a failure of the machine's (a full disk,
    memory), which is no rule's, nor on the recorder's refusals (an event the registry does
    not list, a cause that is no earlier seq), whose messages name the ruleset and event."""
    if not line or isinstance(exc, OSError | MemoryError | UnregisteredEvent | UnlawfulCause):
        return
    units = {process: unit for unit, process in started}
    named = next((p for p in line if p is clock or units.get(p) is not None), None)
    if named is clock:
        what = "the turn-end rules (the plan's turn_end)"
    elif named is not None:
        what = f"the process of unit {units[named]!r}"
    else:
        what = "a process of the battle (not a unit's)"
    if named is not None and named is not line[0]:
        what = f"a process started by {what}"
    _note(exc, dataclasses.replace(at, process=what))


@contextlib.contextmanager
def _noting(at: Raised, what: str) -> typing.Iterator[None]:
    """Note on an error the plan's set-up raises (its view, its processes hook called with the
    wrong parameters) that ``what`` of ruleset ``at`` raised it, as :func:`_note_where` notes a
    process's error: it reached the user as a bare ``TypeError`` naming neither."""
    try:
        yield
    except Exception as exc:
        if not isinstance(exc, OSError | MemoryError | UnregisteredEvent | UnlawfulCause):
            _note(exc, dataclasses.replace(at, process=what))
        raise


def _note(exc: Exception, where: Raised) -> None:
    """Keep ``where`` on ``exc`` for :func:`raised_where`, and say it in a note (PEP 678)."""
    with contextlib.suppress(AttributeError):  # a class with slots: its note says it
        exc._battlesim_raised = where  # type: ignore[attr-defined]
    exc.add_note(str(where))


def raised_where(exc: BaseException) -> Raised | None:
    """Where in a battle ``exc`` was raised, as :func:`fight` noted it; None when it was not
    raised by one of a battle's processes."""
    where = getattr(exc, "_battlesim_raised", None)
    return where if isinstance(where, Raised) else None


def _counting(
    apply: Callable[[StT, Event], None], tally: DrawTally
) -> Callable[[StT, Event], None]:
    """``apply``, counting each event's draws first (the ruleset's events only)."""

    def counted(state: StT, event: Event) -> None:
        tally.count(event)
        apply(state, event)

    return counted
