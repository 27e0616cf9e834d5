"""A run's outcome JSON is the canonical text, whichever encoder writes it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.canonical import canonical_json
from sim.batch.execution import rows
from sim.batch.execution.rows import outcome_json
from sim.batch.execution.worker import fight, prepare
from sim.batch.inputs.target import load_target
from tests.contract.cases import INSTALLED_CASES

_SCALARS = (
    st.text()  # any code point, lone surrogates and control characters included
    | st.integers(min_value=-(2**70), max_value=2**70)  # beyond 64 bits too
    | st.booleans()
    | st.none()
    | st.floats()  # NaN and infinities included: the canonical encoder refuses them
)
_KEYS = st.text(max_size=6) | st.integers(-3, 3)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(_KEYS, inner, max_size=4)
    ),
    max_leaves=20,
)


def _either(encode: Any, value: Any) -> tuple[str, Any]:
    try:
        return "text", encode(value)
    except (ValueError, TypeError) as exc:
        return "refused", type(exc)


@settings(max_examples=400)
@given(st.dictionaries(_KEYS, _VALUES, max_size=5))
def test_same_text_or_same_refusal_as_canonical_json(value: dict[Any, Any]) -> None:
    """Over text of any code point, ints of any size, floats (NaN too), non-text keys,
    tuples and nesting, outcome_json writes canonical_json's text or refuses as it does."""
    assert _either(outcome_json, value) == _either(canonical_json, value)


@pytest.mark.parametrize("case", INSTALLED_CASES, ids=str)
def test_every_shipped_outcome_takes_the_fast_path(
    case: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every shipped scenario's outcome is plain data (no floats) that orjson writes, without
    the canonical encoder, as exactly the canonical text."""
    if not case.scenario.exists():
        pytest.skip("no scenario")
    fought = fight(prepare(load_target(case.scenario), {}), 4)
    expected = canonical_json(fought.outcome)
    called: list[Any] = []
    monkeypatch.setattr(rows, "canonical_json", called.append)
    assert outcome_json(fought.outcome) == expected and called == []
