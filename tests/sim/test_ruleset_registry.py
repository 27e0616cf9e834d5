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


@pytest.mark.parametrize(
    ("name", "target", "said"),
    [
        (
            "liar",
            "sim.rulesets.musket:RULESET",
            " is a Ruleset named 'musket', not a Ruleset named 'liar': name the entry point "
            "musket (the name scenarios give in their ruleset: key)",
        ),
        (  # `dba = "battlesim_dba"`: it said "module 'battlesim_dba' has no attribute ''"
            "bare",
            "sim.rulesets.musket",
            " names a module, not its Ruleset: write the entry point as bare = "
            '"sim.rulesets.musket:RULESET", the module and the name of its Ruleset value',
        ),
        (  # the entry point names a function of the plugin, not its Ruleset
            "fn",
            "sim.rulesets.musket:hooks",
            " is function, not a Ruleset named 'fn': point the entry point at the module's "
            'Ruleset value (fn = "sim.rulesets.musket:RULESET")',
        ),
        (  # another ruleset's scenario model keeps its key: two rulesets on one union key
            "toy2",
            "tests.sim.toy_ruleset:MUSKET_KEY",
            ": its scenario model's 'ruleset' field is Literal['musket']: declare it "
            'Literal["toy2"], the ruleset\'s own name alone',
        ),
    ],
    ids=["another-name", "a-module", "not-a-ruleset", "another-rulesets-model"],
)
def test_a_broken_entry_point_is_a_clear_lookup_error(
    monkeypatch: pytest.MonkeyPatch, name: str, target: str, said: str
) -> None:
    """An entry point that names something other than a Ruleset of that name, with a
    scenario model keyed to it, is refused clearly."""
    _with_entry_points(monkeypatch, EntryPoint(name, target, registry.ENTRY_POINT_GROUP))
    with pytest.raises(LookupError) as err:
        registry.get_ruleset(name)
    where = f"ruleset {name!r} (entry point {name} = {target})"
    assert str(err.value) == where + said


def test_unknown_ruleset_lists_the_installed_ones() -> None:
    """Asking for a ruleset that is not installed names the ones that are."""
    with pytest.raises(LookupError) as err:
        registry.get_ruleset("chess")
    assert str(err.value).startswith("unknown ruleset 'chess'; installed: ")
    assert "musket" in str(err.value)


@pytest.mark.parametrize(
    ("asked", "ep", "said"),
    [
        (  # declared under a group spelt nearly right: not installed as a ruleset
            "dba",
            EntryPoint("dba", "tests.sim.toy_ruleset:RULESET", "battlesim.ruleset"),
            "; an installed package declares dba in the entry-point group 'battlesim.ruleset': "
            "the group is 'battlesim.rulesets'",
        ),
        (  # `ancients = …:RULESET` holding the Ruleset named 'toy'
            "toy",
            EntryPoint("ancients", "tests.sim.toy_ruleset:RULESET", registry.ENTRY_POINT_GROUP),
            "; the entry point ancients = tests.sim.toy_ruleset:RULESET holds the Ruleset named "
            "'toy': name the entry point toy",
        ),
    ],
    ids=["misspelt-group", "another-name"],
)
def test_an_unknown_ruleset_names_what_a_package_may_have_meant(
    monkeypatch: pytest.MonkeyPatch, asked: str, ep: EntryPoint, said: str
) -> None:
    """The unknown-ruleset line says where an installed package declared what was asked for."""
    from importlib.metadata import EntryPoints

    if ep.group == registry.ENTRY_POINT_GROUP:
        _with_entry_points(monkeypatch, ep)
    monkeypatch.setattr(registry, "_every_entry_point", lambda: EntryPoints([ep]))
    with pytest.raises(LookupError) as err:
        registry.get_ruleset(asked)
    assert str(err.value).endswith(said)
