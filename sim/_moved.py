"""Old module paths, kept working: battlesim 0.2 moved ``sim``'s modules into layer packages,
and 0.3 split the folders of more than a dozen modules (``sim/batch/``, each ruleset's
``model/``, ``rules/`` and ``reading/``, ``sim/cli/``, ``engine``'s internals).

A plugin or notebook written against a flat layout (``sim.ruleset``,
``sim.loader``, ``sim.musket``, ``sim.cli_core``, ``engine.reader``, ...) keeps
importing (an ``engine`` name once ``sim`` is imported: ``engine`` cannot import it); each
old name is the *same module object* as the new one (never a second copy,
so classes and registries stay one), and the first import of an old name
warns with a :class:`DeprecationWarning` naming the new one.  The map is
:data:`MOVED`; docs/architecture.md lists the new layout.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from importlib.abc import InspectLoader, Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import CodeType, ModuleType

__all__ = ["MOVED", "RUNNABLE", "install", "new_name"]

MOVED: dict[str, str] = {
    # the seam
    "sim.ruleset": "sim.contract",
    "sim.common": "sim.contract.bases",
    "sim.options": "sim.contract.options",
    # words
    "sim.grammar": "sim.text.grammar",
    "sim.suggest": "sim.text.suggest",
    # scenario files
    "sim.loader": "sim.scenario.load",
    "sim.diagnose": "sim.scenario.diagnose",
    "sim.schema": "sim.scenario.schema",
    "sim.catalog": "sim.scenario.catalog",
    # replays and their tools
    "sim.loaded": "sim.replay.memory",
    "sim.replayfile": "sim.replay.file",
    "sim.analysis": "sim.replay.analysis",
    "sim.diff": "sim.replay.diff",
    "sim.fork": "sim.replay.fork",
    "sim.report_html": "sim.replay.report",
    "sim.viewer": "sim.replay.viewer",
    # rule systems (packages: their submodules follow)
    "sim.musket": "sim.rulesets.musket",
    "sim.flattop": "sim.rulesets.flattop",
    "sim.becmi": "sim.rulesets.becmi",
    "sim.odds.musket": "sim.rulesets.musket.reading.odds",
    "sim.odds.flattop": "sim.rulesets.flattop.reading.odds",
    "sim.odds.becmi": "sim.rulesets.becmi.reading.odds",
    # the command line
    "sim.cli_common": "sim.cli.common",
    "sim.cli_core": "sim.cli.battles.core",
    "sim.cli_show": "sim.cli.battles.show",
    "sim.cli_info": "sim.cli.rulesets.info",
    "sim.cli_replay": "sim.cli.battles.replay",
    "sim.cli_odds": "sim.cli.rulesets.odds",
    "sim.cli_batch": "sim.cli.outcomes.batch",
    "sim.cli_runs": "sim.cli.outcomes.runs",
    "sim.errors": "sim.cli.errors",
    "sim.views": "sim.cli.battles.views",
    "sim.table": "sim.cli.battles.table",
    # batch studies: sim/batch/'s one flat folder, now in the steps of a study
    "sim.batch.stats": "sim.batch.methods.stats",
    "sim.batch.differences": "sim.batch.methods.differences",
    "sim.batch.indices": "sim.batch.methods.indices",
    "sim.batch.prim": "sim.batch.methods.prim",
    "sim.batch.files": "sim.batch.inputs.files",
    "sim.batch.fieldpath": "sim.batch.inputs.fieldpath",
    "sim.batch.seeds": "sim.batch.inputs.seeds",
    "sim.batch.target": "sim.batch.inputs.target",
    "sim.batch.campaign": "sim.batch.inputs.campaign",
    "sim.batch.sources": "sim.batch.inputs.sources",
    "sim.batch.guard": "sim.batch.inputs.guard",
    "sim.batch.factors": "sim.batch.planning.factors",
    "sim.batch.design": "sim.batch.planning.design",
    "sim.batch.stopping": "sim.batch.planning.stopping",
    "sim.batch.plan": "sim.batch.planning.plan",
    "sim.batch.spec": "sim.batch.planning.spec",
    "sim.batch.worker": "sim.batch.execution.worker",
    "sim.batch.rows": "sim.batch.execution.rows",
    "sim.batch.executors": "sim.batch.execution.executors",
    "sim.batch.progress": "sim.batch.execution.progress",
    "sim.batch.store": "sim.batch.storage.store",
    "sim.batch.append": "sim.batch.storage.append",
    "sim.batch.csvsafe": "sim.batch.storage.csvsafe",
    "sim.batch.units": "sim.batch.storage.units",
    "sim.batch.wide": "sim.batch.storage.wide",
    "sim.batch.opening": "sim.batch.storage.opening",
    "sim.batch.commits": "sim.batch.storage.commits",
    "sim.batch.summary": "sim.batch.analysis.summary",
    "sim.batch.compare": "sim.batch.analysis.compare",
    "sim.batch.pooled": "sim.batch.analysis.pooled",
    "sim.batch.sensitivity": "sim.batch.analysis.sensitivity",
    "sim.batch.labels": "sim.batch.analysis.labels",
    "sim.batch.condition": "sim.batch.discovery.condition",
    "sim.batch.discover": "sim.batch.discovery.discover",
    "sim.batch.verify": "sim.batch.verification.verify",
    "sim.batch.replays": "sim.batch.verification.replays",
    "sim.batch.plots": "sim.batch.charts.results",
    "sim.batch.plots_analysis": "sim.batch.charts.analysis",
    "sim.batch.plots_convergence": "sim.batch.charts.convergence",
    "sim.batch.plots_discover": "sim.batch.charts.discover",
    "sim.batch.plotting": "sim.batch.charts.plotting",
    # flattop: sim/rulesets/flattop/'s one folder, now model/, rules/ and reading/; the older
    # sim.flattop.* names land on the new modules too (not on the paths moved from)
    "sim.rulesets.flattop.scenario": "sim.rulesets.flattop.model.scenario",
    "sim.rulesets.flattop.options": "sim.rulesets.flattop.model.options",
    "sim.rulesets.flattop.events": "sim.rulesets.flattop.model.events",
    "sim.rulesets.flattop.state": "sim.rulesets.flattop.model.state",
    "sim.rulesets.flattop.data": "sim.rulesets.flattop.model.data",
    "sim.rulesets.flattop.tables": "sim.rulesets.flattop.model.tables",
    "sim.rulesets.flattop.grid": "sim.rulesets.flattop.model.grid",
    "sim.rulesets.flattop.context": "sim.rulesets.flattop.rules.context",
    "sim.rulesets.flattop.combat": "sim.rulesets.flattop.rules.combat",
    "sim.rulesets.flattop.resolve": "sim.rulesets.flattop.rules.resolve",
    "sim.rulesets.flattop.flight": "sim.rulesets.flattop.rules.flight",
    "sim.rulesets.flattop.victory": "sim.rulesets.flattop.rules.victory",
    "sim.rulesets.flattop.report": "sim.rulesets.flattop.reading.report",
    "sim.rulesets.flattop.view": "sim.rulesets.flattop.reading.view",
    "sim.rulesets.flattop.engage": "sim.rulesets.flattop.reading.engage",
    "sim.rulesets.flattop.audit": "sim.rulesets.flattop.reading.audit",
    "sim.rulesets.flattop.odds": "sim.rulesets.flattop.reading.odds",
    "sim.flattop.scenario": "sim.rulesets.flattop.model.scenario",
    "sim.flattop.options": "sim.rulesets.flattop.model.options",
    "sim.flattop.events": "sim.rulesets.flattop.model.events",
    "sim.flattop.state": "sim.rulesets.flattop.model.state",
    "sim.flattop.data": "sim.rulesets.flattop.model.data",
    "sim.flattop.tables": "sim.rulesets.flattop.model.tables",
    "sim.flattop.grid": "sim.rulesets.flattop.model.grid",
    "sim.flattop.context": "sim.rulesets.flattop.rules.context",
    "sim.flattop.combat": "sim.rulesets.flattop.rules.combat",
    "sim.flattop.resolve": "sim.rulesets.flattop.rules.resolve",
    "sim.flattop.flight": "sim.rulesets.flattop.rules.flight",
    "sim.flattop.victory": "sim.rulesets.flattop.rules.victory",
    "sim.flattop.report": "sim.rulesets.flattop.reading.report",
    "sim.flattop.view": "sim.rulesets.flattop.reading.view",
    "sim.flattop.engage": "sim.rulesets.flattop.reading.engage",
    "sim.flattop.audit": "sim.rulesets.flattop.reading.audit",
    "sim.flattop.odds": "sim.rulesets.flattop.reading.odds",
    # becmi: sim/rulesets/becmi/'s one flat folder, now model/, rules/ and reading/; its 0.2
    # names (sim.becmi.*) land on the same modules, as sim.odds.becmi above does
    "sim.rulesets.becmi.scenario": "sim.rulesets.becmi.model.scenario",
    "sim.rulesets.becmi.options": "sim.rulesets.becmi.model.options",
    "sim.rulesets.becmi.events": "sim.rulesets.becmi.model.events",
    "sim.rulesets.becmi.state": "sim.rulesets.becmi.model.state",
    "sim.rulesets.becmi.data": "sim.rulesets.becmi.model.data",
    "sim.rulesets.becmi.tohit": "sim.rulesets.becmi.model.tohit",
    "sim.rulesets.becmi.context": "sim.rulesets.becmi.rules.context",
    "sim.rulesets.becmi.dice": "sim.rulesets.becmi.rules.dice",
    "sim.rulesets.becmi.attack": "sim.rulesets.becmi.rules.attack",
    "sim.rulesets.becmi.striking": "sim.rulesets.becmi.rules.striking",
    "sim.rulesets.becmi.wrestling": "sim.rulesets.becmi.rules.wrestling",
    "sim.rulesets.becmi.movement": "sim.rulesets.becmi.rules.movement",
    "sim.rulesets.becmi.referee": "sim.rulesets.becmi.rules.referee",
    "sim.rulesets.becmi.report": "sim.rulesets.becmi.reading.report",
    "sim.rulesets.becmi.view": "sim.rulesets.becmi.reading.view",
    "sim.rulesets.becmi.engage": "sim.rulesets.becmi.reading.engage",
    "sim.rulesets.becmi.odds": "sim.rulesets.becmi.reading.odds",
    "sim.becmi.scenario": "sim.rulesets.becmi.model.scenario",
    "sim.becmi.options": "sim.rulesets.becmi.model.options",
    "sim.becmi.events": "sim.rulesets.becmi.model.events",
    "sim.becmi.state": "sim.rulesets.becmi.model.state",
    "sim.becmi.data": "sim.rulesets.becmi.model.data",
    "sim.becmi.tohit": "sim.rulesets.becmi.model.tohit",
    "sim.becmi.context": "sim.rulesets.becmi.rules.context",
    "sim.becmi.dice": "sim.rulesets.becmi.rules.dice",
    "sim.becmi.attack": "sim.rulesets.becmi.rules.attack",
    "sim.becmi.striking": "sim.rulesets.becmi.rules.striking",
    "sim.becmi.wrestling": "sim.rulesets.becmi.rules.wrestling",
    "sim.becmi.movement": "sim.rulesets.becmi.rules.movement",
    "sim.becmi.referee": "sim.rulesets.becmi.rules.referee",
    "sim.becmi.report": "sim.rulesets.becmi.reading.report",
    "sim.becmi.view": "sim.rulesets.becmi.reading.view",
    "sim.becmi.engage": "sim.rulesets.becmi.reading.engage",
    "sim.becmi.odds": "sim.rulesets.becmi.reading.odds",
    # the command line: sim/cli/'s one flat folder, now in battles/, outcomes/ and rulesets/
    "sim.cli.core": "sim.cli.battles.core",
    "sim.cli.show": "sim.cli.battles.show",
    "sim.cli.replay": "sim.cli.battles.replay",
    "sim.cli.views": "sim.cli.battles.views",
    "sim.cli.table": "sim.cli.battles.table",
    "sim.cli.batch": "sim.cli.outcomes.batch",
    "sim.cli.runs": "sim.cli.outcomes.runs",
    "sim.cli.studies": "sim.cli.outcomes.studies",
    "sim.cli.calibrate": "sim.cli.outcomes.calibrate",
    "sim.cli.history": "sim.cli.outcomes.history",
    "sim.cli.info": "sim.cli.rulesets.info",
    "sim.cli.check": "sim.cli.rulesets.check",
    "sim.cli.odds": "sim.cli.rulesets.odds",
    # the musket ruleset: sim/rulesets/musket/'s one flat folder, now model/, rules/ and
    # reading/ (its 0.2 names, sim.musket.*, land on the new modules too)
    "sim.rulesets.musket.scenario": "sim.rulesets.musket.model.scenario",
    "sim.rulesets.musket.options": "sim.rulesets.musket.model.options",
    "sim.rulesets.musket.events": "sim.rulesets.musket.model.events",
    "sim.rulesets.musket.state": "sim.rulesets.musket.model.state",
    "sim.rulesets.musket.data": "sim.rulesets.musket.model.data",
    "sim.rulesets.musket.hexmap": "sim.rulesets.musket.model.hexmap",
    "sim.rulesets.musket.context": "sim.rulesets.musket.rules.context",
    "sim.rulesets.musket.combat": "sim.rulesets.musket.rules.combat",
    "sim.rulesets.musket.results": "sim.rulesets.musket.rules.results",
    "sim.rulesets.musket.fire": "sim.rulesets.musket.rules.fire",
    "sim.rulesets.musket.targeting": "sim.rulesets.musket.rules.targeting",
    "sim.rulesets.musket.melee": "sim.rulesets.musket.rules.melee",
    "sim.rulesets.musket.morale": "sim.rulesets.musket.rules.morale",
    "sim.rulesets.musket.movement": "sim.rulesets.musket.rules.movement",
    "sim.rulesets.musket.victory": "sim.rulesets.musket.rules.victory",
    "sim.rulesets.musket.report": "sim.rulesets.musket.reading.report",
    "sim.rulesets.musket.view": "sim.rulesets.musket.reading.view",
    "sim.rulesets.musket.engage": "sim.rulesets.musket.reading.engage",
    "sim.rulesets.musket.audit": "sim.rulesets.musket.reading.audit",
    "sim.rulesets.musket.odds": "sim.rulesets.musket.reading.odds",
    "sim.rulesets.musket.reach": "sim.rulesets.musket.reading.reach",
    "sim.musket.scenario": "sim.rulesets.musket.model.scenario",
    "sim.musket.options": "sim.rulesets.musket.model.options",
    "sim.musket.events": "sim.rulesets.musket.model.events",
    "sim.musket.state": "sim.rulesets.musket.model.state",
    "sim.musket.data": "sim.rulesets.musket.model.data",
    "sim.musket.hexmap": "sim.rulesets.musket.model.hexmap",
    "sim.musket.context": "sim.rulesets.musket.rules.context",
    "sim.musket.combat": "sim.rulesets.musket.rules.combat",
    "sim.musket.results": "sim.rulesets.musket.rules.results",
    "sim.musket.fire": "sim.rulesets.musket.rules.fire",
    "sim.musket.targeting": "sim.rulesets.musket.rules.targeting",
    "sim.musket.melee": "sim.rulesets.musket.rules.melee",
    "sim.musket.morale": "sim.rulesets.musket.rules.morale",
    "sim.musket.movement": "sim.rulesets.musket.rules.movement",
    "sim.musket.victory": "sim.rulesets.musket.rules.victory",
    "sim.musket.report": "sim.rulesets.musket.reading.report",
    "sim.musket.view": "sim.rulesets.musket.reading.view",
    "sim.musket.engage": "sim.rulesets.musket.reading.engage",
    "sim.musket.audit": "sim.rulesets.musket.reading.audit",
    "sim.musket.odds": "sim.rulesets.musket.reading.odds",
    "sim.musket.reach": "sim.rulesets.musket.reading.reach",
    # engine: its internal modules, out of the top into replayfile/, comparison/ and safety/
    # (an alias once sim is imported: engine cannot import sim, and no doc imports these)
    "engine.checks": "engine.replayfile.checks",
    "engine.decoders": "engine.replayfile.decoders",
    "engine.formats": "engine.replayfile.formats",
    "engine.lines": "engine.replayfile.lines",
    "engine.reader": "engine.replayfile.reader",
    "engine.sinks": "engine.replayfile.sinks",
    "engine.compare": "engine.comparison.compare",
    "engine.jsondiff": "engine.comparison.jsondiff",
    "engine.replay": "engine.comparison.replay",
    "engine.atomic": "engine.safety.atomic",
    "engine.files": "engine.safety.files",
    "engine.strictjson": "engine.safety.strictjson",
    "engine.text": "engine.safety.text",
}
"""Old module name → new module name; a submodule of an old package follows its package."""


RUNNABLE = frozenset({"sim.batch.stopping"})
"""Old names ``python -m`` ran (a documented command): they still run, as their new module."""


def new_name(name: str) -> str | None:
    """The module an old name now is, or None when ``name`` did not move."""
    parts = name.split(".")
    if parts[0] not in ("sim", "engine"):
        return None
    for cut in range(len(parts), 1, -1):
        new = MOVED.get(".".join(parts[:cut]))
        if new is not None:
            return ".".join([new, *parts[cut:]])
    return None


class _Alias(MetaPathFinder, Loader):
    """Finds an old name and hands back the module already imported under its new name."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        new = new_name(fullname)
        if new is None:
            return None
        return ModuleSpec(fullname, self)

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        new = new_name(spec.name)
        assert new is not None
        warnings.warn(
            f"{spec.name} has moved to {new}: import {new} (the old name goes in battlesim 0.4)",
            DeprecationWarning,
            stacklevel=2,
        )
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__  # this import's own: no state shared between imports
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system stamped the alias's spec on the module it was handed: give the
        # real module its own back (its __name__, __file__ and __path__ were left as they are).
        alias = module.__spec__
        if alias is not None and alias.loader is self:
            module.__spec__ = alias.loader_state

    def get_code(self, fullname: str) -> CodeType:
        """``python -m <old name>``: a :data:`RUNNABLE` name runs as its new module, others fail.

        Raises:
            ImportError: the old name was never run so; the message names the new module.
        """
        new = new_name(fullname)
        if fullname in RUNNABLE and new is not None:
            warnings.warn(
                f"{fullname} has moved to {new}: run `python -m {new}`", DeprecationWarning, 2
            )
            spec = importlib.util.find_spec(new)
            assert spec is not None and isinstance(spec.loader, InspectLoader)
            code = spec.loader.get_code(new)
            assert code is not None
            return code
        raise ImportError(f"{fullname} has moved to {new}; run `python -m sim`")


def install() -> None:
    """Put the alias finder first on ``sys.meta_path`` (once), ahead of the path finder.

    First, so that ``sim.musket.state`` is never found a second time on
    ``sim.musket``'s path and loaded as a copy.
    """
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())
