"""A battle's replay header: made for a scenario and seed, and a battle fought again from one.

The header is line 1 of every replay: it carries the canonical scenario,
the seed and the digests that make a battle re-simulable.  Every reader
(:mod:`sim.replay.file`, :mod:`sim.replay.memory`), ``verify`` and ``fork``
start from :func:`header_scenario`; :func:`simulate_into` fights the
header's battle again with today's code.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from engine.canonical import digest
from engine.events import EventRegistry
from engine.log import Header, MemorySink, Sink
from engine.replayfile.formats import resimulation_format
from engine.replayfile.reader import ReplayError
from engine.safety.text import CONTROL
from engine.version import ENGINE_VERSION, FORMAT_VERSION
from sim.contract import AnyRuleset, HookError, get_ruleset
from sim.contract.options import VERSION_KEY

__all__ = [
    "UNFOLDABLE",
    "file_label",
    "fought_under",
    "header_scenario",
    "make_header",
    "registry_for",
    "simulate_into",
    "simulate_lines",
]

UNFOLDABLE = (KeyError, IndexError, ValueError, TypeError, AttributeError, ArithmeticError)
"""What a ruleset's apply or audit raises on an event naming a unit, hex or index not there."""


def file_label(name: str) -> str:
    """A file name as a replay holds it (``source``, a fork's ``parent``): valid text.

    A name's bytes that are not UTF-8 (read by Python as lone surrogates,
    ``b"\\xff"`` → ``"\\udcff"``) and control characters, which no replay may
    hold, become U+FFFD; any other name is kept as it is.
    """
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return CONTROL.sub("\ufffd", text)


def make_header(
    ruleset: AnyRuleset,
    scenario: BaseModel,
    seed: int,
    source: str | None = None,
    format_version: int = FORMAT_VERSION,
    ruleset_version: str | None = None,
) -> Header:
    """The replay header for a scenario and seed (canonical scenario, digests).

    ``format_version`` is today's for a new battle; a battle fought again
    (verify, fork, a resumed study) keeps the dice of the format it began in
    (:func:`engine.replayfile.formats.resimulation_format`), and the rules version it was
    fought under (``ruleset_version``, one the ruleset :meth:`~sim.contract.Ruleset.fights`;
    default: today's), for which its scenario is written.
    """
    version = ruleset_version if ruleset_version is not None else ruleset.version
    canonical = scenario.model_dump(mode="json", context={VERSION_KEY: version})
    return Header(
        format_version=format_version,
        engine_version=ENGINE_VERSION,
        ruleset=ruleset.name,
        ruleset_version=version,
        seed=seed,
        scenario=canonical,
        scenario_digest=digest(canonical),
        rules_digest=digest(ruleset.rules_data()),
        source=file_label(source) if source is not None else None,
    )


def header_scenario(header: Header, path: str) -> tuple[AnyRuleset, Any]:
    """The header's ruleset and scenario, validated as a scenario file would be.

    Raises:
        ReplayError: at line 1, when the header's scenario does not validate.
    """
    try:
        ruleset = get_ruleset(header.ruleset)
        context = {VERSION_KEY: fought_under(ruleset, header)}
        scenario = ruleset.scenario_model.model_validate(header.scenario, context=context)
    except LookupError as exc:
        raise ReplayError(path, 1, str(exc)) from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ReplayError(path, 1, f"header scenario is invalid: {where}: {err['msg']}") from None
    problems = ruleset.cross_check(scenario)
    if problems:
        field, message = problems[0]
        where = ".".join(str(p) for p in field)
        raise ReplayError(path, 1, f"header scenario is invalid: {where}: {message}")
    return ruleset, scenario


def fought_under(ruleset: AnyRuleset, header: Header) -> str:
    """The rules version to read and fight a header's battle under.

    The header's own when the ruleset still fights it, else today's (a
    version the ruleset does not know is fought under today's rules, so its
    header, written again, differs at line 1).
    """
    v = header.ruleset_version
    return v if ruleset.fights(v) else ruleset.version


def simulate_into(header: Header, sink: Sink, path: str = "<header>") -> Any:
    """Re-simulate a replay's header into ``sink``; return the final state.

    Raises:
        ReplayError: the header's scenario does not validate, or its fork
            cannot be applied (a forged change: an unknown field, a negative count).
    """
    ruleset, scenario = header_scenario(header, path)
    again = resimulation_format(header.format_version)  # its own dice
    version = fought_under(ruleset, header)
    fresh = make_header(
        ruleset, scenario, header.seed, header.source, again, ruleset_version=version
    ).model_copy(update={"fork": header.fork})
    try:
        return ruleset.simulate(scenario, fresh, sink)
    except UNFOLDABLE as exc:  # SimPy re-raises a process's error, sometimes as a TypeError
        if header.fork is None:  # nothing of the file's changes the battle: the rules raised
            raise HookError.raised(ruleset.name, "fighting the battle again", exc) from exc
        raise ReplayError(path, 1, f"the header's fork cannot be re-simulated: {exc}") from None


def simulate_lines(header: Header, path: str = "<header>") -> list[str]:
    """Re-simulate a replay's header in memory; return the lines it writes (small battles).

    Raises:
        ReplayError: as :func:`simulate_into`.
    """
    sink = MemorySink()
    simulate_into(header, sink, path)
    return sink.lines


def registry_for(header: Header) -> EventRegistry:
    return get_ruleset(header.ruleset).registry
