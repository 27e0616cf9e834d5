"""docs/scenario-format.md's `options` table is the musket options model, row for row.

The table is written from :class:`sim.rulesets.musket.model.options.MusketOptions`
(name, type, bounds, default of this rules version); when an option is added or
a default changes, ``python tests/test_scenario_format.py`` rewrites it.
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path
from typing import Any

from annotated_types import Ge, Gt, Le, Lt

from sim.rulesets.musket.model.options import MusketOptions

DOC = Path(__file__).resolve().parents[1] / "docs" / "scenario-format.md"
HEAD = "| Option | Type | Bounds | Default |\n|---|---|---|---|\n"


def _number(x: float) -> str:
    """A bound as the page writes it: a minus sign, a thin space between thousands."""
    text = f"{abs(x):,}".replace(",", "\u202f")
    return ("\u2212" if x < 0 else "") + text


def _type(annotation: Any) -> str:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return ", ".join(f'`"{a}"`' for a in args)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        [kind] = [a for a in args if a is not type(None)]
        if typing.get_origin(kind) is typing.Literal:  # Literal[...] | None
            return _type(kind) + " or `null`"
        return f"{kind.__name__} or `null`"
    return str(annotation.__name__)


def _bounds(annotation: Any, metadata: list[Any]) -> str:
    if typing.get_origin(annotation) is typing.Literal:
        return "only value" if len(typing.get_args(annotation)) == 1 else ""
    low = next((f"≥ {_number(m.ge)}" for m in metadata if isinstance(m, Ge)), None)
    low = next((f"> {_number(m.gt)}" for m in metadata if isinstance(m, Gt)), low)
    high = next((f"≤ {_number(m.le)}" for m in metadata if isinstance(m, Le)), None)
    high = next((f"< {_number(m.lt)}" for m in metadata if isinstance(m, Lt)), high)
    if low and high and low.startswith("≥") and high.startswith("≤"):
        return f"{low[2:]}–{high[2:]}"
    return ", ".join(b for b in (low, high) if b)


def _default(value: Any) -> str:
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{value}`"


def options_table() -> str:
    """The table's text, its header included, each row ending in a newline."""
    rows = [
        f"| `{name}` | {_type(f.annotation)} | {_bounds(f.annotation, f.metadata)} "
        f"| {_default(f.default)} |\n"
        for name, f in MusketOptions.model_fields.items()
    ]
    return HEAD + "".join(rows)


def _written(text: str) -> tuple[int, int]:
    """Where the page's table starts and ends."""
    start = text.index(HEAD)
    end = text.index("\n\n", start) + 1
    return start, end


def test_the_options_table_is_the_model() -> None:
    """Every option, in declaration order, with its type, bounds and this version's default."""
    text = DOC.read_text(encoding="utf-8")
    start, end = _written(text)
    assert text[start:end] == options_table(), "run: python tests/test_scenario_format.py"


def test_the_table_reads_bounds_types_and_defaults() -> None:
    """Rows worked out by hand from the model's declarations."""
    rows = options_table().splitlines()
    assert "| `fire_lcv` | float | 0–1\u202f000 | `5` |" in rows
    assert "| `fatigue_medium` | int | ≥ 0 | `300` |" in rows
    assert "| `column_target_modifier` | int | \u2212100–100 | `40` |" in rows
    assert "| `closing_loss_step` | float or `null` | > 0, ≤ 1 | `0.03` |" in rows
    assert '| `gun_loss_rule` | `"proportional"` | only value | `"proportional"` |' in rows
    assert '| `melee_winner_rule` | `"lower_loss_share"`, `"odds"` |  | `"odds"` |' in rows
    assert "| `spent_out_loss` | float or `null` | 0–1 | `0.2` |" in rows
    assert '| `counter_charge` | `"open"`, `"any"` or `null` |  | `null` |' in rows
    assert len(rows) == 2 + len(MusketOptions.model_fields)


if __name__ == "__main__":
    page = DOC.read_text(encoding="utf-8")
    a, b = _written(page)
    DOC.write_text(page[:a] + options_table() + page[b:], encoding="utf-8")
    sys.exit(0)


def test_every_schema_line_in_the_tree_points_at_the_schema() -> None:
    """A scenario's ``$schema`` path is read relative to the file (docs/scenario-format.md):
    every YAML file of the tree that names one names docs/scenario.schema.json from where it
    is (the history suite's scenarios, copied from scenarios/, pointed at a docs/ beside
    them that does not exist: no completion, no checking in an editor)."""
    root = Path(__file__).resolve().parents[1]
    schema = (root / "docs" / "scenario.schema.json").resolve()
    named = 0
    for path in sorted(root.glob("**/*.yaml")):
        if any(part.startswith(".") for part in path.relative_to(root).parts) or (
            path.is_symlink()  # a ruleset's examples: links to scenarios/, read from there
        ):
            continue  # the venv, caches
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        if "$schema=" in first:
            named += 1
            target = first.split("$schema=", 1)[1].strip()
            assert (path.parent / target).resolve() == schema, path
    assert named >= 30  # scenarios/ and the test data; the links to them are read there
