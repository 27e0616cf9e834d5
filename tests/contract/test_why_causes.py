"""Contract: in every installed ruleset, ``why`` on a consequence prints its chain to a first cause.

Generic over the ruleset registry and the shipped scenarios (every
``scenarios/*.yaml`` whose ``ruleset`` is installed): a new ruleset and its
scenarios pass or fail this without a new test.  A scenario's battle must
record at least one consequence (an event with a ``cause``), and for each,
``battlesim why`` must print the chain its causes spell: every link an
earlier event, the root an event without a cause, the last the event asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from sim import api
from sim.cli import cli
from sim.ruleset import ruleset_names

ROOT = Path(__file__).resolve().parents[2]


def _shipped() -> list[tuple[str, Path]]:
    """(ruleset, scenario file) for every shipped scenario of an installed ruleset."""
    installed = set(ruleset_names())
    found = []
    for path in sorted((ROOT / "scenarios").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("ruleset") in installed and "sides" in data:
            found.append((str(data["ruleset"]), path))
    return found


SHIPPED = _shipped()


@pytest.mark.parametrize(
    ("ruleset", "scenario"), SHIPPED, ids=[f"{r}:{p.stem}" for r, p in SHIPPED]
)
def test_why_on_every_consequence_prints_its_chain_to_a_first_cause(
    ruleset: str, scenario: Path, tmp_path: Path
) -> None:
    """Every event with a cause: why prints root → … → it, each link the next one's cause."""
    out = tmp_path / f"{scenario.stem}.jsonl"
    api.run(scenario, out=out)
    loaded = api.load_replay(out)
    assert loaded.ruleset.name == ruleset
    events = loaded.events
    consequences = [e for e in events if e.cause is not None]
    assert consequences, f"{scenario.name}: no event records a cause"
    runner = CliRunner()
    for event in consequences:
        expected = [event.seq]
        while (cause := events[expected[0]].cause) is not None:
            assert 0 <= cause < expected[0], (event.seq, cause)
            expected.insert(0, cause)
        result = runner.invoke(cli, ["why", str(out), str(event.seq)])
        assert result.exit_code == 0, result.output
        lines = [line for line in result.stdout.splitlines() if "[seq " in line]
        printed = [int(line.split("[seq ", 1)[1].split("]", 1)[0]) for line in lines]
        assert printed == expected
        assert len(expected) >= 2 and events[expected[0]].cause is None
