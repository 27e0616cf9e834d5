"""An error of no known kind is one line that says where it was raised (a plugin's bug)."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
import simpy

from sim.cli.errors import _where
from sim.contract.ruleset import raised_at


def _process(env: simpy.Environment) -> Generator[simpy.Event, None, None]:
    yield env.timeout(1)
    raise ValueError("apply broke")  # the place the message names


def test_a_process_error_is_placed_in_the_process_not_in_simpy() -> None:
    """SimPy raises a failed process's error again as a copy (its cause the original), from
    its own core.py: the place named is the process's line, where it was raised."""
    env = simpy.Environment()
    env.process(_process(env))
    with pytest.raises(ValueError, match="apply broke") as caught:
        env.run()
    line = _process.__code__.co_firstlineno + 2
    assert caught.value.__cause__ is not None  # SimPy's copy
    assert raised_at(caught.value) == f" (at test_error_place.py:{line})"
    assert _where(caught.value) == f" (at test_error_place.py:{line})"


def test_errors_that_name_their_own_place_get_none() -> None:
    """An OSError names its file, a HookError its ruleset and place: nothing is added."""
    try:
        open("/nonexistent/x")  # noqa: SIM115
    except OSError as exc:
        assert _where(exc) == ""


def test_a_model_a_plugin_builds_wrongly_names_the_model_and_the_plugins_line() -> None:
    """A pydantic model built with a wrong value in a plugin's code (an event's int field
    given 5.5) names the model and the line that built it, past pydantic's own frames
    (it said only "unit_factor: Input should be a valid integer ...")."""
    import pydantic

    class Combat(pydantic.BaseModel):
        unit_factor: int

    with pytest.raises(pydantic.ValidationError) as caught:
        Combat(unit_factor=5.5)  # type: ignore[arg-type]  # the place the message names
    line = test_a_model_a_plugin_builds_wrongly_names_the_model_and_the_plugins_line.__code__
    built = line.co_firstlineno + 10
    assert _where(caught.value) == f" (building Combat, at test_error_place.py:{built})"


def test_a_packages_init_is_named_with_its_package(tmp_path: Path) -> None:
    """Every package has an ``__init__.py``, so a plugin's error raised in one names it with
    its package (``battlesim_dba/__init__.py:3``); any other file by its name alone."""
    from sim.contract.ruleset import place_name

    package = tmp_path / "battlesim_dba"
    package.mkdir()
    (package / "__init__.py").write_text("def broken():\n    x = {}\n    return x['proc']\n")
    code = compile((package / "__init__.py").read_text(), str(package / "__init__.py"), "exec")
    space: dict[str, Any] = {}
    exec(code, space)  # a plugin's module, as its import runs it
    with pytest.raises(KeyError) as caught:
        space["broken"]()
    assert raised_at(caught.value) == " (at battlesim_dba/__init__.py:3)"
    assert _where(caught.value) == " (at battlesim_dba/__init__.py:3)"
    assert place_name(str(package / "rules.py")) == "rules.py"


def test_a_built_in_rulesets_error_is_placed_in_its_rules_as_a_plugins_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eli's refactor of musket's fire resolution raises in a branch: `run` named the ruleset,
    unit and turn but not the line (sim/rulesets/ was counted battlesim's own code, which
    says what it means without one), while `verify` of the same bug gave it. A built-in
    ruleset's rules are placed as a plugin's are: here the line of fire.py that raised."""
    from click.testing import CliRunner

    from sim import runner
    from sim.cli import cli
    from sim.contract.ruleset import ours
    from sim.rulesets.musket.rules import fire

    source = Path(fire.__file__).read_text(encoding="utf-8").splitlines()
    line = 1 + next(i for i, x in enumerate(source) if x.strip() == "reach = _RANGE[unit.weapon]")
    monkeypatch.setattr(fire, "_RANGE", {})  # every weapon unknown: the first volley raises
    scenario = Path(__file__).resolve().parents[2] / "scenarios" / "stone_wall.yaml"
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(cli, ["run", str(scenario), "--out", str(out)])
    assert result.exit_code == 2
    assert result.stderr.startswith("battlesim: error: ruleset 'musket', the process of unit ")
    assert result.stderr.endswith(f" (at fire.py:{line})\n")
    assert (ours(fire.__file__), ours(runner.__file__)) == (False, True)
