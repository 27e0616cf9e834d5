"""How the shipped musket battles are fought, over many runs: the conduct figures of
docs/rules/musket.md (*Conduct over 200 runs*).

    .venv/bin/python tests/sim/musket_conduct.py [--runs 200] [--set option=value ...]
        [--fitting] [scenario-or-campaign.yaml ...]

For each file (default: every shipped musket scenario and campaign, read from the
``scenarios`` folder: :func:`shipped`; with ``--fitting``, less the scenarios the
held-out cases fight, so that a fitting protocol reads nothing held out), it fights
``--runs`` replications on the seeds a batch study or ``battlesim history`` uses
(``run_seed(<the file's seed>, 0, r)``), one process, and prints per battle: who
won; the share of runs in which some infantry or cavalry unit was shot to nothing
(strength 0 on the field, not by leaving it: the conduct target is at most 5 %);
in which some battery was shot out or captured; in which any melee was fought;
how many melees the attacker won; and the mean length in turns. ``--set`` changes
an option for every battle (``--set rout_loss=0.3``), as a sweep does, or, with a dot,
any scenario path (``--set map.terrain.0.cover=-20``, a study's factor). ``--check``
exits 1 if a battle misses issue 30's conduct targets (:func:`misses`), naming it; the
long test ``tests/sim/test_conduct_target.py`` (``make test-long``) runs that check.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import re
import sys
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from sim.batch.execution.worker import fight, prepare  # noqa: E402
from sim.batch.inputs.seeds import run_seed  # noqa: E402
from sim.batch.inputs.target import Target, load_target  # noqa: E402


def held_out_scenarios(suite: Path = ROOT / "sim" / "history" / "suite") -> set[str]:
    """The file names of the scenarios the held-out cases of the historical suite fight."""
    names: set[str] = set()
    for case in sorted(suite.glob("*.yaml")):
        text = case.read_text()
        scenario = re.search(r"^scenario: *(\S+)", text, re.MULTILINE)
        if re.search(r"^split: *held_out\b", text, re.MULTILINE) and scenario is not None:
            names.add(Path(scenario.group(1)).name)
    return names


def shipped(folder: Path = ROOT / "scenarios") -> list[Path]:
    """Every musket scenario in ``folder`` (its top-level ``ruleset: musket``) and every
    campaign whose first battle's scenario is one, by name: the default list, read from
    the folder so that a scenario added to it is in every conduct run."""
    found: list[Path] = []
    musket: set[str] = set()
    campaigns: list[tuple[Path, str]] = []
    for path in sorted(folder.glob("*.yaml")):
        text = path.read_text()
        if re.search(r"^ruleset: *musket\b", text, re.MULTILINE):
            found.append(path)
            musket.add(path.name)
        elif re.search(r"^battles:", text, re.MULTILINE):
            first = re.search(r"^ +scenario: *(\S+)", text, re.MULTILINE)
            if first is not None:
                campaigns.append((path, first.group(1)))
    found.extend(path for path, first in campaigns if first in musket)
    return found


class _Melees:
    """A sink that keeps the melee events of one battle (their attacker, target, winner)."""

    def __init__(self) -> None:
        self.melees: list[dict[str, Any]] = []

    def write(self, line: str) -> None:
        if '"musket.meleed"' in line:
            data = json.loads(line)
            self.melees.append(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def with_options(target: Target, options: dict[str, Any]) -> Target:
    """The target with each option set in its scenario (in every battle of a campaign).

    Options added by a later rules version are left out of a scenario's canonical data
    at their defaults, so a field path (``options.rout_loss``) cannot reach them: they
    are set in the data here instead.
    """
    if not options:
        return target
    data = copy.deepcopy(target.data)
    scenarios = [data] if target.kind == "scenario" else [b["scenario"] for b in data["battles"]]
    for scenario in scenarios:
        scenario.setdefault("options", {}).update(options)
    return dataclasses.replace(target, data=data)


def _new(sinks: list[_Melees], _k: int, _name: str) -> _Melees:
    sinks.append(_Melees())
    return sinks[-1]


SHOT0_AT_MOST = 0.05
"""Issue 30: over 200 runs of each shipped musket scenario, no regiment is shot to nothing
in more than 5 % of runs."""
STONE_WALL_MELEE_AT_MOST = 0.10
"""Issue 30: at the stone wall, hand-to-hand contact in at most 10 % of runs (the record:
nobody reached it)."""
STONE_WALL = ("stone_wall", "fredericksburg")
"""The battles fought at the stone wall below Marye's Heights: the scenario, and the
Fredericksburg campaign's first battle (its id)."""


def misses(tallies: dict[str, dict[str, Any]]) -> list[str]:
    """The conduct targets a battle misses, one line each, from :func:`conduct`'s tallies."""
    found = []
    for battle, t in tallies.items():
        n = t["runs"]
        shot = t.get("shot_to_nothing", 0) / n
        if shot > SHOT0_AT_MOST:
            found.append(
                f"{battle}: a unit shot to nothing in {shot:.3f} of {n} runs "
                f"(at most {SHOT0_AT_MOST})"
            )
        melee = t.get("any_melee", 0) / n
        if battle in STONE_WALL and melee > STONE_WALL_MELEE_AT_MOST:
            found.append(
                f"{battle}: hand-to-hand at the stone wall in {melee:.3f} of {n} runs "
                f"(at most {STONE_WALL_MELEE_AT_MOST})"
            )
    return found


def wins(t: dict[str, Any]) -> str:
    """Each outcome's share of the runs, by winner (``draw`` for a battle nobody won)."""
    n = t["runs"]
    shares = {
        ("draw" if k == "won:None" else k[4:]): v / n for k, v in t.items() if k[:4] == "won:"
    }
    return ", ".join(f"{k} {v:.2f}" for k, v in sorted(shares.items()))


def _value(text: str) -> Any:
    return json.loads(text) if text not in ("", "none") else None


def conduct(path: Path, runs: int, sets: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per battle (by id, or the scenario's stem): the conduct tallies over ``runs``."""
    target = with_options(load_target(path), {k: v for k, v in sets.items() if "." not in k})
    values = {k: v for k, v in sets.items() if "." in k}
    prepared = prepare(target, values)
    seed = int(target.data.get("seed", 0))
    tally: dict[str, Counter[str]] = {}
    for r in range(runs):
        sinks: list[_Melees] = []
        fought = fight(prepared, run_seed(seed, 0, r), partial(_new, sinks))
        for k, (bid, _ruleset, state, scenario) in enumerate(fought.battles):
            t = tally.setdefault(bid or path.stem, Counter())
            t["runs"] += 1
            t[f"won:{state.winner}"] += 1
            t["turns"] += state.ended_turn
            units = state.units.values()
            shot = [u for u in units if u.kind != "artillery" and u.strength == 0]
            guns = [u for u in units if u.kind == "artillery" and u.strength == 0]
            t["shot_to_nothing"] += bool(shot)
            t["battery_lost"] += bool(guns)
            melees = sinks[k].melees
            t["any_melee"] += bool(melees)
            t["melees"] += len(melees)
            t["attacker_won"] += sum(1 for m in melees if m["winner"] == m["unit"])
            del scenario
    return {b: dict(c) for b, c in tally.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE")
    ap.add_argument(
        "--fitting",
        action="store_true",
        help="leave out the scenarios the held-out cases fight (a fitting protocol's "
        "conduct check: nothing held out is read while choosing)",
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if a battle misses issue 30's conduct targets, naming each miss",
    )
    args = ap.parse_args()
    sets = {k: _value(v) for k, v in (s.split("=", 1) for s in args.set)}
    files = [Path(f) for f in args.files] or shipped()
    if args.fitting:
        files = [f for f in files if f.name not in held_out_scenarios()]
    print(
        f"{'battle':<22} {'runs':>4} {'wins':<26} {'shot0':>6} {'guns0':>6} "
        f"{'melee':>6} {'att.won':>11} {'turns':>5}"
    )
    missed: list[str] = []
    for path in files:
        tallies = conduct(path, args.runs, sets)
        missed += misses(tallies)
        for battle, t in tallies.items():
            n = t["runs"]
            melees = t.get("melees", 0)
            won = f"{t.get('attacker_won', 0)}/{melees}"
            print(
                f"{battle:<22} {n:>4} {wins(t):<26} {t.get('shot_to_nothing', 0) / n:>6.3f} "
                f"{t.get('battery_lost', 0) / n:>6.3f} {t.get('any_melee', 0) / n:>6.3f} "
                f"{won:>11} {t['turns'] / n:>5.1f}"
            )
    if args.check:
        print("\n".join(missed) or "every battle meets the conduct targets")
        sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
