"""What is installed and shipped: rulesets, scenarios, and new scenarios from a template.

``battlesim rulesets``, ``scenarios`` and ``new`` wrap these functions. A
ruleset offers a starting scenario by shipping ``template.yaml`` in its
package (beside the module its entry point names); ``{name}`` in it is
replaced by the new scenario's name.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import entry_points
from importlib.resources import files
from pathlib import Path
from typing import Any

from sim.contract import BUILTIN, ENTRY_POINT_GROUP, get_ruleset, ruleset_names
from sim.outputs import check_output, write_text
from sim.scenario.load import ScenarioError, read_yaml

__all__ = [
    "SCENARIOS",
    "CatalogError",
    "RulesetInfo",
    "ScenarioInfo",
    "installed_rulesets",
    "new_scenario",
    "shipped_scenarios",
    "template_text",
]

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
"""The shipped scenarios (a source checkout or an editable install)."""

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "scenario.schema.json"
"""The committed JSON Schema of scenario files (``battlesim schema``)."""


class CatalogError(Exception):
    """A ruleset with no template, or no shipped scenarios to list; the message says which."""


@dataclass(frozen=True)
class RulesetInfo:
    """One installed ruleset: its name, rules version, and where it comes from."""

    name: str
    version: str
    source: str
    """``built in`` or ``<distribution> <version>`` (an entry point of another package)."""
    target: str
    """``module:attribute`` of its :class:`~sim.contract.registry.Ruleset`."""


def _target_and_source(name: str) -> tuple[str, str]:
    if name in BUILTIN:
        return BUILTIN[name], "built in"
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            dist = ep.dist
            return ep.value, f"{dist.name} {dist.version}" if dist else "entry point"
    raise LookupError(name)  # pragma: no cover - names come from ruleset_names()


def installed_rulesets() -> list[RulesetInfo]:
    """Every installed ruleset, sorted by name (each is imported to read its version)."""
    out = []
    for name in ruleset_names():
        target, source = _target_and_source(name)
        out.append(RulesetInfo(name, get_ruleset(name).version, source, target))
    return out


@dataclass(frozen=True)
class ScenarioInfo:
    """One shipped scenario file and what it is."""

    file: str
    kind: str
    """A ruleset name, ``campaign`` or ``study``."""
    name: str
    summary: str
    """The first sentence of its description (or its name)."""


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]


def _describe(path: Path) -> ScenarioInfo:
    data, _ = read_yaml(path)
    data = data if isinstance(data, dict) else {}
    if "campaign" in data:
        kind, name = "campaign", str(data["campaign"])
    elif "scenario" in data and "ruleset" not in data:
        kind, name = "study", str(data.get("name", path.stem))
    else:
        kind, name = str(data.get("ruleset", "?")), str(data.get("name", path.stem))
    fallback = f"a study of {data['scenario']}" if kind == "study" else name
    summary = _first_sentence(str(data.get("description") or fallback))
    return ScenarioInfo(path.name, kind, name, summary)


def shipped_scenarios(folder: Path = SCENARIOS) -> list[ScenarioInfo]:
    """The scenario, campaign and study files in ``folder``, sorted by file name.

    Raises:
        CatalogError: the folder is not there (battlesim installed without its sources).
    """
    if not folder.is_dir():
        raise CatalogError(f"no shipped scenarios here: {folder} is not a folder")
    out = []
    for path in sorted(folder.glob("*.yaml")):
        try:
            out.append(_describe(path))
        except ScenarioError as exc:
            out.append(ScenarioInfo(path.name, "?", path.stem, f"unreadable: {exc}"))
    return out


def template_text(ruleset: str) -> str:
    """The ruleset's ``template.yaml``.

    Raises:
        CatalogError: the ruleset is unknown or ships no template.
    """
    try:
        get_ruleset(ruleset)
    except LookupError as exc:
        raise CatalogError(str(exc)) from None
    target, _ = _target_and_source(ruleset)
    module = import_module(target.partition(":")[0])
    package = module.__name__ if hasattr(module, "__path__") else module.__package__ or ""
    resource = files(package).joinpath("template.yaml")
    if not resource.is_file():
        raise CatalogError(f"ruleset {ruleset!r} ships no template.yaml: start from a scenario")
    return resource.read_text(encoding="utf-8")


def _schema_line(path: Path) -> str:
    """The editor's schema comment, pointing at the committed schema from ``path``'s folder."""
    if SCHEMA.is_file():
        where = Path(os.path.relpath(SCHEMA, path.resolve().parent)).as_posix()
    else:  # pragma: no cover - installed without the docs: `battlesim schema -o` makes one
        where = "scenario.schema.json"
    return f"# yaml-language-server: $schema={where}\n"


def new_scenario(ruleset: str, path: str | Path, *, force: bool = False) -> dict[str, Any]:
    """Write a commented, valid starting scenario of ``ruleset`` to ``path``.

    The name is the file's stem, made readable; the first line is the
    editor's schema comment.

    Raises:
        CatalogError: unknown ruleset or no template.
        OutputError: ``path`` cannot be written or exists (without ``force``).
    """
    p = Path(path)
    text = template_text(ruleset)
    check_output(p, option="NAME.yaml", force=force)
    name = p.stem.replace("_", " ").replace("-", " ").strip().capitalize() or "New battle"
    body = _schema_line(p) + "#\n" + text.replace("{name}", json.dumps(name, ensure_ascii=False))
    write_text(p, body)
    return {"file": str(p), "ruleset": ruleset, "name": name}
