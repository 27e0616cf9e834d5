"""The :class:`Ruleset`: everything battlesim needs from one rule system."""

from __future__ import annotations

import inspect
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from engine.events import Event, EventRegistry
from engine.log import Header, Sink
from sim.contract import defaults
from sim.contract.models import Engagement, Outcome, Problem, Reach, Reading, Space, UnitRow
from sim.contract.odds import OddsResolution
from sim.contract.plain import not_plain_json
from sim.runner import DrawTally, Ending, Plan, fight

__all__ = ["HookError", "Ruleset", "ScenarioT", "StateT"]

ScenarioT = TypeVar("ScenarioT", bound=BaseModel)
StateT = TypeVar("StateT", bound=Ending)


class HookError(RuntimeError):
    """A ruleset's hook raised, or returned what its contract does not allow.

    The message names the ruleset, the hook, the event and where the hook raised, so a
    plugin's bug reaches its author as one line (``battlesim: error: ...``, exit 2).
    """

    @classmethod
    def raised(
        cls,
        ruleset: str,
        hook: str,
        exc: BaseException,
        where: str | None = None,
        fn: Callable[..., Any] | None = None,
    ) -> HookError:
        """The error for ``hook`` of ``ruleset`` raising ``exc`` at ``where`` (``seq 14``;
        None: no event to name); ``fn`` is the hook called, named by its definition when the
        call itself failed (its parameters are not the contract's)."""
        said = " ".join(str(exc).split()) or "no details"
        at = f" at {where}" if where is not None else ""
        place = _defined_at(fn) if fn is not None and _call_failed(exc) else None
        return cls(
            f"ruleset {ruleset!r}: {hook} raised {type(exc).__name__}: {said}{at}"
            + (place or raised_at(exc))
        )


def _call_failed(exc: BaseException) -> bool:
    """Whether ``exc``, caught where a hook was called, is the call's own ``TypeError`` (the
    arguments did not fit its parameters) rather than one raised inside the hook: its
    traceback then holds the calling frame alone."""
    tb = exc.__traceback__
    return isinstance(exc, TypeError) and tb is not None and tb.tb_next is None


def _defined_at(fn: Callable[..., Any]) -> str | None:
    """``" (the hook is units(state), at pkg/__init__.py:LINE: ...)"``: where a hook whose
    call failed is defined, with its parameters (the place the call raised is battlesim's
    own, which told the plugin's author nothing), or None when that cannot be found."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    try:
        params = ", ".join(inspect.signature(fn).parameters)  # names: annotations are noise
        shown = f"{getattr(fn, '__name__', 'the hook')}({params})"
    except (TypeError, ValueError):
        return None
    return (
        f" (the hook is {shown}, at {place_name(code.co_filename)}:{code.co_firstlineno}: "
        "give it the parameters the contract calls it with, docs/rulesets.md 'The contract')"
    )


@dataclass(frozen=True)
class _Hooked:
    """A hook of a ruleset that reads a state (``units``, ``outcome``, ``summary``): what
    it raises reaches every tool as a :class:`HookError` naming the ruleset and the hook
    (``show``, ``report`` and ``run`` said only ``KeyError: 'boom'``, and check-ruleset
    gave each requirement that failed on it its own, unrelated hint)."""

    ruleset: str
    hook: str
    fn: Callable[..., Any]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            result = self.fn(*args, **kwargs)
        except HookError:
            raise
        except Exception as exc:
            raise HookError.raised(self.ruleset, self.hook, exc, fn=self.fn) from exc
        wrong = _RETURNS[self.hook](result)
        if wrong is not None:
            raise HookError(f"ruleset {self.ruleset!r}: {self.hook} returned {wrong}")
        return result


def _rows(result: Any) -> str | None:
    if not isinstance(result, list | tuple):  # a tuple of rows worked before: it still does
        return f"{type(result).__name__}, not a list of UnitRow"
    for i, row in enumerate(result):
        if not isinstance(row, UnitRow):
            return f"a list whose item {i} is {type(row).__name__}, not UnitRow"
    return None


def _outcome(result: Any) -> str | None:
    if not isinstance(result, Outcome):
        return f"{type(result).__name__}, not Outcome"
    if result.winner is not None and result.winner not in result.sides:
        # a winner given by name ('British' for brit) printed an empty name in run, counted
        # no win in batch and raised KeyError: 'British' in campaign
        return f"winner {result.winner!r}, none of its sides ({', '.join(result.sides)})"
    return None


def _lines(result: Any) -> str | None:
    if not isinstance(result, list | tuple):
        return f"{type(result).__name__}, not a list of str"
    for i, line in enumerate(result):
        if not isinstance(line, str):
            return f"a list whose item {i} is {type(line).__name__}, not str"
    return None


def _roles(result: Any) -> str | None:
    if not isinstance(result, dict):
        return f"{type(result).__name__}, not a dict of role to a list of unit ids"
    for role, ids in result.items():
        if not isinstance(role, str) or not isinstance(ids, list | tuple):
            return f"a dict whose {role!r} is {type(ids).__name__}, not a list of unit ids"
        if not all(isinstance(i, str) for i in ids):
            return f"a dict whose {role!r} holds an id that is not text"
    return None


def _data(result: Any) -> str | None:
    wrong = not_plain_json(result)
    return None if wrong is None else f"{wrong}, not plain JSON data"


_RETURNS: dict[str, Callable[[Any], str | None]] = {
    "units": _rows,
    "outcome": _outcome,
    "summary": _lines,
    "subjects": _roles,
    "rules_data": _data,
}
"""What each guarded hook must return, as its field's type says: a wrong type is named at
the hook (a ``units`` returning dicts failed later in ``show`` at ``'dict' object has no
attribute 'position'``, and an ``outcome`` returning a dict was blamed on ``summary``); an
outcome's winner is one of its sides, or None for a draw; ``rules_data`` is data
:func:`~engine.canonical.digest` can write (a set or a NaN raised ``TypeError: Object of
type set is not JSON serializable (at encoder.py:180)`` where every header is made, naming
neither the ruleset nor the hook)."""


_HOOKED = ("units", "outcome", "summary", "subjects", "rules_data")
"""The hooks :class:`Ruleset` guards with :class:`_Hooked`: everything battlesim calls them
for (the headers' ``rules_digest`` among it) gets what their contract says, or one line."""


_SIMPY = f"{os.sep}simpy{os.sep}"


def raised_in(exc: BaseException) -> tuple[str, int] | None:
    """(file, line) of the innermost place ``exc`` was raised, or None.

    SimPy raises a failed process's error again as a copy whose cause is the original
    (``core.py``'s ``step``), and throws such a copy into a process that waited on it: the
    place is then the original's, in the code of the process that raised it.
    """
    frames = traceback.extract_tb(exc.__traceback__)
    cause = exc.__cause__
    copied = cause is not None and type(cause) is type(exc) and cause.args == exc.args
    if cause is not None and (copied or (frames and _SIMPY in frames[-1].filename)):
        inner = raised_in(cause)  # a copy SimPy threw into a process waiting on the one failed
        if inner is not None:
            return inner
    if not frames:
        return None
    return frames[-1].filename, frames[-1].lineno or 0


def built_in(exc: BaseException) -> tuple[str, int] | None:
    """(file, line) of the innermost place outside pydantic where ``exc`` was raised: for a
    pydantic ``ValidationError``, the line that built the model with a wrong value."""
    pydantic = f"{os.sep}pydantic{os.sep}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if pydantic not in f.filename]
    return (frames[-1].filename, frames[-1].lineno or 0) if frames else None


def place_name(path: str) -> str:
    """A source file as an error names it: its name, or for a package's ``__init__.py``,
    which every package has, ``package/__init__.py``."""
    found = Path(path)
    return f"{found.parent.name}/{found.name}" if found.name == "__init__.py" else found.name


def raised_at(exc: BaseException) -> str:
    """``" (at file.py:LINE)"``, the innermost place ``exc`` was raised (:func:`raised_in`),
    or ``""``."""
    place = raised_in(exc)
    return f" (at {place_name(place[0])}:{place[1]})" if place is not None else ""


_HERE = Path(__file__).resolve()
OURS = (str(_HERE.parents[1]) + os.sep, str(_HERE.parents[2] / "engine") + os.sep)
"""``sim/`` and ``engine/`` beside it: battlesim's own code."""
BUILT_IN = str(_HERE.parents[1] / "rulesets") + os.sep
"""``sim/rulesets/``: the built-in rulesets, written as a plugin is, whose errors are a
ruleset's, as a plugin's are."""


def ours(path: str) -> bool:
    """Whether ``path`` is a file of battlesim's own (``sim/``, ``engine/``), not of a ruleset:
    an error raised in a built-in ruleset's rules is placed in them, as a plugin's is."""
    where = str(Path(path).resolve())
    return where.startswith(OURS) and not where.startswith(BUILT_IN)


def raised_outside(exc: BaseException) -> str:
    """:func:`raised_at` when that place is outside battlesim (a plugin's or a user's code),
    else ``""``: battlesim's own errors say what they mean without it."""
    place = raised_in(exc)
    return "" if place is None or ours(place[0]) else raised_at(exc)


@dataclass(frozen=True)
class Ruleset(Generic[ScenarioT, StateT]):
    """Everything battlesim needs from one rule system.

    Nine fields are required; every other hook has a default
    (:mod:`sim.contract.defaults`, docs/rulesets.md).

    Attributes:
        name: the ``ruleset:`` key.
        version: bumped when the rules change what a battle produces.
        scenario_model: pydantic model of a scenario file.
        registry: the ruleset's event classes.
        plan: the battle's :class:`~sim.runner.Plan` — its clock, read-only view,
            SimPy processes and end-of-turn rules; :meth:`simulate` runs it.
        initial_state: state before the first event.
        outcome: the :class:`Outcome` of a state.
        units: the :class:`UnitRow` of every unit, in scenario order.
        space: the :class:`Space` of a scenario.
        cross_check: problems spanning fields, each with its field path
            (default: none).
        file_check: problems of a scenario *file* that a battle already fought is not held
            to — a replay's header, a study's or calibration's stored target — because the
            ruleset learned to refuse them after such battles were written (default: none).
            ``validate``, ``run`` and every command reading a scenario file run it after
            ``cross_check``.
        rules_data: the rules tables as plain data, digested into headers
            (default: ``{}`` — give your tables, so a changed table shows).
        apply: the one apply function, ``apply(state, event)`` (default: the
            state's :class:`~sim.contract.StateBase` ``@applies`` methods).
        snapshot: the state as plain JSON data (default: a ``StateBase``'s data).
        restore: rebuild a state from its ``snapshot`` data:
            ``restore(sc, snapshot(s)) == s``, so reading can start from an
            ``engine.snapshot`` (default: a ``StateBase`` validated back).
        summary: readable lines for an outcome, one per side (``run`` prints
            them; default: each side's losses).
        narrate: one line of text for an event (state before it), or None
            (default: the event's type and own fields).
        measures: the :class:`Reading` worth charting at this state (default:
            each unit's strength, and each side's total when its units share
            one measure).
        derived_fields: names of state fields kept from others (positions,
            occupancy); ``fork`` refuses to set them.
        render_state: the ruleset's own text table of the state, for its
            users' notebooks; None if it has none. ``show`` prints the generic
            table of the unit rows (``sim.cli.battles.table``) for every ruleset.
        examples: scenario files the ruleset's package ships (``battlesim
            scenarios`` lists them, ``check-ruleset`` fights each; the
            built-in rulesets' live in ``scenarios/``).
        turn_name: what one turn is called in this game ("turn", "round").
        audit: ``audit(scenario, state, event)`` checks the event against the
            state before it and returns a message when broken, else None.
        audit_change: the part of ``audit`` that holds whatever an event's dice: who may
            act on whom, a verdict that follows from the battle (a message, else None).
            ``fork`` refuses a changed event it names, against the state before it, and
            ``verify`` runs it on a fork's changed event (``audit`` skips that event: a
            counterfactual breaks the arithmetic of its dice on purpose).
        carry_over: for campaigns, ``carry_over(scenario, final_state, next_data,
            settings)`` returns the next battle's scenario data with the
            survivors carried over; None when the ruleset has no campaigns.
        snapshot_json: optional, for speed: ``canonical_json(snapshot(state))``
            (:mod:`engine.canonical`) written straight from the state, the
            text each turn's state digest hashes.  It must give exactly that
            text for every state; the contract suite compares the two at every
            turn's end of every example, and the test suite's line check on
            every digest.  None: the snapshot is serialised (the same digest).
        odds: the single resolutions whose exact odds the ruleset gives,
            each a :class:`~sim.contract.odds.OddsResolution`; ``battlesim
            odds`` offers one command for each (docs/rulesets.md, "Exact
            odds: the ``odds`` hook").
        engagements: the units an event shows firing on, charging or
            striking others, each an :class:`Engagement` with a few words of
            its result; the report page draws them from actor to target
            (default: none).
        reach: each unit's :class:`Reach` as the scenario sets it up: whether
            it moves and which enemies it reaches from the start; ``validate``
            warns of a unit that can never reach an enemy (default: none
            said, no warning).
        status_words: every word a unit row's ``status`` may hold; ``history`` and
            ``calibrate`` refuse a measure or target of a word not listed, and the
            contract suite checks every row against it (default: none declared, not
            checked).
        loss_words: optional words shown to people for a loss kind of the outcome,
            as ``(kind, words)`` pairs (flattop's ``("air_factors_ditched", "air
            factors ditched")``): a study's summary and plots say them; a kind not
            listed is said by its key (``ships_sunk`` → "ships sunk", ``men`` → "men
            lost"). Keys, JSON and database columns keep the kind (default: none).
        shown_details: a unit row's details as ``show``'s table (and ``show --unit``'s)
            and the report's unit table show them, ``shown_details(row) -> dict``:
            becmi's gives no cover kind (``-``) beside no cover.  Only the tables
            change: the rows, ``--json``, the report's data and a study's
            ``unit_finals`` keep every detail (default: every detail as it is).
        subjects: who an event is about, in the ruleset's words, ``subjects(scenario,
            event) -> dict``: each role and the ids of the units in it, in order (becmi's
            bout: ``{"aggressor": ["snaga"], "defender": ["thorgrim"]}``); ``diff``'s
            first line names the divergent event's units so (``aggressor snaga, defender
            thorgrim``). None (the default): by the event's fields that name a unit,
            one nested in a field by its dotted path (``aggressors.members.0.id snaga``).
        older_versions: earlier rules versions the ruleset still fights: a
            replay's header names its version, and its scenario is read and
            written for it (the pydantic context ``{"ruleset_version": v}``;
            :class:`~sim.contract.options.ChangedDefaults`), so ``verify``
            fights it again under the rules it was fought under (default:
            none).
    """

    name: str
    version: str
    scenario_model: type[ScenarioT]
    registry: EventRegistry
    plan: Callable[[ScenarioT], Plan[ScenarioT, StateT, Any]]
    initial_state: Callable[[ScenarioT], StateT]
    outcome: Callable[[ScenarioT, StateT], Outcome]
    units: Callable[[ScenarioT, StateT], list[UnitRow]]
    space: Callable[[ScenarioT], Space]
    cross_check: Callable[[ScenarioT], list[Problem]] = defaults.no_problems
    file_check: Callable[[ScenarioT], list[Problem]] = defaults.no_problems
    rules_data: Callable[[], dict[str, Any]] = dict
    apply: Callable[[StateT, Event], None] = defaults.apply_by_state
    snapshot: Callable[[StateT], dict[str, Any]] = defaults.snapshot_of_state
    restore: Callable[[ScenarioT, dict[str, Any]], StateT] = defaults.unset
    summary: Callable[[Outcome], list[str]] = defaults.summary_of_losses
    narrate: Callable[[ScenarioT, StateT, Event], str | None] = defaults.plain_narrate
    measures: Callable[[ScenarioT, StateT], list[Reading]] = defaults.unset
    derived_fields: tuple[str, ...] = ()
    render_state: Callable[[ScenarioT, StateT], str] | None = None
    examples: tuple[Path, ...] = ()
    turn_name: str = "turn"
    audit: Callable[[ScenarioT, StateT, Event], str | None] | None = None
    audit_change: Callable[[ScenarioT, StateT, Event], str | None] | None = None
    carry_over: (
        Callable[[ScenarioT, StateT, dict[str, Any], dict[str, Any]], dict[str, Any]] | None
    ) = None
    snapshot_json: Callable[[StateT], str] | None = None
    odds: tuple[OddsResolution, ...] = ()
    engagements: Callable[[ScenarioT, Event], list[Engagement]] = defaults.no_engagements
    reach: Callable[[ScenarioT], list[Reach]] = defaults.no_reach
    older_versions: tuple[str, ...] = ()
    status_words: tuple[str, ...] = ()
    loss_words: tuple[tuple[str, str], ...] = ()
    shown_details: Callable[[UnitRow], dict[str, Any]] = defaults.every_detail
    subjects: Callable[[ScenarioT, Event], dict[str, list[str]]] | None = None

    def fights(self, version: str) -> bool:
        """True when a battle fought under rules ``version`` can be fought again exactly."""
        return version == self.version or version in self.older_versions

    def __post_init__(self) -> None:
        """Fill in the defaults that need the ruleset's own hooks (restore, measures).

        A default made for other hooks (``dataclasses.replace`` of a ruleset
        with another ``initial_state`` or ``units``) is made again for these.
        """
        for hook in _HOOKED:
            fn = getattr(self, hook)
            if fn is None:  # an optional hook not given (subjects)
                continue
            if not (isinstance(fn, _Hooked) and fn.ruleset == self.name):
                inner = fn.fn if isinstance(fn, _Hooked) else fn
                object.__setattr__(self, hook, _Hooked(self.name, hook, inner))
        restore, measures = self.restore, self.measures
        if restore is defaults.unset or (
            isinstance(restore, defaults.StateRestore)
            and restore.initial_state is not self.initial_state
        ):
            object.__setattr__(self, "restore", defaults.StateRestore(self.initial_state))
        if measures is defaults.unset or (
            isinstance(measures, defaults.StrengthMeasures) and measures.units is not self.units
        ):
            object.__setattr__(self, "measures", defaults.StrengthMeasures(self.units))

    def simulate(
        self, scenario: ScenarioT, header: Header, sink: Sink, draws: DrawTally | None = None
    ) -> StateT:
        """Fight a battle with the one runner, writing its replay; return the final state.

        ``draws`` counts the random draws the events record, by unit (a study's measure).

        Raises:
            engine.recorder.UnregisteredEvent: the battle recorded an event of a class
                ``registry`` does not list (its replay could not be read back).
        """
        state = self.initial_state(scenario)
        return fight(
            self.plan(scenario),
            scenario,
            header,
            sink,
            state,
            self.apply,
            self.snapshot,
            snapshot_json=self.snapshot_json,
            draws=draws,
            registry=self.registry,
            turn_name=self.turn_name,
        )
