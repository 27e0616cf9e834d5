"""battlesim's Python API: run, read, fold, explain, fork, diff and verify battles
(the CLI wraps it).

>>> from sim import api
>>> result = api.run("scenarios/stone_wall.yaml", seed=7, out="/tmp/sw.jsonl")  # doctest: +SKIP
>>> api.state_at("/tmp/sw.jsonl", turn=3)  # doctest: +SKIP
>>> api.why("/tmp/sw.jsonl", 33)  # doctest: +SKIP
>>> held = {"passed": True, "after": "good"}  # the 88th New York's rout at seq 58, undone
>>> api.fork("/tmp/sw.jsonl", 58, held, "/tmp/held.jsonl")  # doctest: +SKIP
>>> api.diff("/tmp/sw.jsonl", "/tmp/held.jsonl")["seq"]  # where they part: 58  # doctest: +SKIP

Every function takes a replay as a path or as what :func:`open_replay` or
:func:`load_replay` returned, refuses a wrong argument with a
:class:`ValueProblem` (a ``ValueError``) that says which and why, and takes
NumPy's integers (a run id or a turn picked from a DataFrame) as whole numbers.
The errors it documents import from here: ``from sim.api import ReplayError``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from engine.comparison.replay import VerifyResult
from engine.events import Event
from engine.log import FileSink
from engine.replayfile.checks import ReplayError
from engine.replayfile.reader import read_replay
from engine.safety.atomic import named_as_given
from sim.batch.storage import StoreDamaged, StoreError
from sim.contract import Outcome, headline
from sim.outputs import OutputError, check_output, is_replay, replay_stem
from sim.replay.file import ReplayFile, ReplayLike
from sim.replay.fork import Forked, ForkError
from sim.replay.header import (
    header_scenario,
    make_header,
    registry_for,
    simulate_into,
    simulate_lines,
)
from sim.replay.memory import LoadedReplay
from sim.replay.verify import verify_replay as _verify_replay
from sim.scenario.load import ScenarioError, load_scenario
from sim.scenario.values import (
    SEED_MAX,
    ValueProblem,
    check_seed,
    check_seq,
    check_turn,
    whole,
)
from sim.text.grammar import count
from sim.text.suggest import did_you_mean, known

__all__ = [
    "ForkError",
    "Forked",
    "IncompleteStudyWarning",
    "LoadedReplay",
    "OutputError",
    "ReplayError",
    "ReplayFile",
    "RunResult",
    "ScenarioError",
    "StoreDamaged",
    "StoreError",
    "ValueProblem",
    "VerifyResult",
    "default_replay_path",
    "diff",
    "fork",
    "load_replay",
    "load_study",
    "make_header",
    "narrative",
    "open_replay",
    "run",
    "simulate_into",
    "simulate_lines",
    "state_at",
    "verify_replay",
    "why",
]


_STUDY_LIBRARIES = frozenset({"numpy", "scipy", "duckdb", "pandas", "pyarrow"})
"""What :func:`load_study` reads a study with: the study and notebook extras'."""


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` did: where the replay went and the outcome."""

    scenario: str
    seed: int
    replay: str | None
    events: int
    outcome: Outcome
    state: Any = field(repr=False)
    summary: list[str]
    """Readable outcome lines, one per side (the ruleset's words)."""
    headline: str
    """``Union wins after 4 turns — <reason>``."""
    ruleset: str = ""
    """The ruleset's name, as the replay's header has it."""
    ruleset_version: str = ""
    """The rules version the battle was fought under (the header's ``ruleset_version``)."""

    def as_json(self) -> dict[str, Any]:
        """The ``run --json`` object."""
        return {
            "scenario": self.scenario,
            "ruleset": self.ruleset,
            "ruleset_version": self.ruleset_version,
            "seed": self.seed,
            "replay": self.replay,
            "events": self.events,
            **self.outcome.as_json(),
            "losses": self.outcome.losses(),
        }


def _path(value: object, name: str) -> str:
    """A path argument as text (bytes decoded as the OS does); anything else is refused
    by ``name``, not with a ``TypeError`` from inside (an int is no file descriptor here)."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return os.fsdecode(value)
    raise ValueProblem(f"{name} {value!r} is not a path: give a str or os.PathLike")


def default_replay_path(scenario_path: str | Path, seed: int) -> Path:
    """``<scenario stem>-s<seed>.jsonl`` in the current directory.

    Raises:
        ValueProblem: ``seed`` is not a seed (:func:`run` refuses it too), or
            ``scenario_path`` is not a path.
    """
    return Path(f"{Path(_path(scenario_path, 'scenario_path')).stem}-s{check_seed(seed)}.jsonl")


def _seed_of(scenario: BaseModel, seed: object) -> int:
    """The run's seed: ``seed`` checked as ``--seed`` is, else the scenario's own."""
    return check_seed(seed if seed is not None else getattr(scenario, "seed", 0))


def run(
    scenario_path: str | Path,
    seed: int | None = None,
    out: str | Path | None = None,
    *,
    force: bool = False,
    sets: Mapping[str, Any] | Iterable[tuple[str, Any] | str] = (),
    origins: Mapping[int, tuple[str, int]] | None = None,
) -> RunResult:
    """Validate a scenario, fight it and write its replay.

    Args:
        scenario_path: a scenario YAML file.
        seed: the seed; default the scenario's own ``seed``.
        out: the replay path; default :func:`default_replay_path`.
        force: overwrite an existing file even if it is not a battlesim replay
            (a replay at ``out``, of this scenario or another, is replaced anyway).
        sets: ``(field path, value)`` pairs set on the scenario before it is fought
            (``run --set``), or a mapping of them, or ``"path=value"`` texts as ``--set``
            takes them (the value read as YAML): a path as a study's factor names one
            (:mod:`sim.batch.inputs.fieldpath`: ``options.fire_scale``,
            ``sides.csa.units.phil.strength``, ``map.terrain.0.cover``), an option left
            out at its default included. The scenario with them set is validated as the
            file is, and the replay's header holds it, so the replay is whole without the
            file: ``verify``, ``show`` and ``diff`` read the battle that was fought.
        origins: the file and line a pair of ``sets`` was read from, by its place in
            ``sets`` (``run --patch``): a refusal of it names that place (``patch.yaml:1:
            map.terain.0.cover: no field …``), not ``--set``.

    Raises:
        ValueProblem: ``seed`` is not a whole number from 0 to 2⁶³ − 1 (a
            ``ValueError``; ``True``, ``"7"`` and ``-1`` are refused as ``--seed`` refuses them),
            ``scenario_path`` or ``out`` is not a path, or ``sets`` is of no shape above
            (or a text of it has no ``=``).
        ScenarioError: the scenario is invalid, with ``sets`` set or before (nothing is
            written); a path of ``sets`` that leads to no field, two that set one field, or
            ``ruleset`` or ``name`` (the replay of a battle renamed would not verify).
        OutputError: ``out`` cannot be written, or holds another file (see ``force``).
        OSError: the replay cannot be written (what was at ``out`` is kept);
            its ``filename`` is ``out`` as given (a full disk's error names no file, a
            failed rename the ``.partial``), unless the error is about the ``.partial``
            name itself (a link planted there: :func:`engine.safety.atomic.named_as_given`).

    The replay is written to ``<out>.partial`` and renamed when complete; a
    run killed before the end leaves its readable prefix there.
    """
    if seed is not None:
        check_seed(seed)  # before the scenario is read: the argument is wrong whatever it holds
    scenario_path = _path(scenario_path, "scenario_path")
    if out is not None:
        out = _path(out, "out")
    pairs, texts = _set_pairs(sets)
    ruleset, scenario = load_scenario(scenario_path)
    if pairs:
        ruleset, scenario = _with_sets(scenario_path, pairs, texts, origins or {})
    s = _seed_of(scenario, seed)
    path = Path(out) if out is not None else default_replay_path(scenario_path, s)
    if path.resolve() == Path(scenario_path).resolve():
        raise OutputError(f"--out {out}: that is the scenario file itself")
    header = make_header(ruleset, scenario, s, source=Path(scenario_path).name)
    check_output(path, force=force, ours=is_replay, what="a replay")
    # On any exception, Ctrl-C included, nothing half-written is left (the
    # sink abandons its .partial); an old replay at ``path`` is untouched.
    with FileSink(path) as sink:
        try:
            state = ruleset.simulate(scenario, header, sink)
        except OSError as exc:  # a refused write (disk full) names no file, or the .partial
            named_as_given(exc, out if out is not None else path)
            raise
    result = ruleset.outcome(scenario, state)
    return RunResult(
        str(scenario_path),
        s,
        str(path),
        sink.count - 2,
        result,
        state,
        ruleset.summary(result),
        headline(ruleset, result),
        header.ruleset,
        header.ruleset_version,
    )


def _set_pairs(sets: object) -> tuple[list[tuple[str, Any]], dict[str, str]]:
    """:func:`run`'s ``sets`` as ``(field path, value)`` pairs: a mapping's items, pairs as
    they are, ``"path=value"`` texts read as ``--set`` reads them; any other shape is
    refused by the argument's name, not with an unpacking error from inside. Beside them,
    the text each number of a ``"path=value"`` was typed in (``08``), by path, for a
    refusal that quotes it."""
    from sim.replay.fork import ForkError, parse_assignment  # noqa: PLC0415
    from sim.scenario.values import typed_number  # noqa: PLC0415

    given: object = sets.items() if isinstance(sets, Mapping) else sets
    items = (
        [given] if isinstance(given, str) else list(given) if isinstance(given, Iterable) else None
    )

    def usable(x: object) -> bool:
        """A text, or a pair whose first is a field path."""
        pair = isinstance(x, (tuple, list)) and len(x) == 2 and isinstance(x[0], str)
        return isinstance(x, str) or pair

    if items is None or not all(usable(x) for x in items):
        raise ValueProblem(
            f"sets {sets!r}: give (field path, value) pairs, a mapping "
            '({"options.fire_scale": 1.5}) or texts ("options.fire_scale=1.5")'
        )
    try:
        pairs = [parse_assignment(x) if isinstance(x, str) else (x[0], x[1]) for x in items]
    except ForkError as exc:  # a text without '=', or a value no command line may give
        raise ValueProblem(str(exc)) from None
    typed = [x.partition("=") for x in items if isinstance(x, str)]
    return pairs, {p: t for p, _, v in typed if (t := typed_number(v)) is not None}


def _with_sets(
    scenario_path: str | Path,
    sets: list[tuple[str, Any]],
    texts: Mapping[str, str],
    origins: Mapping[int, tuple[str, int]],
) -> tuple[Any, Any]:
    """The scenario at ``scenario_path`` with each field of ``sets`` set (:func:`run`);
    ``texts``: a number's text as typed, by path (``08``), which a refusal quotes;
    ``origins``: the file and line a pair was read from (a patch), by its place in ``sets``,
    which a refusal names.

    Raises:
        ScenarioError: a path that leads to no field (naming the nearest), two paths
            that set one field (or one inside the other), ``ruleset`` or ``name``
            (:func:`sim.batch.inputs.fieldpath.unsettable`), or a scenario the values make
            invalid (naming the field).
    """
    from sim.batch.inputs.fieldpath import (  # noqa: PLC0415
        PathError,
        overlap,
        resolve_path,
        unsettable,
    )
    from sim.batch.inputs.target import load_target  # noqa: PLC0415
    from sim.scenario.load import Lines, Located, validate_data  # noqa: PLC0415
    from sim.scenario.values import for_the_shell  # noqa: PLC0415

    source = str(scenario_path)

    def refused(i: int, problem: str) -> ScenarioError:
        """``problem`` of the i-th path, at the patch line it was read from or as ``--set``."""
        field_path = sets[i][0]
        if i in origins:
            file, line = origins[i]
            return ScenarioError([Located(file, line, "", f"{field_path}: {problem}")])
        return ScenarioError([Located(source, 0, "", f"--set {field_path}: {problem}")])

    def named(i: int) -> str:
        """The i-th path as a refusal names another: ``--set`` as typed, or its patch line."""
        if i in origins:
            file, line = origins[i]
            return f"{sets[i][0]} ({file}:{line})"
        return f"--set {sets[i][0]}"

    for i, (field_path, _) in enumerate(sets):
        # a campaign battle's path (battles.…) is no scenario's: refused as leading nowhere
        why = None if "." in field_path else unsettable(field_path)
        if why is not None:
            raise refused(i, why)
    target = load_target(scenario_path)
    fields: list[tuple[str | int, ...] | str] = []
    for i, (field_path, _) in enumerate(sets):
        try:
            fields.append(resolve_path(target.data, field_path, target.filled()))
        except PathError as exc:
            raise refused(i, str(exc)) from None
    clash = overlap(fields)
    if clash is not None:
        raise refused(clash[0], f"sets what {named(clash[1])} sets; give each field once")
    written = Lines()  # no lines (a flag has none); each number as typed: 08, not 8
    for keys, (field_path, _) in zip(fields, sets, strict=True):
        if field_path in texts and isinstance(keys, tuple):
            written.texts[keys] = texts[field_path]
    try:
        return validate_data(target.at(dict(sets)), written, source)
    except ScenarioError as exc:  # the file was valid: the values set are what is wrong
        typed = [field_path for field_path, _ in sets]
        # a problem names its field by indexes (sides.1.units.2.strength): the flag as typed
        as_typed = {".".join(map(str, f)): t for f, t in zip(fields, typed, strict=True)}
        place = {".".join(map(str, f)): i for i, f in enumerate(fields)}
        given = dict(sets)
        after = ", ".join(named(i) for i in range(len(sets)))
        problems = [
            Located(*origins[place[p.field]], as_typed[p.field], p.message)
            if place.get(p.field) in origins
            else Located(
                p.file,
                0,
                f"--set {as_typed[p.field]}",
                for_the_shell(p.message, f"--set {as_typed[p.field]}", given[as_typed[p.field]]),
            )
            if p.field in as_typed
            else Located(p.file, 0, p.field, f"{p.message} (after {after})")
            for p in exc.problems
        ]
        raise ScenarioError(problems) from None


def load_replay(path: str | Path, *, allow_truncated: bool = False) -> LoadedReplay:
    """Read a replay, every line validated and its chain checked.

    Args:
        path: the replay file (``.jsonl``, or gzip ``.jsonl.gz``).
        allow_truncated: read a replay whose end is missing (a run killed before it
            finished: the ``.partial`` it left, or a file cut short) as far as it goes,
            instead of refusing it as incomplete.

    Raises:
        ValueProblem: ``path`` is not a path.
        ReplayError: the file is damaged, from a newer format, or unknown.
    """
    path = _path(path, "path")
    replay = read_replay(path, registry_for, allow_truncated=allow_truncated)
    ruleset, scenario = header_scenario(replay.header, str(path))
    return LoadedReplay(ruleset, scenario, replay)


def open_replay(path: str | Path, *, allow_truncated: bool = False) -> ReplayFile:
    """Open a replay to read as a stream: the header is checked now, each line as it is read.

    What the replay tools use: memory holds the state and one line, never
    the battle's events (:class:`sim.replay.file.ReplayFile`).

    Args:
        path: the replay file.
        allow_truncated: as :func:`load_replay`'s.

    Raises:
        ValueProblem: ``path`` is not a path.
        ReplayError: the file cannot be read, is not a replay, or its header
            is damaged, newer or unknown.
    """
    return ReplayFile(_path(path, "path"), allow_truncated=allow_truncated)


def state_at(path: str | Path | ReplayLike, turn: int | None = None) -> Any:
    """Fold a replay to the state at the end of ``turn`` (default: the end), streaming it.

    Args:
        path: the replay (a path, or an opened or loaded replay).
        turn: a turn of the battle, from 0 (the start) to the turn it ended in.

    Raises:
        ValueProblem: ``turn`` is not a whole number from 0, or is past the battle's
            end (``-1``, ``nan``, ``inf``, ``99`` of a battle over in 4: refused as
            ``show --turn`` refuses them).
        ReplayError: the file is damaged, from a newer format, or unknown.
    """
    turn = check_turn(turn)
    replay = _replay(path)
    if turn is not None and turn > replay.last_turn:
        turn_name = replay.ruleset.turn_name
        raise ValueProblem(
            f"{turn_name} {turn}: the battle ended at {turn_name} {replay.last_turn}"
        )
    return replay.state_at(turn)


def verify_replay(path: str | Path | LoadedReplay | ReplayFile) -> VerifyResult:
    """Check a replay whole, as ``battlesim verify`` does: its integrity, the ruleset's
    invariants, and the battle fought again from its header, line for line.

    Args:
        path: the replay file (or an opened or loaded replay: its file is read again).

    Returns:
        What was found (``.ok``; else ``.damage``, ``.violation`` or ``.mismatch``
        says the first problem, with its line and seq).

    Raises:
        ValueProblem: ``path`` is not a path or a replay.
        ReplayError: the file cannot be read (missing, a folder, a FIFO or a device,
            no permission): nothing to verify, as ``verify`` says so with exit 2 rather
            than 1.
    """
    if isinstance(path, (LoadedReplay, ReplayFile)):
        path = path.path
    result = _verify_replay(_path(path, "path"))
    if result.damage is not None and result.damage.kind == "unreadable":
        raise result.damage
    return result


def _replay(replay: str | os.PathLike[str] | bytes | ReplayLike) -> ReplayLike:
    """A replay to read: one given opened or loaded as it is, a path opened as a stream."""
    if isinstance(replay, (LoadedReplay, ReplayFile)):
        return replay
    if isinstance(replay, bytes):
        replay = os.fsdecode(replay)
    if not isinstance(replay, (str, os.PathLike)):
        raise ValueProblem(
            f"{type(replay).__name__} is not a replay: give its path, or what "
            "open_replay or load_replay returned"
        )
    return open_replay(os.fspath(replay))


def why(replay: str | Path | ReplayLike, seq: int) -> list[tuple[Event, str]]:
    """The chain of causes of event ``seq``, root first, each with its narrative line
    (``battlesim why``).

    Raises:
        ValueProblem: ``seq`` is not a whole number from 0, or no event of the replay.
        ReplayError: the file is damaged (a cause that names no earlier event among them).
    """
    from sim.replay import analysis  # noqa: PLC0415 - the reading tools, when asked

    seq = check_seq(seq)
    loaded = _replay(replay)
    if seq >= loaded.count:  # the argument's fault; a cause that is no earlier event is damage
        raise ValueProblem(
            f"{loaded.path}: no event seq {seq}: the replay has seq 0..{loaded.count - 1}"
        )
    try:
        return analysis.why(loaded, seq)
    except IndexError as exc:
        raise ReplayError(str(loaded.path), 0, str(exc)) from None


def narrative(
    replay: str | Path | ReplayLike,
    *,
    turn: int | None = None,
    unit: str | None = None,
    types: str | Iterable[str] = (),
) -> list[tuple[Event, str]]:
    """The battle's narrative as ``(event, line)`` pairs (``battlesim show --events``),
    filtered by ``turn``, ``unit`` (its id or its name) and event ``types``
    (``musket.fired`` or just ``fired``; one type may be given as a string).

    Raises:
        ValueProblem: a turn past the battle's end, a unit or event type the battle
            does not have (with the names it does), or a turn that is not a whole number.
        ReplayError: the file is damaged.
    """
    from sim.replay import analysis  # noqa: PLC0415 - the reading tools, when asked

    turn = check_turn(turn)
    loaded = _replay(replay)
    wanted = (types,) if isinstance(types, str) else tuple(types or ())
    if not all(isinstance(t, str) for t in wanted):
        raise ValueProblem(f'types {types!r}: give event types as text ("fired")')
    if turn is not None and turn > loaded.last_turn:
        name = loaded.ruleset.turn_name
        raise ValueProblem(f"{name} {turn}: the battle ended at {name} {loaded.last_turn}")
    registered = loaded.ruleset.registry.types
    short = {t.rsplit(".", 1)[-1] for t in registered if t not in analysis.UNTOLD}
    for t in wanted:
        if (why := analysis.untold(t, registered)) is not None:
            raise ValueProblem(f"event type {t!r}: {why}")
        if t not in registered and t not in short:
            hint = did_you_mean(t, short) or f"; known: {known(short, limit=40)}"
            raise ValueProblem(f"no event type {t!r} in the {loaded.ruleset.name} rules{hint}")
    if unit is not None:
        unit = analysis.unit_id(loaded, unit)
    return list(analysis.narrative(loaded, turn=turn, unit=unit, types=wanted))


def fork(
    replay: str | Path | ReplayLike,
    at: int,
    changes: Mapping[str, Any] | Iterable[str],
    out: str | Path | None = None,
    *,
    force: bool = False,
) -> Forked:
    """Fork a battle at event ``at`` with a change and fight on (``battlesim fork``).

    Args:
        replay: the parent replay (a path, or an opened or loaded replay).
        at: the event to change, or after which to change the state.
        changes: ``{"passed": True, "after": "good"}``, or ``["passed=true", …]`` as
            ``--set`` takes them; ``state.<path>`` sets a state field after the event.
        out: the fork's replay (default ``<replay stem>-fork<at>.jsonl`` here).
        force: overwrite a file at ``out`` that is not a battlesim replay.

    Returns:
        The fork's path, final state and event count.

    Raises:
        ValueProblem: ``at`` is not a whole number from 0, or ``out`` is not a path.
        ForkError: the seq, a field, a path or a value is not usable.
        OutputError: ``out`` cannot be written, is the parent, or is another file of
            the user's (see ``force``).
    """
    from sim.replay.fork import fork_battle, parse_assignment  # noqa: PLC0415

    at = check_seq(at)
    if out is not None:
        out = _path(out, "out")
    loaded = _replay(replay)
    if isinstance(changes, Mapping):
        texts = [f"{name}={_as_value_text(name, value)}" for name, value in changes.items()]
    elif isinstance(changes, str):
        texts = [changes]
    else:
        texts = list(changes)
    if not texts or not all(isinstance(t, str) for t in texts):
        raise ValueProblem(
            f"changes {changes!r}: give at least one change, as a mapping "
            '({"passed": True}) or as texts ("passed=true")'
        )
    assignments = [parse_assignment(t) for t in texts]
    path = Path(out) if out is not None else Path(f"{replay_stem(loaded.path)}-fork{at}.jsonl")
    check_output(path, force=force, ours=is_replay, what="a replay", reads=(loaded.path,))
    return fork_battle(loaded, at, assignments, path)


def _as_value_text(name: str, value: Any) -> str:
    """A Python value as the text ``--set`` would take (JSON is YAML), NumPy's scalars
    as their values; a value JSON cannot hold is refused."""

    def plain(v: Any) -> Any:
        if hasattr(v, "item") and type(v).__module__ == "numpy":
            return v.item()
        raise TypeError(type(v).__name__)

    try:
        return json.dumps(value, default=plain, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ForkError(f"{name}: {value!r} is not plain data ({exc})") from None


def diff(
    a: str | Path | ReplayLike, b: str | Path | ReplayLike, context: int = 3
) -> dict[str, Any]:
    """Compare two replays (``battlesim diff --json``): where they first part, the
    field that changed, the random streams' draw counts there, and the events around it.

    Raises:
        ValueProblem: ``context`` is not a whole number of events from 0.
        ReplayError: either file is damaged, from a newer format, or unknown.
    """
    from sim.replay.diff import diff_replays  # noqa: PLC0415 - the reading tools, when asked

    lines = whole(context)
    if lines is None or not 0 <= lines <= SEED_MAX:
        raise ValueProblem(f"context {context!r} is not a whole number of events from 0")
    return diff_replays(_replay(a), _replay(b), lines)


class IncompleteStudyWarning(UserWarning):
    """:func:`load_study` read a study that stopped before its end: the DataFrame holds
    the runs committed so far. ``battlesim batch ... --resume`` completes the study;
    ``warnings.simplefilter("error", IncompleteStudyWarning)`` makes it an error."""


def load_study(folder: str | Path) -> Any:
    """The runs of the batch study in ``folder`` as a pandas DataFrame, one row per run.

    The columns are those of the ``runs_wide`` view (docs/batch.md): run id,
    point, replication, seed, status, every factor by its path with its type,
    winner, reason, turns, battles and each side's losses. Needs the
    ``notebook`` extra (``pip install 'battlesim[notebook]'``: pandas, pyarrow).

    A study that stopped before its end (its ``progress.json`` not finished: Ctrl-C,
    a lost worker) is read as far as it was committed, with an
    :class:`IncompleteStudyWarning` saying how many of its planned runs that is, as
    ``battlesim export`` notes it.

    Raises:
        StoreError: no study in ``folder``, or a database that is not a study
            (:class:`StoreDamaged`, a StoreError, when it is one cut short); both
            import from here, ``from sim.api import StoreError``, with no DuckDB.
        ValueProblem: ``folder`` is not a path.
        ImportError: pandas is not installed.
    """
    import warnings  # noqa: PLC0415

    # DuckDB and pandas are heavy; only this call needs them.
    try:
        import pandas  # type: ignore[import-untyped]  # noqa: F401, PLC0415  # .df() needs it

        from sim.batch.storage.progress import read_progress  # noqa: PLC0415
        from sim.batch.storage.store import Store  # noqa: PLC0415
        from sim.batch.storage.wide import wide_select  # noqa: PLC0415
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in _STUDY_LIBRARIES:
            raise
        raise ModuleNotFoundError(
            f"sim.api.load_study needs {exc.name}, which a lean install leaves out: "
            "pip install 'battlesim[study,notebook]' (or make dev)",
            name=exc.name,
        ) from None

    folder = _path(folder, "folder")
    store = Store.open(Path(folder) / "study.duckdb", read_only=True)
    try:
        frame = store.con.execute(f"{wide_select(store)} ORDER BY r.run_id").df()
    finally:
        store.close()
    progress = read_progress(Path(folder))
    if progress is not None and not progress.finished:
        warnings.warn(
            f"{str(folder)!r} is incomplete ({len(frame):,} of "
            f"{count(progress.planned, 'run', spec=',')} committed): the DataFrame holds those; "
            "complete the study with --resume on the "
            "command that made it (battlesim batch or study)",
            IncompleteStudyWarning,
            stacklevel=2,
        )
    return frame
