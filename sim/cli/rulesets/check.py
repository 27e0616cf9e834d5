"""``battlesim check-ruleset``: the ruleset contract's requirements (:mod:`sim.conformance`)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sim.cli import common

if TYPE_CHECKING:
    from sim.conformance import Verdict

__all__ = ["check_ruleset"]

# The command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


def _line(v: Verdict) -> str:
    """One line: ``met  ID: statement`` or ``FAILED  ID: message — how to meet it: hint``."""
    r = v.requirement
    if v.status == "met":
        return f"met          {r.id}: {r.statement}"
    if v.status == "failed":
        return f"FAILED       {r.id}: {v.message} — how to meet it: {v.hint}"
    return f"not checked  {r.id}: {v.message}"


def _unchecked(verdicts: list[Verdict]) -> list[str]:
    """The verdicts not checked, one line for each cause: ``not checked  N requirements (ids):
    cause`` (a scenario that did not run is one line, not one per requirement standing on it)."""
    by_cause: dict[str | None, list[str]] = {}
    for v in verdicts:
        if v.status == "not checked":
            by_cause.setdefault(v.message, []).append(v.requirement.id)
    lines = []
    for cause, ids in by_cause.items():
        if len(ids) == 1:
            lines.append(f"not checked  {ids[0]}: {cause}")
        else:
            lines.append(f"not checked  {len(ids)} requirements ({', '.join(ids)}): {cause}")
    return lines


def _is_moved(w: warnings.WarningMessage) -> bool:
    """``sim._moved``'s warning of an old module path."""
    return issubclass(w.category, DeprecationWarning) and " has moved to " in str(w.message)


def _moved_imports(caught: list[warnings.WarningMessage]) -> list[str]:
    """What the ruleset's import said of old module paths (``sim._moved``'s warnings),
    each with where: the paths go in battlesim 0.4, so a plugin author should hear of
    them here, where Python's default filters would hide them."""
    return [
        f"{w.message} ({Path(w.filename).parent.name}/{Path(w.filename).name}:{w.lineno})"
        for w in caught
        if _is_moved(w)
    ]


def _summary(verdicts: list[Verdict]) -> str:
    """``N passed, N failed`` (and ``, N not checked`` when some were not)."""
    counts = {s: sum(v.status == s for v in verdicts) for s in ("met", "failed", "not checked")}
    text = f"{counts['met']} passed, {counts['failed']} failed"
    return text + (f", {counts['not checked']} not checked" if counts["not checked"] else "")


@click.command("check-ruleset", cls=common.Command)
@click.argument("name")
@click.option(
    "--scenario",
    "scenarios",
    multiple=True,
    metavar="FILE",
    help="Also check on this scenario of the ruleset (repeatable).",
)
@common.json_option("Print one JSON object: every requirement with its status, message and hint.")
@click.option("-x", "--exitfirst", is_flag=True, help="Stop at the first requirement not met.")
@click.option(
    "--only",
    multiple=True,
    metavar="ID",
    help="Check only this requirement (repeatable; ids as docs/rulesets.md lists them).",
)
def check_ruleset(
    name: str, scenarios: tuple[str, ...], as_json: bool, exitfirst: bool, only: tuple[str, ...]
) -> None:
    """Check that ruleset NAME meets the contract on its scenarios.

    Every tool (run, verify, show, why, diff, fork, batch, report) is run on
    each of the ruleset's examples, plus each --scenario FILE, and every
    requirement is printed met or FAILED, with how to meet it; those that
    could not be checked follow, one line for each cause (a scenario that
    does not run, a hook of the ruleset's whose failure an earlier requirement
    reported). Exit 0 when all are met (or could not be checked only for
    want of an optional extra of battlesim's, such as the study extra for
    batch), 1 when one is not, 2 for bad input.

    \b
    Example:
      battlesim check-ruleset musket --scenario my_battle.yaml --only scenario-runs
    """
    from sim.conformance import REQUIREMENTS, SuiteInputError, run_suite, scenarios_for
    from sim.contract import RulesetUnavailable, get_ruleset
    from sim.text.suggest import did_you_mean

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DeprecationWarning)
            ruleset = get_ruleset(name)
    except RulesetUnavailable as exc:  # broken: where its import failed, for its author
        common.fail(exc.located)
    except LookupError as exc:  # not installed (the registry says what a package may have
        common.fail(str(exc))  # meant: a misspelt group, another entry-point name)
    moved = _moved_imports(caught)
    for w in caught:  # every other warning of the import is shown too
        if not _is_moved(w):
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    for line in moved:
        click.echo(f"battlesim: note: ruleset {name!r} imports an old module path: {line}",
                   err=True)  # fmt: skip
    ids = [r.id for r in REQUIREMENTS]
    for wanted in only:
        if wanted not in ids:
            hint = did_you_mean(wanted, ids) or f"; the requirements: {', '.join(ids)}"
            common.fail(f"--only {wanted}: no such requirement{hint}")
    try:
        files = scenarios_for(ruleset, [Path(s) for s in scenarios])
    except SuiteInputError as exc:
        common.fail(str(exc))
    chosen = [r for r in REQUIREMENTS if not only or r.id in only]
    verdicts = run_suite(
        ruleset,
        files,
        chosen,
        exitfirst=exitfirst,
        progress=lambda text: click.echo(f"check-ruleset {name}: {text}", err=True),
        verdict=lambda v: None if as_json or v.status == "not checked" else click.echo(_line(v)),
    )
    # a requirement not checked only for want of an optional extra is no finding
    ok = all(v.status == "met" or v.extra is not None for v in verdicts)
    if as_json:
        common.echo_json(
            {
                "ruleset": name,
                "scenarios": [str(f) for f in files],
                "requirements": [v.as_json() for v in verdicts],
                "passed": sum(v.status == "met" for v in verdicts),
                "failed": sum(v.status == "failed" for v in verdicts),
                "not_checked": sum(v.status == "not checked" for v in verdicts),
                "moved_imports": moved,
                "ok": ok,
            }
        )
    else:
        for line in _unchecked(verdicts):
            click.echo(line)
        click.echo(_summary(verdicts))
    sys.exit(0 if ok else 1)
