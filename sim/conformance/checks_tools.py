"""Requirements of the tools: ``diff``, ``fork``, ``batch``, ``report`` and ``new``."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.canonical import canonical_json
from engine.events import Event, whole_dump
from engine.projection import Projection
from engine.safety.text import one_line
from sim.conformance.battle import Battle, tool_problem
from sim.conformance.page import NETWORK, embedded, well_formed
from sim.conformance.requirement import NotChecked, RequirementFailed, requirement
from sim.contract.ruleset import raised_at
from sim.replay.fork import FIXED
from sim.text.grammar import count

__all__ = [
    "BATCH_RUNS",
    "CARRY_OVER_FIGHTS_ON",
    "DIFF_ANOTHER_SEED",
    "DIFF_WITH_ITSELF",
    "FORK_CHANGES_AN_EVENT",
    "FORK_REFUSES_DERIVED_FIELDS",
    "NEW_WRITES_A_SCENARIO_THAT_RUNS",
    "ODDS_EXAMPLES_RUN",
    "REPORT_CHARTS_EVERY_MEASURE",
    "REPORT_PAGE",
    "fork_candidates",
]

TRIES = 4
"""Forks tried before the requirement fails (each re-simulates the battle twice)."""
PER_FIELD = 2
"""Events of one type at which a field's change is looked at before that field is passed
over, when the rules acted on it at none of them."""
LOOKED_AT = 400
"""Candidate changes looked at, at most, for one the rules act on (each one apply)."""


@requirement(
    "`diff` finds a replay identical to itself (exit 0).",
    "A replay that reads back whole is enough: meet scenario-runs first",
    "Checking a ruleset",
)
def DIFF_WITH_ITSELF(battle: Battle) -> None:  # noqa: N802
    out = battle.replay
    same = battle.cli("diff", out, out)
    if (same.exit_code, same.stdout) != (0, f"identical: {out} and {out}\n"):
        raise battle.failed(f"battlesim diff of the replay with itself: {tool_problem(same)}")


@requirement(
    "`diff --json` of the replay and one of another seed names the seed and compares every "
    "unit's row, strength included.",
    "units() gives the same ids in every battle of a scenario, each row with its strength",
    "The models",
)
def DIFF_ANOTHER_SEED(battle: Battle) -> None:  # noqa: N802
    loaded, out = battle.loaded, battle.replay
    seed = loaded.header.seed + 1
    other = battle.scratch("other-seed") / "other.jsonl"
    what = f"battlesim run --seed {seed}"
    battle.succeeded(what, "run", battle.scenario or "", "--seed", seed, "--out", other)
    result = battle.cli("diff", out, other, "--json")
    if result.exit_code not in (0, 1):
        raise battle.failed(f"battlesim diff --json: {tool_problem(result)}")
    data = json.loads(result.stdout)
    change = {"path": "seed", "kind": "changed", "a": seed - 1, "b": seed}
    if data["mode"] != "variants" or data["inputs"][:1] != [change]:
        raise battle.failed(f"diff --json: mode {data['mode']!r}, inputs {data['inputs'][:1]}")
    ids = [r.id for r in battle.rows(loaded.state_at())]
    if sorted(data["units"]) != sorted(ids):
        raise battle.failed(
            f"diff --json compares units {sorted(data['units'])}, not {sorted(ids)}"
        )
    for unit, fields in data["units"].items():
        if "strength" not in fields:
            raise battle.failed(f"diff --json has no strength for {unit}", field="strength")


def _changed(value: Any, others: list[Any]) -> Any:
    """Another value of the same type: a flipped bool, an int one nearer 0 (or 1), another
    text seen in the same field; None when there is none."""
    if type(value) is bool:
        return not value
    if type(value) is int:
        return value - 1 if value > 0 else value + 1
    return next((o for o in others if o != value), None)


def fork_candidates(
    events: list[Event], skip: Callable[[str, str], bool] = lambda _t, _f: False
) -> Iterator[tuple[Event, str, Any]]:
    """(event, field, new value) a fork may set: yes/no fields first, then whole numbers, then
    texts (often another thing's id: a strike's, a ship's, which the rules after it may not
    take), each in seq order; only changes after which the event still validates."""
    seen: dict[tuple[str, str], list[Any]] = {}
    fields: list[tuple[Event, str, Any]] = []
    for e in events:
        if e.type.startswith("engine."):
            continue
        for k, v in e.model_dump().items():
            if k not in FIXED and type(v) in (bool, int, str):
                fields.append((e, k, v))
                seen.setdefault((e.type, k), []).append(v)
    rank = {bool: 0, int: 1, str: 2}  # a text is often another thing's id (a strike's)
    for e, k, v in sorted(fields, key=lambda f: rank[type(f[2])]):
        if skip(e.type, k):
            continue
        new = _changed(v, seen[(e.type, k)])
        if new is None:
            continue
        try:
            type(e).model_validate({**e.model_dump(), k: new})
        except ValidationError:
            continue
        yield e, k, new


def _fork(battle: Battle, event: Event, field: str, value: Any, n: int) -> str | None:
    """Fork at ``event`` with ``field`` set to ``value``; None when the fork verifies."""
    out, at = battle.replay, event.seq
    forked = battle.scratch(f"fork-{n}") / "forked.jsonl"
    made = battle.cli(
        "fork", out, "--at", at, "--set", f"{field}={json.dumps(value)}", "-o", forked
    )
    if made.exit_code != 0:
        return f"fork at seq {at} with {field}={json.dumps(value)}: {tool_problem(made)}"
    if not made.stdout.startswith(f"forked {out} at seq {at}: "):
        return f"fork at seq {at} printed {made.stdout.splitlines()[:1]}"
    from sim import api  # noqa: PLC0415

    if getattr(api.load_replay(forked).events[at], field) != value:
        return f"the fork's seq {at} does not hold {field}={json.dumps(value)}"
    verify = battle.cli("verify", forked)
    if verify.exit_code != 0:
        return (
            f"the fork at seq {at} with {field}={json.dumps(value)} fails verify: "
            + tool_problem(verify)
        )
    return None


@requirement(
    "`fork` changes a field of a ruleset event (a yes/no, a text or a whole number that still "
    "validates and that the rules act on) and the fork verifies.",
    "Record decisions as event fields (a bool, a choice, a count) that apply and the rules "
    "after it read, rather than recomputing them",
    "Decide, then apply",
)
def FORK_CHANGES_AN_EVENT(battle: Battle) -> None:  # noqa: N802
    problems = []
    for n, (event, field, value) in enumerate(_acting(battle)):
        problem = _fork(battle, event, field, value, n)
        if problem is None:
            return
        problems.append(problem)
        if len(problems) == TRIES:
            break
    if problems:
        raise battle.failed(f"no fork of {len(problems)} tried verifies; the first: {problems[0]}")
    first = next(iter(fork_candidates(battle.loaded.events)), None)
    if first is None:
        raise battle.failed("no ruleset event has a bool, text or int field to change")
    event, field, value = first
    raise battle.failed(
        "the rules act on none of the event fields tried: applying the event with one changed "
        f"leaves the state as it was, or fails (the first: seq {event.seq} with "
        f"{field}={json.dumps(value)}), so `fork` refuses each"
    )


def _acting(battle: Battle) -> Iterator[tuple[Event, str, Any]]:
    """The first :data:`LOOKED_AT` fork candidates the rules act on, in their order: applying
    the event with the field changed, to the state before it, leaves another state than the
    event as recorded does (else ``fork`` refuses the change: the battle after it would be
    the parent's). A change apply cannot take (another strike's id where the state has none)
    is left out too: ``fork`` refuses it as one the rules cannot fight on with. One fold of
    the battle for each run of candidates in seq order."""
    loaded = battle.loaded
    rs, sc = loaded.ruleset, loaded.scenario
    fold, done = Projection(rs.initial_state(sc), rs.apply), 0
    snapshots: dict[int, dict[str, Any]] = {}
    idle: dict[tuple[str, str], int] = {}  # a field the rules did not act on, twice: passed over

    def passed_over(kind: str, field: str) -> bool:
        return idle.get((kind, field), 0) >= PER_FIELD

    for event, field, value in islice(fork_candidates(loaded.events, passed_over), LOOKED_AT):
        if event.seq < done:  # the next kind of field starts from the first event again
            fold, done, snapshots = Projection(rs.initial_state(sc), rs.apply), 0, {}
        for e in loaded.events[done : event.seq]:
            fold.apply(e)  # the engine's own events as the engine applies them
        done = event.seq
        before = snapshots.get(event.seq)
        if before is None:
            before = snapshots[event.seq] = rs.snapshot(fold.state)
        changed = type(event).model_validate({**whole_dump(event), field: value})
        after = []
        for e in (event, changed):
            trial = rs.restore(sc, before)
            try:
                rs.apply(trial, e)
            except Exception:
                break
            after.append(canonical_json(rs.snapshot(trial)))
        if len(after) == 2 and after[0] != after[1]:
            yield event, field, value
        else:
            idle[event.type, field] = idle.get((event.type, field), 0) + 1


@requirement(
    "`fork --set state.…` refuses a path ending in one of the ruleset's derived_fields (exit 2).",
    "List in derived_fields only the names of state fields the rules keep from others",
    "The contract",
)
def FORK_REFUSES_DERIVED_FIELDS(battle: Battle) -> None:  # noqa: N802
    out = battle.replay
    for name in battle.ruleset.derived_fields:
        refused = battle.cli("fork", out, "--at", "0", "--set", f"state.x.{name}=1")
        if refused.exit_code != 2 or "cannot be forked" not in refused.output:
            raise battle.failed(f"fork --set state.x.{name}=1: {tool_problem(refused)}", field=name)


@requirement(
    "`batch --runs 3` fights three runs, each done and stored with every unit's final row.",
    "Fight only from the scenario and the seed; units() lists the same units in every run",
    "Checking a ruleset",
)
def BATCH_RUNS(battle: Battle) -> None:  # noqa: N802
    from importlib.util import find_spec  # noqa: PLC0415

    if find_spec("duckdb") is None:  # a lean install (make run) has no study store
        raise NotChecked(
            "batch studies need the study extra: pip install 'battlesim[study]'", extra="study"
        )
    loaded = battle.loaded
    out = battle.scratch("batch") / "study"
    args = ("batch", battle.scenario or "", "--runs", "3", "--out", out, "--no-plots")
    battle.succeeded("battlesim batch --runs 3", *args)
    from sim.batch.storage.duck import duckdb  # noqa: PLC0415  # the batch store's own library

    with duckdb.connect(str(out / "study.duckdb"), read_only=True) as con:
        runs = con.execute("SELECT status, count(*) FROM runs GROUP BY status").fetchall()
        units = con.execute("SELECT count(DISTINCT unit) FROM unit_finals").fetchall()
    if runs != [("done", 3)]:
        raise battle.failed(f"the study's runs by status: {runs}, not [('done', 3)]")
    rows = battle.rows(loaded.state_at())
    if units[0][0] != len(rows):
        raise battle.failed(f"the study stores {units[0][0]} units' finals, not {len(rows)}")


@requirement(
    "`carry_over` (when the ruleset has one) gives the same data each time for the same "
    "arguments, changing none of them, keeps a unit the next battle brings that did not "
    "fight, and `battlesim campaign` of a scenario fought twice "
    "fights the second battle from it (or ends, saying why, when a side has no unit left).",
    "Build carry_over with sim.contract.carry's CarryOver (its `sides` the scenario field "
    "that lists the sides), or make it a pure function that "
    "copies next_data, carries every unit that fought by id, leaves the fallen out and keeps "
    "every other unit as the file gives it; raise "
    "only ValidationError for a bad setting and ValueError for a bad reinforcement",
    "Campaigns: what `carry_over` must do",
)
def CARRY_OVER_FIGHTS_ON(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    hook = battle.ruleset.carry_over
    if hook is None:
        return  # no campaigns: `battlesim campaign` refuses its scenarios in one line
    if problem := _carry_problem(hook, loaded):
        raise battle.failed(problem)
    folder = battle.scratch("campaign")
    plan = {
        "campaign": f"check-ruleset: {battle.name} fought twice",
        "seed": loaded.header.seed,
        "battles": [
            {"id": "first", "scenario": str(Path(battle.scenario or "").resolve())},
            {"id": "second", "scenario": str(Path(battle.scenario or "").resolve())},
        ],
    }
    file = folder / "campaign.yaml"
    file.write_text(canonical_json(plan), encoding="utf-8")  # JSON is YAML
    result = battle.succeeded(
        "battlesim campaign of the scenario fought twice",
        "campaign",
        file,
        "--out",
        folder / "out",
        "--json",
    )
    outcome = json.loads(result.stdout)
    if len(outcome["battles"]) < 2 and "after carry-over" not in outcome["reason"]:
        raise battle.failed(
            f"battlesim campaign fought one battle of two and said: {outcome['reason']}"
        )


def _carry_problem(hook: Callable[..., Any], loaded: Any) -> str:
    """What is wrong with ``hook`` called on the replay's scenario, its final state and the
    scenario's own data as the next battle's, twice, with no settings; ``""`` when nothing."""
    rs, sc = loaded.ruleset, loaded.scenario
    final = loaded.state_at()
    data = sc.model_dump(mode="json")
    given, before = canonical_json(data), canonical_json(rs.snapshot(final))
    said = "carry_over(scenario, final state, the scenario's own data, {'reinforcements': {}})"
    answers = []
    for _ in range(2):
        try:
            answers.append(hook(sc, final, data, {"reinforcements": {}}))
        except Exception as exc:
            return f"{said} raised {type(exc).__name__}: {exc}{raised_at(exc)}"
        if not isinstance(answers[-1], dict):
            return f"{said} returned {type(answers[-1]).__name__}, not the next battle's data"
        if canonical_json(data) != given:
            return f"{said} changed the next_data it was given: return a new dict"
        if canonical_json(rs.snapshot(final)) != before:
            return f"{said} changed the final state it was given"
    first, second = (canonical_json(a) for a in answers)
    if first != second:
        return f"{said} returned other data the second time: it must be a pure function"
    return _newcomer_problem(hook, loaded)


def _newcomer_problem(hook: Callable[..., Any], loaded: Any) -> str:
    """What ``hook`` does wrong with a unit that did not fight: the battle before is the
    scenario without its first unit it can do without (still a valid scenario), at its
    start; the next is the scenario's own data, which brings that unit. ``""`` when it is
    kept (or no unit can be left out)."""
    from sim.batch.inputs.campaign import unit_ids, without  # noqa: PLC0415 - this check only
    from sim.contract.carry import LeftOut, ids_in  # noqa: PLC0415
    from sim.scenario.load import ScenarioError, validate_data  # noqa: PLC0415

    rs, sc = loaded.ruleset, loaded.scenario
    data = sc.model_dump(mode="json")
    for row in rs.units(sc, rs.initial_state(sc)):
        try:
            fewer_rs, fewer = validate_data(without(data, frozenset({row.id})), {}, "check")
        except ScenarioError:
            continue  # the scenario needs it (a strike's carrier, a side's one unit)
        if row.id in unit_ids(fewer_rs, fewer):
            continue
        said = (
            f"carry_over(the scenario without {row.id!r}, at its start; the scenario's own "
            "data; {'reinforcements': {}})"
        )
        try:
            carried = hook(fewer, fewer_rs.initial_state(fewer), data, {"reinforcements": {}})
        except LeftOut:
            carried = {}
        except Exception as exc:
            return f"{said} raised {type(exc).__name__}: {exc}{raised_at(exc)}"
        if row.id not in ids_in(carried):
            return (
                f"{said} left out {row.id!r}, which did not fight: a unit the next battle "
                "brings joins it fresh"
            )
        return ""
    return ""


def _report(battle: Battle) -> str:
    """The text of the replay's report page (written once).

    Raises:
        RequirementFailed: ``battlesim report: <what it printed>`` when it did not write it.
    """

    def write() -> tuple[str, str | None]:
        page = battle.scratch("report") / "report.html"
        result = battle.cli("report", battle.replay, "-o", page)
        if (result.exit_code, result.stdout) != (0, f"Wrote {page}\n"):
            return "", f"battlesim report: {tool_problem(result)}"
        return page.read_text(encoding="utf-8"), None

    text, problem = battle.shared("report", write)
    if problem is not None:
        raise battle.failed(problem)
    return text


@requirement(
    "`report` writes one well-formed page that fetches nothing and embeds every unit and event.",
    "narrate returns one line of plain text (or None) for each event; units() lists every unit "
    "at the start",
    "The contract",
)
def REPORT_PAGE(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    page = _report(battle)
    if problems := well_formed(page):
        raise battle.failed(f"the report page is not well formed: {problems[0]}")
    if (found := NETWORK.search(page)) is not None:
        raise battle.failed(f"the report page fetches: {found.group(0)!r}")
    data = embedded(page)
    if len(data) != 1:
        raise battle.failed(f"the report page embeds {len(data)} battles' data, not 1")
    rows = battle.rows(loaded.state_at(0))
    if [u["id"] for u in data[0]["units"]] != [r.id for r in rows]:
        raise battle.failed("the report's units are not the unit rows at the start")
    if [e["seq"] for e in data[0]["events"]] != [e.seq for e in loaded.events]:
        raise battle.failed("the report does not embed every event")


def _measured(battle: Battle) -> set[tuple[str, str]]:
    """Every (scope, measure name) that ``measures`` gives at the start or a turn's end."""
    loaded = battle.loaded
    rs, sc = loaded.ruleset, loaded.scenario
    return {(r.scope, r.measure.name) for _, s in loaded.turn_ends() for r in rs.measures(sc, s)}


@requirement(
    "`report` draws a chart for each measure that measures gives (one at least; of units only "
    "while few enough to read).",
    "Return from measures a Reading of each side (scope 'side') and of each unit (scope "
    "'unit') for what is worth charting, strength at least",
    "The models",
)
def REPORT_CHARTS_EVERY_MEASURE(battle: Battle) -> None:  # noqa: N802
    measured = _measured(battle)
    page = _report(battle)
    charts = re.findall(r'<svg class="chart"[^>]*data-scope="([^"]*)" data-measure="([^"]*)"', page)
    drawn = {(html.unescape(a), html.unescape(b)) for a, b in charts}
    if not measured:
        raise battle.failed("measures gives no reading: the report has nothing to chart")
    if strays := sorted(drawn - measured):
        raise battle.failed(f"the report charts {strays}, which measures does not give")
    if missing := sorted(m for m in measured - drawn if m[0] != "unit"):
        raise battle.failed(f"the report draws no chart of {missing}")
    if not drawn:
        raise battle.failed(f"the report draws no chart of {sorted(measured)}")


@requirement(
    "`battlesim new` writes a scenario (the ruleset's template.yaml, else its first example) "
    "that validates and runs as written.",
    "Ship a template.yaml beside the ruleset's module that is a valid scenario of it as it "
    "stands ({name} is what new fills in), or none: new then copies the first example (and "
    "with neither, says so)",
    "Plugging in: the `battlesim.rulesets` entry-point group",
)
def NEW_WRITES_A_SCENARIO_THAT_RUNS(battle: Battle) -> None:  # noqa: N802
    made = _once_for_the_ruleset(battle, "new", lambda: _new_problem(battle))
    template = battle.in_family().memo.get(_TEMPLATE)
    if template is not None:  # said at the template's own file and line, not the scenario's
        raise RequirementFailed(template.what, scenario=template.scenario, line=template.line)
    if made:
        raise battle.failed(f"the scenario new writes does not run: {made}")


_TEMPLATE = "new: the template's problem"
"""The memo key of a template that does not validate (:func:`_template_problem`)."""


def _once_for_the_ruleset(
    battle: Battle, key: str, find: Callable[[], str], *, needs_a_battle: bool = True
) -> str:
    """What ``find`` says of the ruleset (``""``: nothing wrong), found once for the ruleset,
    not once a scenario, and (``needs_a_battle``) only once its own scenarios run, else not
    checked: a check that fights no scenario of theirs (odds) runs whatever they do."""
    if needs_a_battle:
        battle.loaded  # noqa: B018
    family = battle.in_family()
    found = family.memo.get(key)
    if found is None:
        found = family.memo[key] = find()
    return str(found)


def _new_problem(battle: Battle) -> str:
    """Why the scenario ``new`` writes does not run, or ``""``."""
    folder = battle.in_family().workdir / "new"
    folder.mkdir(parents=True, exist_ok=True)
    path, out = folder / "new_battle.yaml", folder / "new_battle.jsonl"
    wrote = battle.cli("new", battle.ruleset.name, path)
    if wrote.exit_code == 2 and "ships no template.yaml and no examples" in wrote.output:
        return ""  # new offers nothing to start from, and says so in its one line
    if wrote.exit_code != 0:
        return f"battlesim new {battle.ruleset.name}: {tool_problem(wrote)}"
    ran = battle.cli("run", path, "--out", out)
    if ran.exit_code == 0:
        return ""
    template = _template_problem(battle.ruleset.name, path.stem)
    if template is not None:
        battle.in_family().memo[_TEMPLATE] = template
        return template.message
    return f"its battlesim run: {tool_problem(ran)}"


def _template_problem(ruleset: str, stem: str) -> RequirementFailed | None:
    """The first problem of the scenario ``new`` writes (as ``STEM.yaml``) named as the scenario
    loader names it, at the file ``new`` copies (the ruleset's template.yaml, else its first
    example) and its own line there, not at the file written, which lies in the check's
    temporary folder two lines further down; None when it validates (its run failed otherwise).
    """
    from sim.scenario.catalog import template_scenario  # noqa: PLC0415
    from sim.scenario.load import ScenarioError, load_scenario_text  # noqa: PLC0415

    try:
        file, text = template_scenario(ruleset, stem)
        load_scenario_text(text, file)
    except ScenarioError as exc:
        if not exc.problems:
            return None
        first, *rest = exc.problems
        said = one_line(f"{first.field}: {first.message}" if first.field else first.message)
        more = f", with {count(len(rest), 'more problem', 'more problems')}" if rest else ""
        return RequirementFailed(
            f"{said} (battlesim new copies this file: the scenario it writes does not "
            f"validate{more})",
            scenario=first.file,
            line=first.line or None,
        )
    except Exception:  # a hook of the ruleset's raised: the run's own words say it
        return None
    return None


@requirement(
    "Every `battlesim odds` command the ruleset offers runs each example its --help shows, "
    "as text and with --json (a ruleset that offers none meets it).",
    "Make each OddsResolution's compute return an OddsResult (a tuple of one-line strings, and "
    "a dict of plain JSON) for the values of its examples, and raise OddsInputError, never "
    "another error, for values the rules refuse",
    "Exact odds: the `odds` hook",
)
def ODDS_EXAMPLES_RUN(battle: Battle) -> None:  # noqa: N802
    found = _once_for_the_ruleset(
        battle, "odds", lambda: _odds_problem(battle.ruleset), needs_a_battle=False
    )
    if found:
        raise battle.failed(found)


def _odds_problem(ruleset: Any) -> str:
    """The first example of the ruleset's odds commands that does not run, said; else ''."""
    import shlex  # noqa: PLC0415

    from click.testing import CliRunner  # noqa: PLC0415  # the CLI is the top layer

    from sim.cli.rulesets.odds import command  # noqa: PLC0415
    from sim.contract import HookError  # noqa: PLC0415

    for resolution in ruleset.odds:
        run = command(resolution, resolution.name, ruleset.name)
        for example in resolution.examples:
            for extra in ((), ("--json",)):
                args = [*shlex.split(example), *extra]
                said = f"battlesim odds {resolution.name} {' '.join(args)}"
                result = CliRunner().invoke(run, args)
                exc = result.exception
                if isinstance(exc, HookError):
                    return f"{said}: {exc}"
                if result.exit_code != 0:
                    return f"{said}: {tool_problem(result)}"
                if extra:
                    try:
                        data = json.loads(result.stdout)
                    except ValueError as bad:
                        return f"{said}: printed no JSON object ({bad})"
                    if not isinstance(data, dict):
                        return f"{said}: printed {type(data).__name__}, not a JSON object"
                elif not result.stdout.strip():
                    return f"{said}: printed nothing"
    return ""
