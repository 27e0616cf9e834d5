"""What is installed and shipped: rulesets, scenarios, and new scenarios from a template.

``battlesim rulesets``, ``scenarios`` and ``new`` wrap these functions. A
ruleset offers a starting scenario by shipping ``template.yaml`` in its
package (beside the module its entry point names); ``{name}`` in it is
replaced by the new scenario's name. ``new`` writes the JSON Schema of every
installed ruleset beside it, so the editor's schema line works for a plugin
and outside a checkout.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import entry_points
from importlib.resources import files
from pathlib import Path
from typing import Any

from engine.safety.files import FileProblem, read_bounded
from engine.safety.text import CONTROL
from sim.contract import (
    BUILTIN,
    ENTRY_POINT_GROUP,
    get_ruleset,
    load_error,
    loaded_rulesets,
    ruleset_names,
)
from sim.contract.bases import NAME_LENGTH
from sim.outputs import check_output, write_text
from sim.scenario.load import ScenarioError, read_yaml
from sim.scenario.schema import SCHEMA_FILE, is_our_schema, schema_text

__all__ = [
    "FOLDER_SOURCE",
    "SCENARIOS",
    "CatalogError",
    "RulesetInfo",
    "ScenarioInfo",
    "SchemaWritten",
    "installed_rulesets",
    "listed_scenarios",
    "new_scenario",
    "ruleset_source",
    "shipped_scenarios",
    "template_scenario",
    "template_text",
    "write_schema",
]

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
"""The shipped scenarios (a source checkout or an editable install)."""


class CatalogError(Exception):
    """A ruleset with no template, or no shipped scenarios to list; the message says which."""


@dataclass(frozen=True)
class RulesetInfo:
    """One installed ruleset: its name, rules version, and where it comes from."""

    name: str
    version: str | None
    """None when it cannot be loaded (see ``error``)."""
    source: str
    """``built in`` or ``<distribution> <version>`` (an entry point of another package)."""
    target: str
    """``module:attribute`` of its :class:`~sim.contract.registry.Ruleset`."""
    error: str | None = None
    """Why it cannot be loaded (its import error, naming the entry point); None when it loads."""


def _target_and_source(name: str) -> tuple[str, str]:
    if name in BUILTIN:
        return BUILTIN[name], "built in"
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            dist = ep.dist
            return ep.value, f"{dist.name} {dist.version}" if dist else "entry point"
    raise LookupError(name)  # pragma: no cover - names come from ruleset_names()


def installed_rulesets() -> list[RulesetInfo]:
    """Every installed ruleset, sorted by name (each is imported to read its version).

    One that cannot be imported is listed too, with no version and its error.
    """
    out = []
    for name in ruleset_names():
        target, source = _target_and_source(name)
        error = load_error(name)
        version = None if error is not None else get_ruleset(name).version
        out.append(RulesetInfo(name, version, source, target, error))
    return out


@dataclass(frozen=True)
class ScenarioInfo:
    """One shipped scenario file, what it is and where it comes from."""

    file: str
    kind: str
    """A ruleset name, ``campaign``, ``study`` or ``calibration``."""
    name: str
    summary: str
    """The first sentence of its description (or its name)."""
    path: str
    """The file's full path."""
    source: str
    """``scenarios folder`` (the checkout's) or ``ruleset <name>`` (one of its examples)."""


_NOT_AN_END = frozenset(
    {"Gen", "Lt", "Col", "Maj", "Capt", "Brig", "St", "Mt", "vol", "No", "cf", "e.g", "i.e"}
)
"""Words a full stop follows without ending a sentence (besides a lone initial, "D. H. Hill")."""


def _first_sentence(text: str) -> str:
    """The description up to its first full stop that ends a sentence (not an initial's)."""
    flat = " ".join(text.split())
    for stop in re.finditer(r"\. ", flat):
        word = flat[: stop.start()].rsplit(" ", 1)[-1].lstrip("(")
        if not (len(word) == 1 and word.isupper()) and word not in _NOT_AN_END:
            return flat[: stop.start() + 1]
    return flat


def _describe(path: Path, source: str) -> ScenarioInfo:
    try:
        return _read(path, source)
    except ScenarioError as exc:
        return ScenarioInfo(path.name, "?", path.stem, f"unreadable: {exc}", str(path), source)


def _read(path: Path, source: str) -> ScenarioInfo:
    data, _ = read_yaml(path)
    data = data if isinstance(data, dict) else {}
    if "campaign" in data:
        kind, name = "campaign", str(data["campaign"])
    elif "targets" in data and "ruleset" not in data:
        kind, name = "calibration", str(data.get("name", path.stem))
    elif "scenario" in data and "ruleset" not in data:
        kind, name = "study", str(data.get("name", path.stem))
    else:
        kind, name = str(data.get("ruleset", "?")), str(data.get("name", path.stem))
    fallback = f"a {kind} of {data.get('scenario')}" if kind in ("study", "calibration") else name
    summary = _first_sentence(str(data.get("description") or fallback))
    return ScenarioInfo(path.name, kind, name, summary, str(path), source)


def shipped_scenarios(folder: Path = SCENARIOS) -> list[ScenarioInfo]:
    """The scenario, campaign and study files in ``folder``, sorted by file name.

    Raises:
        CatalogError: the folder is not there (battlesim installed without its sources).
    """
    if not folder.is_dir():
        raise CatalogError(f"no shipped scenarios here: {folder} is not a folder")
    return [_describe(path, FOLDER_SOURCE) for path in sorted(folder.glob("*.yaml"))]


FOLDER_SOURCE = "scenarios folder"
"""The :attr:`ScenarioInfo.source` of a file in the checkout's scenarios folder."""


def listed_scenarios(folder: Path = SCENARIOS) -> list[ScenarioInfo]:
    """The files of ``folder`` (when it exists), then each installed ruleset's ``examples``.

    Rulesets come in name order, each one's examples in its own order; a file
    already listed (the same resolved path) is not listed again.

    Raises:
        CatalogError: no folder and no ruleset ships examples: nothing to list.
    """
    out = shipped_scenarios(folder) if folder.is_dir() else []
    seen = {Path(s.path).resolve() for s in out}
    for ruleset in loaded_rulesets():
        name = ruleset.name
        for example in ruleset.examples:
            path = Path(example)
            if path.resolve() not in seen:
                seen.add(path.resolve())
                out.append(_describe(path, f"ruleset {name}"))
    if not out:
        raise CatalogError(
            f"no scenarios to list: {folder} is not a folder and no installed ruleset "
            "ships examples"
        )
    return out


def ruleset_source(name: str) -> str:
    """Where an installed ruleset comes from: ``built in`` or ``<distribution> <version>``."""
    return _target_and_source(name)[1]


def template_text(ruleset: str) -> str:
    """The ruleset's ``template.yaml``, else its first example scenario.

    Raises:
        CatalogError: the ruleset is unknown, or ships neither a template nor an example.
    """
    return _template(ruleset)[1]


def _template(ruleset: str) -> tuple[str, str]:
    """The file :func:`template_text` reads (its path, or the package resource's name) and
    its text."""
    try:
        found = get_ruleset(ruleset)
    except LookupError as exc:
        raise CatalogError(str(exc)) from None
    target, _ = _target_and_source(ruleset)
    module = import_module(target.partition(":")[0])
    package = module.__name__ if hasattr(module, "__path__") else module.__package__ or ""
    # a plugin that is one top-level module has no package to hold a template.yaml (files("")
    # raised ValueError: Empty module name): its examples are its templates
    resource = files(package).joinpath("template.yaml") if package else None
    if resource is not None and resource.is_file():
        return str(resource), resource.read_text(encoding="utf-8")
    for example in found.examples:
        if Path(example).is_file():
            return str(example), Path(example).read_text(encoding="utf-8")
    raise CatalogError(
        f"ruleset {ruleset!r} ships no template.yaml and no examples: start from a scenario"
    )


def _filled(text: str, name: str) -> str:
    """A template's text with ``{name}`` replaced by ``name``, as a quoted YAML string (no
    line is added or taken away)."""
    return text.replace("{name}", json.dumps(name, ensure_ascii=False))


def template_scenario(ruleset: str, stem: str) -> tuple[str, str]:
    """What ``battlesim new RULESET STEM.yaml`` writes, without the lines it puts on top,
    and the file it is copied from: ``(file, text)``, so that a problem of the text is
    named at the template's own file and line.

    Raises:
        CatalogError: the ruleset is unknown, or ships neither a template nor an example.
    """
    file, text = _template(ruleset)
    return file, _filled(text, _name_of(stem))


@dataclass(frozen=True)
class SchemaWritten:
    """What ``new`` did with the schema beside the scenario."""

    path: Path
    state: str
    """``written`` (new or refreshed), ``unchanged`` (already the same), or ``left`` (a
    file battlesim did not write has the name: it is never overwritten)."""

    @property
    def note(self) -> str | None:
        """The one line to tell the user when the schema was left, else None."""
        if self.state != "left":
            return None
        return (
            f"{self.path} was not written by battlesim: left as it is (the new file's schema "
            "line points at it; `battlesim schema -o FILE` writes the schema elsewhere)"
        )


def write_schema(folder: Path) -> SchemaWritten:
    """Write the schema of every installed ruleset to ``folder/scenario.schema.json``.

    A schema battlesim wrote there before (its title says so) is refreshed; a
    file battlesim did not write is left as it is. Written atomically.

    Raises:
        OSError: the schema cannot be written.
    """
    path = folder / SCHEMA_FILE
    text = schema_text()
    if path.exists() or path.is_symlink():
        if path.is_symlink():  # a link is the user's: never read through, never replaced
            return SchemaWritten(path, "left")
        try:  # a FIFO blocked `new` for ever, /dev/zero read without end: only a file is read
            old = read_bounded(path).decode("utf-8")
        except (FileProblem, OSError, UnicodeDecodeError):
            return SchemaWritten(path, "left")
        if not is_our_schema(old):
            return SchemaWritten(path, "left")
        if old == text:
            return SchemaWritten(path, "unchanged")
    write_text(path, text)
    return SchemaWritten(path, "written")


def _name_of(stem: str) -> str:
    """The scenario name a file's stem makes, readable ("_" and "-" as spaces, capitalised),
    without what no name may hold (a control character, a byte that is not UTF-8) and cut
    to a name's length: the file validates whatever it is called."""
    words = stem.replace("_", " ").replace("-", " ")
    kept = "".join(c for c in words if not CONTROL.match(c) and not "\ud800" <= c <= "\udfff")
    return kept.strip().capitalize()[:NAME_LENGTH].rstrip() or "New battle"


def new_scenario(ruleset: str, path: str | Path, *, force: bool = False) -> dict[str, Any]:
    """Write a commented, valid starting scenario of ``ruleset`` to ``path``.

    The name is the file's stem, made readable. The first line is the
    editor's schema comment, pointing at ``scenario.schema.json`` beside the
    file: the schema of every installed ruleset, written (or refreshed) there
    by :func:`write_schema`. The result has ``file``, ``ruleset``, ``name``,
    ``schema`` (its path), ``schema_state`` (see :class:`SchemaWritten`) and
    ``note`` (a line for the user, or None).

    Raises:
        CatalogError: unknown ruleset or no template.
        OutputError: ``path`` cannot be written or exists (without ``force``).
        OSError: the scenario or the schema cannot be written.
    """
    p = Path(path)
    text = template_text(ruleset)
    if p.name == SCHEMA_FILE:
        raise CatalogError(f"{p}: that name is the schema's, which new writes beside the file")
    check_output(p, option="NAME.yaml", force=force)
    name = _name_of(p.stem)
    schema = write_schema(p.parent)
    line = f"# yaml-language-server: $schema={SCHEMA_FILE}\n"
    body = line + "#\n" + _filled(text, name)
    write_text(p, body)
    return {
        "file": str(p),
        "ruleset": ruleset,
        "name": name,
        "schema": str(schema.path),
        "schema_state": schema.state,
        "note": schema.note,
    }
