"""Rulesets plug in through the ``battlesim.rulesets`` entry-point group."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from sim.contract import registry


def _with_entry_points(monkeypatch: pytest.MonkeyPatch, *eps: EntryPoint) -> None:
    monkeypatch.setattr(registry, "entry_points", lambda group: list(eps))
    monkeypatch.setattr(registry, "_loaded", {})


def test_installed_package_declares_musket_entry_point() -> None:
    """The installed distribution lists musket in the entry-point group."""
    from importlib.metadata import entry_points

    names = {ep.name: ep.value for ep in entry_points(group=registry.ENTRY_POINT_GROUP)}
    assert names["musket"] == "sim.rulesets.musket:RULESET"


def test_third_party_ruleset_is_found_by_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ruleset another package declares is listed and loaded by name."""
    ep = EntryPoint("toy", "tests.sim.toy_ruleset:RULESET", registry.ENTRY_POINT_GROUP)
    _with_entry_points(monkeypatch, ep)
    assert "toy" in registry.ruleset_names()
    assert registry.get_ruleset("toy").name == "toy"


def test_broken_entry_point_is_a_clear_lookup_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry point that names something other than a matching Ruleset is refused clearly."""
    ep = EntryPoint("liar", "sim.rulesets.musket:RULESET", registry.ENTRY_POINT_GROUP)
    _with_entry_points(monkeypatch, ep)
    with pytest.raises(LookupError) as err:
        registry.get_ruleset("liar")
    assert str(err.value) == (
        "ruleset 'liar' (entry point liar = sim.rulesets.musket:RULESET) is a Ruleset named "
        "'musket', not a Ruleset named 'liar'"
    )


def test_a_scenario_model_keyed_to_another_ruleset_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plugin reusing another ruleset's scenario model keeps that ruleset's key, which
    would put two rulesets on one key of the union every tool reads scenarios by."""
    ep = EntryPoint("toy2", "tests.sim.toy_ruleset:MUSKET_KEY", registry.ENTRY_POINT_GROUP)
    _with_entry_points(monkeypatch, ep)
    with pytest.raises(LookupError) as err:
        registry.get_ruleset("toy2")
    assert str(err.value) == (
        "ruleset 'toy2' (entry point toy2 = tests.sim.toy_ruleset:MUSKET_KEY): its scenario "
        "model's 'ruleset' field is Literal['musket']: declare it Literal[\"toy2\"], the "
        "ruleset's own name alone"
    )


def test_unknown_ruleset_lists_the_installed_ones() -> None:
    """Asking for a ruleset that is not installed names the ones that are."""
    with pytest.raises(LookupError) as err:
        registry.get_ruleset("chess")
    assert str(err.value).startswith("unknown ruleset 'chess'; installed: ")
    assert "musket" in str(err.value)
