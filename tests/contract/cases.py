"""The contract suite's cases: every installed ruleset × its shipped scenarios, plus the toy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from sim.contract import get_ruleset, ruleset_names
from tests.contract.toy import SCENARIOS as TOY_SCENARIOS

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Case:
    """One scenario of one ruleset."""

    ruleset: str
    scenario: Path

    @property
    def id(self) -> str:
        """``ruleset-stem``."""
        return f"{self.ruleset}-{self.scenario.stem}"


def _ruleset_key(path: Path) -> str | None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    key = data.get("ruleset") if isinstance(data, dict) else None
    return key if isinstance(key, str) else None


def cases() -> list[Case]:
    """Scenarios in ``scenarios/`` by ``ruleset:`` key, each ruleset's ``examples``, the toy's.

    Every installed ruleset is listed; one with no scenario at all gets a
    case with no scenario, which fails (a ruleset must ship something to fight).
    """
    shipped = sorted((ROOT / "scenarios").glob("*.yaml"))
    found: list[Case] = []
    for name in ruleset_names():
        mine = [p for p in shipped if _ruleset_key(p) == name]
        mine += [Path(p) for p in get_ruleset(name).examples if Path(p) not in mine]
        found += [Case(name, p) for p in mine] or [Case(name, ROOT / "NO-SCENARIO.yaml")]
    found += [Case("pips", p) for p in TOY_SCENARIOS]
    return found


CASES = cases()
