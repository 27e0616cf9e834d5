"""Old module paths keep working: the same module objects, a DeprecationWarning, old plugins run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sim._moved import MOVED, new_name

ROOT = Path(__file__).resolve().parents[2]
BATTLESIM = Path(sys.executable).parent / "battlesim"

_PROBE = """
import importlib, json, sys, warnings
from sim._moved import MOVED
out = {}
for old, new in sorted(MOVED.items()):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = importlib.import_module(old)
    b = importlib.import_module(new)
    words = [str(w.message) for w in caught if w.category is DeprecationWarning]
    out[old] = [a is b, a.__spec__.name, words[:1]]
print(json.dumps(out))
"""


def test_new_name_maps_packages_with_their_submodules_and_nothing_else() -> None:
    """A moved package's submodules follow it; a name that did not move maps to None."""
    assert new_name("sim.musket.state") == "sim.rulesets.musket.model.state"
    assert new_name("sim.ruleset") == "sim.contract"
    assert new_name("sim.odds.musket") == "sim.rulesets.musket.reading.odds"
    assert new_name("sim.rulesets.musket.fire") == "sim.rulesets.musket.rules.fire"
    assert new_name("sim.rulesets.musket.battle") is None
    assert new_name("sim.flattop.combat") == "sim.rulesets.flattop.rules.combat"
    assert new_name("sim.flattop.battle") == "sim.rulesets.flattop.battle"
    assert new_name("sim.rulesets.flattop.rules.combat") is None
    assert new_name("sim.odds.exact") is None
    assert new_name("sim.runner") is None
    assert new_name("simpy.core") is None
    assert new_name("engine.reader") == "engine.replayfile.reader"
    assert new_name("engine.events") is None  # the authoring surface stayed where it was


def test_every_old_name_is_the_new_module_and_warns_once_naming_it() -> None:
    """Each old path imports the very module of its new path (one object), warning with the path."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, cwd=ROOT
    )
    seen = json.loads(done.stdout)
    assert set(seen) == set(MOVED)
    for old, (same, spec, words) in seen.items():
        new = MOVED[old]
        assert same, old
        assert spec == new, old  # the real module keeps its own spec
        assert words == [
            f"{old} has moved to {new}: import {new} (the old name goes in battlesim 0.4)"
        ], old


@pytest.mark.parametrize(
    ("ruleset", "module", "name"),
    [("musket", "model.state", "BattleState"), ("flattop", "model.tables", "MATRIX"),
     ("becmi", "model.state", "BattleState")],
)  # fmt: skip
def test_a_submodule_through_an_old_package_is_not_loaded_twice(
    ruleset: str, module: str, name: str
) -> None:
    """``sim.musket.state``, ``sim.rulesets.musket.state`` and ``sim.rulesets.musket.model.state``:
    one module, one object of each name (and so for each ruleset)."""
    flat = module.rpartition(".")[2]
    path = module.replace(".", "/") + ".py"
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        f"from sim.{ruleset}.{flat} import {name} as A\n"
        f"from sim.rulesets.{ruleset}.{flat} import {name} as B\n"
        f"from sim.rulesets.{ruleset}.{module} import {name} as C\n"
        "import sys; print(A is B is C, len({id(m) for m in sys.modules.values() "
        f"if (getattr(m, '__file__', None) or '').endswith('{ruleset}/{path}')}}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.split() == ["True", "1"]


def test_a_plugin_written_against_the_02_docs_runs_unchanged(tmp_path: Path) -> None:
    """The duel plugin exactly as 0.2's docs showed it (sim.ruleset imports) runs and verifies."""
    site = tmp_path / "site"
    (site / "battlesim_duel").mkdir(parents=True)
    shutil.copy(ROOT / "tests/data/plugins/duel_v02.py", site / "battlesim_duel/__init__.py")
    dist = site / "battlesim_duel-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: battlesim-duel\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text("[battlesim.rulesets]\nduel = battlesim_duel:RULESET\n")
    (tmp_path / "duel.yaml").write_text(
        "ruleset: duel\nname: Hector and Achilles\nseed: 7\nturns: 12\nchampions:\n"
        "  - {id: achilles, name: Achilles, health: 9, at: 40}\n"
        "  - {id: hector, name: Hector, health: 8, at: 41}\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}

    def battlesim(*args: str, err: list[str] | None = None) -> list[str]:
        done = subprocess.run(
            [str(BATTLESIM), *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        if err is not None:
            err += done.stderr.splitlines()
        return done.stdout.splitlines()

    # Achilles: 9 health; his blows take 2, 2, 0, 0, 1 ... the page's own figures.
    assert battlesim("run", "duel.yaml", "--out", "d.jsonl") == [
        "duel.yaml (seed 7): Hector wins after 5 turns — achilles fell",
        "  Achilles: lost 9 health",
        "  Hector: lost 6 health",
        "Replay: d.jsonl (16 events)",
    ]
    assert battlesim("verify", "d.jsonl") == [
        "OK: d.jsonl: 16 events, intact, lawful, re-simulates byte for byte"
    ]
    assert battlesim("show", "d.jsonl", "--unit", "hector")[-1].split() == [
        "5", "41", "2/8", "health", "-"
    ]  # fmt: skip
    # check-ruleset tells its author what Python's default filters hide: the old path
    notes: list[str] = []
    battlesim(
        "check-ruleset",
        "duel",
        "--scenario",
        "duel.yaml",
        "--only",
        "run-prints-headline",
        err=notes,
    )
    assert [n for n in notes if n.startswith("battlesim: note:")] == [
        "battlesim: note: ruleset 'duel' imports an old module path: sim.ruleset has moved to "
        "sim.contract: import sim.contract (the old name goes in battlesim 0.4) "
        "(battlesim_duel/__init__.py:13)"
    ]


def test_running_an_old_path_as_a_module_says_where_it_went() -> None:
    """``python -m sim.cli_core`` (never runnable) fails in one line naming the new module."""
    done = subprocess.run(
        [sys.executable, "-m", "sim.cli_core"], capture_output=True, text=True, cwd=ROOT,
        check=False,
    )  # fmt: skip
    assert done.returncode != 0
    assert "sim.cli_core has moved to sim.cli.battles.core; run `python -m sim`" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_old_runnable_path_still_runs_as_its_new_module() -> None:
    """``python -m sim.batch.stopping`` (once in docs/batch.md) prints what its new path does."""

    def run(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-W", "default", "-m", name],
            capture_output=True, text=True, cwd=ROOT, check=True,
        )  # fmt: skip

    old, new = run("sim.batch.stopping"), run("sim.batch.planning.stopping")
    assert old.stdout == new.stdout
    assert new.stdout.startswith("W = 0.05, --runs 1000")
    assert new.stderr == ""
    assert old.stderr.splitlines()[-1].endswith(
        "DeprecationWarning: sim.batch.stopping has moved to sim.batch.planning.stopping: "
        "run `python -m sim.batch.planning.stopping`"
    )


OLD_BATCH = [
    "append",
    "campaign",
    "commits",
    "compare",
    "condition",
    "csvsafe",
    "design",
    "differences",
    "discover",
    "executors",
    "factors",
    "fieldpath",
    "files",
    "guard",
    "indices",
    "labels",
    "opening",
    "plan",
    "plots",
    "plots_analysis",
    "plots_convergence",
    "plots_discover",
    "plotting",
    "pooled",
    "prim",
    "progress",
    "replays",
    "rows",
    "seeds",
    "sensitivity",
    "sources",
    "spec",
    "stats",
    "stopping",
    "store",
    "summary",
    "target",
    "units",
    "verify",
    "wide",
    "worker",
]
"""Every module sim/batch/ held in one folder, but study and overrides (which stayed put)."""

_BATCH_PROBE = """
import importlib, json, sys, warnings
out = {}
for old in sys.argv[1:]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = importlib.import_module(old)
        again = importlib.import_module(old)
    words = [str(w.message) for w in caught if w.category is DeprecationWarning]
    out[old] = [a.__name__, a is again, words]
print(json.dumps(out))
"""


def test_every_old_batch_module_is_its_new_module_and_warns_once() -> None:
    """Each of the 41 flat sim.batch.* names is the module at its new path, with one warning."""
    old_names = [f"sim.batch.{m}" for m in OLD_BATCH]
    assert len(old_names) == 41
    done = subprocess.run(
        [sys.executable, "-c", _BATCH_PROBE, *old_names],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    seen = json.loads(done.stdout)
    for old in old_names:
        name, same, words = seen[old]
        step = name.removeprefix("sim.batch.").partition(".")[0]
        assert step in {"methods", "inputs", "planning", "execution", "storage", "analysis",
                        "discovery", "verification", "charts"}, old  # fmt: skip
        assert name == MOVED[old], old
        assert same, old
        assert words == [
            f"{old} has moved to {name}: import {name} (the old name goes in battlesim 0.4)"
        ], old
    renamed = {o: seen[o][0] for o in old_names if seen[o][0].rpartition(".")[2] != o[10:]}
    assert renamed == {
        "sim.batch.plots": "sim.batch.charts.results",
        "sim.batch.plots_analysis": "sim.batch.charts.analysis",
        "sim.batch.plots_convergence": "sim.batch.charts.convergence",
        "sim.batch.plots_discover": "sim.batch.charts.discover",
    }


def test_old_batch_names_keep_what_they_exported() -> None:
    """Names split off a moved module still import from its old path (RunSpec, sample)."""
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from sim.batch.worker import RunSpec as A\n"
        "from sim.batch.inputs.seeds import RunSpec as B\n"
        "from sim.batch.sensitivity import sample as C, unit_sample, LEVELS\n"
        "from sim.batch.planning.sampling import sample as D\n"
        "print(A is B, C is D, LEVELS)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.split() == ["True", "True", "4"]


ROOMS = {
    "musket": {
        "model": ["data", "events", "hexmap", "options", "scenario", "state"],
        "rules": [
            "combat", "context", "fire", "melee", "morale", "movement", "results",
            "targeting", "victory",
        ],
        "reading": ["audit", "engage", "odds", "reach", "report", "view"],
    },
    "flattop": {
        "model": ["data", "events", "grid", "options", "scenario", "state", "tables"],
        "rules": ["combat", "context", "flight", "resolve", "victory"],
        "reading": ["audit", "engage", "odds", "report", "view"],
    },
    "becmi": {
        "model": ["data", "events", "options", "scenario", "state", "tohit"],
        "rules": ["attack", "context", "dice", "movement", "referee", "striking", "wrestling"],
        "reading": ["engage", "odds", "report", "view"],
    },
}  # fmt: skip
"""Every module each built-in ruleset held in one folder, by the room it is in now; battle and
campaign stayed at the top (becmi's tohit is in model/: its scenario checks hit dice with it)."""

ADDED_SINCE = {"becmi": {"reading": ["audit", "subjects"]}}
"""Modules a ruleset's rooms gained after the move, with no old name (becmi's audit, its
``audit_change`` for fork, 2026-12-07; its subjects, diff's words for who an event is about)."""


@pytest.mark.parametrize("ruleset", sorted(ROOMS))
def test_every_old_ruleset_module_is_its_new_module_and_warns_once(ruleset: str) -> None:
    """Each flat module, as ``sim.rulesets.<ruleset>.X`` and as 0.2's ``sim.<ruleset>.X``, and
    0.2's ``sim.odds.<ruleset>``, is the module in its room, with one warning; the rooms hold
    every module the flat folder did, and the top only battle and campaign."""
    new = {
        m: f"sim.rulesets.{ruleset}.{room}.{m}" for room, ms in ROOMS[ruleset].items() for m in ms
    }
    wanted = {f"sim.rulesets.{ruleset}.{m}": n for m, n in new.items()}
    wanted |= {f"sim.{ruleset}.{m}": n for m, n in new.items()}
    wanted[f"sim.odds.{ruleset}"] = new["odds"]
    done = subprocess.run(  # sim.<ruleset> first: the old package warns once, on its own name
        [sys.executable, "-c", _BATCH_PROBE, f"sim.{ruleset}", *wanted],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    seen = json.loads(done.stdout)
    for old, name in wanted.items():
        assert seen[old] == [
            name,
            True,
            [f"{old} has moved to {name}: import {name} (the old name goes in battlesim 0.4)"],
        ], old
        assert MOVED[old] == name, old
    folder = ROOT / "sim" / "rulesets" / ruleset
    assert sorted(p.stem for p in folder.glob("*.py")) == ["__init__", "battle", "campaign"]
    rooms: dict[str, list[str]] = {p.parent.name: [] for p in folder.glob("*/__init__.py")}
    for p in folder.glob("*/*.py"):
        if p.stem != "__init__":
            rooms[p.parent.name].append(p.stem)
    added = ADDED_SINCE.get(ruleset, {})
    expected = {room: sorted([*ms, *added.get(room, [])]) for room, ms in ROOMS[ruleset].items()}
    assert {room: sorted(ms) for room, ms in rooms.items()} == expected


OLD_CLI = {
    "battles": ["core", "show", "replay", "views", "table"],
    "outcomes": ["batch", "runs", "studies", "calibrate", "history"],
    "rulesets": ["info", "check", "odds"],
}
"""Every module sim/cli/ held in one folder, by the subpackage it is in now (but the root
group, common and errors, which stayed put)."""


def test_every_old_cli_module_is_its_new_module_and_warns_once() -> None:
    """Each of the 13 flat sim.cli.* names, and 0.2's sim.cli_* names, is the moved module."""
    moved = {f"sim.cli.{m}": f"sim.cli.{sub}.{m}" for sub, ms in OLD_CLI.items() for m in ms}
    assert len(moved) == 13
    flat = ("sim.views", "sim.table")
    older = {o: n for o, n in MOVED.items() if o.startswith("sim.cli_") or o in flat}
    assert set(older.values()) - {"sim.cli.common"} <= set(moved.values())
    done = subprocess.run(
        [sys.executable, "-c", _BATCH_PROBE, *moved, *older],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    seen = json.loads(done.stdout)
    for old, new in {**moved, **older}.items():
        name, same, words = seen[old]
        assert name == new == MOVED[old], old
        assert same, old
        assert words == [
            f"{old} has moved to {new}: import {new} (the old name goes in battlesim 0.4)"
        ], old
