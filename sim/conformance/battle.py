"""One scenario of one ruleset, fought once with ``battlesim run``, for every check to read.

A :class:`Battle` fights its scenario the first time a check asks for it
(``battlesim run`` in-process, through click's ``CliRunner``) and keeps the
replay, its loaded form and whatever else two checks share (another
seed's replay, the report page) in its own folder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine.log import MemorySink
from sim import runner
from sim.conformance.requirement import NotChecked, RequirementFailed
from sim.contract import AnyRuleset

if TYPE_CHECKING:
    from click.testing import Result

    from engine.log import Sink
    from sim.contract import UnitRow
    from sim.replay.memory import LoadedReplay

__all__ = ["Battle", "Family", "Fight", "tool_problem"]

T = TypeVar("T")


def tool_problem(result: Result) -> str:
    """What a command printed, and the exception it raised, if any.

    Every line it printed, up to ten; beyond that the first six (where a bad
    scenario's first problems are), how many were left out, and the last three.
    """
    lines = [line for line in result.output.splitlines() if line.strip()]
    if len(lines) > 10:
        lines = [*lines[:6], f"… {len(lines) - 9} more lines …", *lines[-3:]]
    said = " / ".join(lines) or "nothing printed"
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        return f"exit {result.exit_code}: {type(exc).__name__}: {exc} ({said})"
    return f"exit {result.exit_code}: {said}"


@dataclass(frozen=True)
class Fight:
    """What ``battlesim run`` made of the scenario: its output and replay, or its problem."""

    result: Result | None
    replay: Path
    loaded: LoadedReplay | None
    problem: str | None


@dataclass
class Family:
    """The scenarios one check run fights for one ruleset, and what checks of all of them
    share (one fresh process a hash seed fights every one: :func:`Battle.in_family`)."""

    scenarios: tuple[Path, ...]
    workdir: Path
    memo: dict[str, Any] = field(default_factory=dict)


@dataclass
class Battle:
    """One scenario (None: the ruleset ships none) of one ruleset, checked in ``workdir``."""

    ruleset: AnyRuleset
    scenario: Path | None
    workdir: Path
    family: Family | None = None
    """The run's battles of this ruleset, for a check that fights them all at once (in other
    processes); None: this battle alone."""
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        """The scenario's file name, as messages name it."""
        return self.scenario.name if self.scenario is not None else "(no scenario)"

    def failed(
        self,
        what: str,
        *,
        turn: int | None = None,
        seq: int | None = None,
        field: str | None = None,
    ) -> RequirementFailed:
        """A :class:`RequirementFailed` naming this battle's scenario."""
        return RequirementFailed(what, scenario=self.name, turn=turn, seq=seq, field=field)

    def cli(self, *args: str | Path | int) -> Result:
        """Run ``battlesim ARGS`` in this process; its output and exit code."""
        from click.testing import CliRunner  # noqa: PLC0415  # the CLI is the top layer

        from sim.cli.main import cli  # noqa: PLC0415

        return CliRunner().invoke(cli, [str(a) for a in args])

    def succeeded(self, what: str, *args: str | Path | int, seq: int | None = None) -> Result:
        """Run ``battlesim ARGS`` as :meth:`cli` does; unless it exits 0, a
        :class:`RequirementFailed` ``what: <what the command printed or raised>``."""
        result = self.cli(*args)
        if result.exit_code != 0:
            raise self.failed(f"{what}: {tool_problem(result)}", seq=seq)
        return result

    def scratch(self, name: str) -> Path:
        """A fresh folder ``name`` in the battle's working folder."""
        path = self.workdir / name
        path.mkdir(parents=True, exist_ok=False)
        return path

    def in_family(self) -> Family:
        """The battles' family: the run's, else this battle's scenario alone."""
        if self.family is None:
            scenarios = () if self.scenario is None else (self.scenario,)
            self.family = Family(scenarios, self.workdir)
        return self.family

    def shared(self, key: str, make: Callable[[], T]) -> T:
        """``make()`` the first time ``key`` is asked for, the same value after."""
        if key not in self._memo:
            self._memo[key] = make()
        value: T = self._memo[key]
        return value

    @cached_property
    def fight(self) -> Fight:
        """The scenario fought with ``battlesim run --out`` (once)."""
        out = self.workdir / "battle.jsonl"
        if self.scenario is None:
            return Fight(None, out, None, "the ruleset ships no scenario to fight")
        result = self.cli("run", self.scenario, "--out", out)
        if result.exit_code != 0:
            return Fight(
                result, out, None, f"battlesim run {self.scenario} failed: {tool_problem(result)}"
            )
        from sim import api  # noqa: PLC0415

        try:
            loaded = api.load_replay(out)
        except Exception as exc:  # a replay that does not read back
            why = (
                "the scenario as the header holds it, every default filled in, is refused by "
                "the ruleset's own scenario model: a field's default outside the field's own "
                "bounds or choices (validate passes a file that leaves it out)"
                if "header scenario is invalid" in str(exc)
                else "the ruleset recorded an event its readers refuse, such as a number that "
                "is not finite, which a line holds as null"
            )
            return Fight(
                result,
                out,
                None,
                f"its replay does not read back: {exc} (battlesim run wrote it: {why})",
            )
        if loaded.ruleset.name != self.ruleset.name:
            problem = f"a scenario of ruleset {loaded.ruleset.name!r}, not {self.ruleset.name!r}"
            return Fight(result, out, None, problem)
        return Fight(result, out, loaded, None)

    @property
    def loaded(self) -> LoadedReplay:
        """The replay read whole; NotChecked when the scenario did not run."""
        fight = self.fight
        if fight.loaded is None:
            raise NotChecked(f"{self.name}: not fought ({fight.problem})")
        return fight.loaded

    @property
    def replay(self) -> Path:
        """The replay file (the scenario fought first)."""
        self.loaded  # noqa: B018  # fought, or NotChecked
        return self.fight.replay

    def rows(self, state: Any) -> list[UnitRow]:
        """The ruleset's unit rows of the fought scenario at ``state``."""
        loaded = self.loaded
        return loaded.ruleset.units(loaded.scenario, state)

    def fight_again(
        self,
        snapshot: Callable[[Any], dict[str, Any]] | None = None,
        *,
        sink: Sink | None = None,
        watch: Callable[[runner.Started], None] | None = None,
    ) -> None:
        """Fight the scenario again in this process through the one runner, from the
        replay's header: ``snapshot`` (default the ruleset's) digests each turn's end,
        ``sink`` takes the lines, ``watch`` sees the processes the plan started."""
        loaded = self.loaded
        rs, sc = loaded.ruleset, loaded.scenario
        state, plan = rs.initial_state(sc), rs.plan(sc)
        digest = snapshot or rs.snapshot
        runner.fight(plan, sc, loaded.header, sink or MemorySink(), state, rs.apply, digest, watch)
