"""The suite: every requirement, the scenarios a ruleset is checked on, and the run of both."""

from __future__ import annotations

import dataclasses
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.safety.files import missing
from sim.conformance import (
    checks_draws,
    checks_rows,
    checks_run,
    checks_show,
    checks_state,
    checks_tools,
)
from sim.conformance.battle import Battle, Family
from sim.conformance.requirement import NotChecked, Requirement, RequirementFailed
from sim.contract import BUILTIN, AnyRuleset, HookError
from sim.contract.ruleset import raised_at
from sim.scenario.load import ScenarioError, load_scenario, read_yaml

__all__ = [
    "REQUIREMENTS",
    "SuiteInputError",
    "Verdict",
    "check",
    "run_suite",
    "scenarios_for",
]

REQUIREMENTS: tuple[Requirement, ...] = (
    checks_run.SHIPS_A_SCENARIO,
    checks_run.SCENARIO_RUNS,
    checks_run.EVENTS_ARE_REGISTERED,
    checks_run.RUN_PRINTS_HEADLINE,
    checks_run.EVENT_LINES_VALIDATE,
    checks_run.RUN_IS_DETERMINISTIC,
    checks_run.SAME_BYTES_IN_OTHER_PROCESSES,
    checks_run.VERIFY_ACCEPTS_REPLAY,
    checks_run.BATTLE_LASTS_TWO_TURNS,
    checks_run.OUTCOME_NAMES_EVERY_SIDE,
    checks_draws.DRAWS_ARE_THE_STREAMS,
    checks_state.FOLD_EQUALS_LIVE,
    checks_state.DIGEST_IS_SNAPSHOT_DIGEST,
    checks_state.SNAPSHOT_JSON_IS_CANONICAL,
    checks_state.ONE_PROCESS_PER_UNIT,
    checks_state.RESTORE_INVERTS_SNAPSHOT,
    checks_state.SNAPSHOT_START_EQUALS_FOLD,
    checks_rows.ROWS_ARE_VALIDATED,
    checks_rows.ROWS_FOLLOW_THE_STATE,
    checks_rows.STATUS_WORDS_ARE_DECLARED,
    checks_rows.STRENGTH_FOLLOWS_LOSSES,
    checks_show.SHOW_PRINTS_STATE_TABLE,
    checks_show.SHOW_UNIT_EVERY_KIND,
    checks_show.SHOW_EVENTS_EVERY_KIND,
    checks_show.EVENTS_RECORD_CAUSES,
    checks_show.WHY_WALKS_TO_FIRST_CAUSE,
    checks_tools.DIFF_WITH_ITSELF,
    checks_tools.DIFF_ANOTHER_SEED,
    checks_tools.FORK_CHANGES_AN_EVENT,
    checks_tools.FORK_REFUSES_DERIVED_FIELDS,
    checks_tools.BATCH_RUNS,
    checks_tools.CARRY_OVER_FIGHTS_ON,
    checks_tools.REPORT_PAGE,
    checks_tools.REPORT_CHARTS_EVERY_MEASURE,
    checks_tools.NEW_WRITES_A_SCENARIO_THAT_RUNS,
    checks_tools.ODDS_EXAMPLES_RUN,
    checks_run.REGISTRY_STATES_ITS_FIRST_FORMAT,
)
"""Every requirement of the contract, in the order they are checked."""


class SuiteInputError(ValueError):
    """A scenario the suite cannot take: missing, unreadable, or another ruleset's."""


def _ruleset_key(path: Path, flag: str = "") -> str | None:
    """The ``ruleset:`` key of a YAML file, or None (a campaign, a study, no mapping).

    Raises:
        SuiteInputError: a file that is not YAML, located as ``run`` locates it
            (``{flag}bad.yaml:2: not valid YAML: …``).
    """
    try:
        data, _ = read_yaml(path)
    except ScenarioError as exc:
        said = str(exc.problems[0]) if exc.problems else f"{path}: unreadable"
        raise SuiteInputError(f"{flag}{said}") from None
    key = data.get("ruleset") if isinstance(data, dict) else None
    return key if isinstance(key, str) else None


def _not_a_scenario(path: Path) -> str:
    """Why a YAML file with no ``ruleset:`` key is no scenario: the kind of battlesim file
    it is and what to do with it (as ``run`` says), or that it names no ruleset."""
    from sim.scenario.load import KINDS, kind_of  # noqa: PLC0415

    data, _ = read_yaml(path)
    found = kind_of(data)
    if found is None or found == "scenario":
        return "no 'ruleset:' key: not a scenario of any ruleset"
    what, todo = KINDS[found]
    return f"not a scenario: this is {what}: {todo}"


def _invalid(path: Path) -> str | None:
    """Why a scenario file of the ruleset fails validation (its model, ``cross_check``,
    ``file_check``), located as ``run`` locates it: the first problem, with how many more
    ``battlesim validate`` lists; None when it validates.

    A hook of the ruleset's that raises is no bad input: the file is left to
    ``scenario-runs``, which names the hook as a finding against the ruleset.
    """
    try:
        load_scenario(path)
    except ScenarioError as exc:
        if not exc.problems:
            return f"{path}: not a valid scenario"
        first, *rest = exc.problems
        more = f" (and {len(rest)} more: 'battlesim validate {path}' lists them)" if rest else ""
        return f"{first}{more}"
    except Exception:  # a hook of the ruleset raised: scenario-runs reports it, a finding
        return None
    return None


def scenarios_for(
    ruleset: AnyRuleset, extra: Sequence[str | Path] = (), folder: Path | None = None
) -> list[Path]:
    """The scenarios ``ruleset`` is checked on, each once, in this order:

    for a built-in ruleset, the files of a source checkout's ``scenarios/``
    folder (``folder``; default :data:`sim.scenario.catalog.SCENARIOS`) with its
    ``ruleset:`` key, when the folder exists; then its ``examples``; then
    ``extra`` (``--scenario FILE``).

    Raises:
        SuiteInputError: an ``extra`` file that does not exist, is no valid scenario (bad
            input, exit 2, as ``run`` says it) or names another ruleset.
    """
    from sim.scenario.catalog import SCENARIOS  # noqa: PLC0415  # a source checkout's folder

    folder = SCENARIOS if folder is None else folder
    found: list[Path] = []
    if ruleset.name in BUILTIN and folder.is_dir():
        found += [p for p in sorted(folder.glob("*.yaml")) if _ruleset_key(p) == ruleset.name]
    found += [Path(p) for p in ruleset.examples]
    for given in map(Path, extra):
        if given.is_dir():
            raise SuiteInputError(f"--scenario {given}: a folder, not a scenario file")
        if not given.exists():  # a FIFO or a device is there: read_yaml names it below
            raise SuiteInputError(f"--scenario {given}: {missing(given)}")
        key = _ruleset_key(given, "--scenario ")
        if key is None:  # a campaign, a study, a case: said as every command says it
            raise SuiteInputError(f"--scenario {given}: {_not_a_scenario(given)}")
        if key != ruleset.name:
            raise SuiteInputError(
                f"--scenario {given}: a scenario of ruleset {key!r}, not {ruleset.name!r}"
            )
        said = _invalid(given)
        if said is not None:
            raise SuiteInputError(f"--scenario {said}")
        found.append(given)
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


@dataclass(frozen=True)
class Verdict:
    """One requirement checked on every scenario: met, failed, or not checked."""

    requirement: Requirement
    status: str
    """``met``, ``failed`` or ``not checked``."""
    message: str | None = None
    scenario: str | None = None
    extra: str | None = None
    """Not checked for want of this optional extra of battlesim's: no finding against the
    ruleset (``check-ruleset`` still exits 0 when nothing else is amiss)."""
    after: str | None = None
    """An earlier requirement that failed and that this one stands on (:data:`STANDS_ON`):
    its failure may be that one's alone, so the hint says to meet that one first."""

    @property
    def hint(self) -> str:
        """How to meet it: the requirement's hint, or, when a hook of the ruleset raised or
        returned what it may not (:class:`~sim.contract.HookError`'s words in the message),
        that hook first: the requirement failed because of it, not of what it checks."""
        found = _HOOK.search(self.message or "")
        if found is None and self.after is not None:
            return (
                f"meet {self.after} first, which failed: this requirement stands on it and may "
                f"have failed for that alone; then, if it still fails: {self.requirement.hint}"
            )
        if found is None:
            return self.requirement.hint
        return (
            f"fix the ruleset's {found[1]} first: it {found[2]} where the message says, and "
            "this requirement could not be judged past it"
        )

    def as_json(self) -> dict[str, Any]:
        """The verdict for ``--json``: id, statement, status, message, hint, scenario."""
        r = self.requirement
        return {
            "id": r.id,
            "statement": r.statement,
            "status": self.status,
            "message": self.message,
            "hint": self.hint,
            "scenario": self.scenario,
            "needs_extra": self.extra,
        }


_REFOUGHT = (
    "same-bytes-in-other-processes",
    "verify-accepts-replay",
    "draws-are-the-streams",
    "fold-equals-live",
    "digest-is-snapshot-digest",
    "one-process-per-unit",
    "batch-runs",
    "fork-changes-an-event",
)
"""The requirements that fight a battle again and compare it with the first fight."""

_FOLDED = (
    "restore-inverts-snapshot",
    "snapshot-start-equals-fold",
    "rows-follow-the-state",
    "show-prints-state-table",
    "show-unit-every-kind",
)
"""The requirements that read the state the events fold to, or the snapshots of it (``show``
folds the replay's events)."""

_READ_BACK = ("draws-are-the-streams", "fold-equals-live", "digest-is-snapshot-digest")
"""The requirements that read the replay's events back as they were recorded."""


def _stands_on(rid: str) -> tuple[str, ...]:
    under = ("run-is-deterministic",) if rid in _REFOUGHT else ()
    if rid in _READ_BACK:
        under = (*under, "event-lines-validate")
    if rid in _FOLDED:
        under = (*under, "fold-equals-live", "digest-is-snapshot-digest")
    return under


STANDS_ON: dict[str, tuple[str, ...]] = {
    rid: _stands_on(rid) for rid in dict.fromkeys((*_REFOUGHT, *_READ_BACK, *_FOLDED))
}
"""Each requirement's earlier requirements whose failure alone can fail it: a battle that
is not fought the same twice fails every comparison with a second fight; an event changed
after its line was written (an ``apply`` that keeps the event's list) reads back as other
draws and another state; and state changed outside ``apply`` fails every comparison of the
fold's state. Their own hints blamed ``hash()``, a value of the ruleset's own for a draw, or
``restore`` for a module-level ``random``, a kept list or a rule that wrote the state."""

_HOOK = re.compile(r"ruleset '[^']*': (\w+) (raised|returned) ")
""":class:`~sim.contract.HookError`'s words: the hook, and what it did."""

_PLACE = re.compile(
    r" \(at (?P<at>[^()]+:\d+)\)"
    r"| \(the hook is .*?, at (?P<defined>[^()]+:\d+): give it the parameters the contract "
    r"calls it with, docs/rulesets\.md 'The contract'\)"
)
"""Where a hook raised (:func:`~sim.contract.ruleset.raised_at`), or where a hook whose
parameters are not the contract's is defined, as :class:`~sim.contract.HookError` says it."""

_REPLAY_PLACE = re.compile(r" at [^ ]+:\d+ \(seq \d+\)")
"""The replay line a hook was called for (``at battle.jsonl:16 (seq 14)``), which differs from
one requirement to the next for the same fault."""


@dataclass(frozen=True)
class _HookFailure:
    """A hook of the ruleset that raised, or returned what it may not, found in a failure's
    message: ``key`` is the same for the same fault whichever requirement met it."""

    key: tuple[str, ...]
    short: str
    """``ruleset 'x': units raised KeyError (at pkg/__init__.py:12)``."""


def _hook_failure(message: str | None) -> _HookFailure | None:
    """The hook failure a failed requirement's message reports, or None."""
    found = re.search(
        r"ruleset '(?P<rs>[^']*)': (?P<hook>\w+) (?P<verb>raised|returned) (?P<rest>.*)",
        message or "",
    )
    if found is None:
        return None
    rs, hook, verb, rest = found["rs"], found["hook"], found["verb"], found["rest"]
    places = list(_PLACE.finditer(rest))
    place = (places[-1]["at"] or places[-1]["defined"]) if places else None
    if verb == "raised":
        what = rest.partition(":")[0]  # the exception's type
    else:  # what it returned, up to where it was called for and why that is wrong
        what = re.split(r" at |, ", _REPLAY_PLACE.sub("", rest), maxsplit=1)[0]
    at = f" (at {place})" if place is not None else ""
    # a raise is one fault where it was raised, whatever its words (a seq, a unit's id)
    same = place if place is not None else _REPLAY_PLACE.sub("", rest)
    return _HookFailure((rs, hook, verb, same), f"ruleset {rs!r}: {hook} {verb} {what}{at}")


def _crash(battle: Battle, exc: Exception) -> str:
    """A check's unexpected error as one line, with the innermost place it was raised."""
    if isinstance(exc, HookError):  # says the hook and where it raised already
        return f"{battle.name}: {exc}"
    return f"{battle.name}: {type(exc).__name__}: {exc}{raised_at(exc)}"


def check(requirement: Requirement, battles: Sequence[Battle]) -> Verdict:
    """Check one requirement on every battle; the first failure is its verdict."""
    skipped: tuple[str, str, str | None] | None = None
    for battle in battles:
        try:
            requirement.check(battle)
        except RequirementFailed as exc:
            return Verdict(requirement, "failed", exc.message, exc.scenario)
        except NotChecked as exc:  # the ruleset's own cause outweighs a missing extra
            if skipped is None or (skipped[2] is not None and exc.extra is None):
                skipped = (str(exc), battle.name, exc.extra)
        except Exception as exc:  # the ruleset's own error is the finding
            return Verdict(requirement, "failed", _crash(battle, exc), battle.name)
    if skipped is not None:
        return Verdict(requirement, "not checked", skipped[0], skipped[1], skipped[2])
    return Verdict(requirement, "met")


def run_suite(
    ruleset: AnyRuleset,
    scenarios: Sequence[Path],
    requirements: Sequence[Requirement] = REQUIREMENTS,
    *,
    exitfirst: bool = False,
    progress: Callable[[str], None] = lambda _: None,
    verdict: Callable[[Verdict], None] = lambda _: None,
) -> list[Verdict]:
    """Check ``requirements`` on ``ruleset`` fighting each of ``scenarios`` once.

    Everything is written under a temporary folder, removed at the end.
    ``progress`` hears what is being done, ``verdict`` each requirement's
    verdict as it is reached; ``exitfirst`` stops after the first one not met.
    """
    verdicts: list[Verdict] = []
    with tempfile.TemporaryDirectory(prefix="battlesim-check-") as tmp:
        family = Family(tuple(scenarios), Path(tmp) / "family")
        battles = [
            Battle(ruleset, path, Path(tmp) / f"{k}-{path.stem}", family)
            for k, path in enumerate(scenarios)
        ] or [Battle(ruleset, None, Path(tmp) / "none")]
        for battle in battles:
            battle.workdir.mkdir()
            if battle.scenario is not None:
                progress(f"fighting {battle.name}")
                battle.fight  # noqa: B018  # fought once, up front
        failed: set[str] = set()
        hooks: dict[tuple[str, ...], str] = {}  # a hook's failure -> one line, said once
        for k, req in enumerate(requirements, 1):
            progress(f"checking {req.id} ({k}/{len(requirements)})")
            found = check(req, battles)
            hooked = _hook_failure(found.message) if found.status == "failed" else None
            if hooked is not None and hooked.key in hooks:  # said once, in full, already
                found = Verdict(req, "not checked", hooks[hooked.key], found.scenario)
            elif hooked is not None:
                hooks[hooked.key] = f"{hooked.short}, as {req.id} says: fix that hook first"
            if found.status == "failed":
                under = next((r for r in STANDS_ON.get(req.id, ()) if r in failed), None)
                if under is not None:
                    found = dataclasses.replace(found, after=under)
                failed.add(req.id)
            verdicts.append(found)
            verdict(verdicts[-1])
            if exitfirst and verdicts[-1].status != "met":
                break
    return verdicts
