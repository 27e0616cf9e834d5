"""The fire line of the narrative shows what a designer needs to redo it by hand: the
base value and each factor that made the combat value V, and V and E as the event holds
them, not rounded to whole numbers (233.5 read "234", 222.5 read "222")."""

from __future__ import annotations

import math
from pathlib import Path

from sim import api
from sim.rulesets.musket.model.events import Fired

ROOT = Path(__file__).resolve().parents[2]


def _plain(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.3f}".rstrip("0").rstrip(".")


def test_each_fire_line_shows_the_factors_and_the_values_the_event_holds(tmp_path: Path) -> None:
    out = tmp_path / "nb.jsonl"
    api.run(ROOT / "scenarios" / "napoleonic_brigade.yaml", seed=3, out=out)
    lines = [(e, line) for e, line in api.narrative(out, types="fired") if isinstance(e, Fired)]
    with_factors = [(e, line) for e, line in lines if e.factors]
    fractional = [(e, line) for e, line in lines if not float(e.result.v).is_integer()]
    assert with_factors and fractional  # the seed's battle has both kinds (checked here)
    for e, line in lines:
        v = e.result.v
        assert math.isclose(e.base_value * math.prod(e.factors.values()), v)
        if e.factors:
            made = " ".join(f"× {f:g} {k.replace('_', ' ')}" for k, f in e.factors.items())
            assert f"value {_plain(e.base_value)} {made} = {_plain(v)}," in line
        else:
            assert f"value {_plain(v)}," in line
        assert f"→ E {_plain(e.result.effective)}," in line
    assert any(
        "value 397 × 0.5 disrupted × 0.5 column fire = 99.25," in line for _e, line in lines
    )  # 61e Ligne in turn 3: not "value 99"
