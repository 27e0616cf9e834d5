"""The catalog behind `rulesets`, `scenarios` and `new`, for a third-party ruleset too."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from sim.contract import registry
from sim.scenario import catalog


def _with_toy(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = EntryPoint("toy", "tests.sim.toy_ruleset:RULESET", registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [ep])
    monkeypatch.setattr(catalog, "entry_points", lambda group: [ep])
    monkeypatch.setattr(registry, "_loaded", {})


def test_an_entry_point_ruleset_is_listed_with_its_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ruleset from an entry point is listed after the built-ins' order, by name, as such."""
    _with_toy(monkeypatch)
    found = {r.name: r for r in catalog.installed_rulesets()}
    assert sorted(found) == ["becmi", "flattop", "musket", "toy"]
    assert (found["toy"].source, found["toy"].target) == (
        "entry point",
        "tests.sim.toy_ruleset:RULESET",
    )


def test_a_ruleset_without_template_is_refused_plainly(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`new toy x.yaml`, a ruleset with no template.yaml nor examples: CatalogError, no file."""
    _with_toy(monkeypatch)
    with pytest.raises(catalog.CatalogError) as info:
        catalog.new_scenario("toy", tmp_path / "x.yaml")
    assert str(info.value) == (
        "ruleset 'toy' ships no template.yaml and no examples: start from a scenario"
    )
    assert list(tmp_path.iterdir()) == []


def test_scenarios_outside_a_checkout_are_a_clear_error(tmp_path: Path) -> None:
    """With no scenarios folder (installed without sources) the listing says where it looked."""
    with pytest.raises(catalog.CatalogError) as info:
        catalog.shipped_scenarios(tmp_path / "nowhere")
    assert str(info.value) == f"no shipped scenarios here: {tmp_path / 'nowhere'} is not a folder"


def test_new_writes_through_no_planted_link(tmp_path: Path) -> None:
    """Links planted at the temporary names beside the new files are never written through."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    folder = tmp_path / "work"
    folder.mkdir()
    for name in (".scenario.schema.json.partial", ".x.yaml.partial"):
        (folder / name).symlink_to(victim)
    catalog.new_scenario("musket", folder / "x.yaml")
    assert victim.read_text() == "precious\n"
    for name in ("scenario.schema.json", "x.yaml"):
        assert (folder / name).is_file() and not (folder / name).is_symlink()


@pytest.mark.parametrize(
    ("stem", "name"),
    [
        ("my_battle", "My battle"),
        ("a\x1bb", "Ab"),  # ESC: a control character no name may hold
        ("n\udcff\udcfe", "N"),  # a file name that is not UTF-8 (os.fsdecode's escapes)
        ("\x1b", "New battle"),
        ("x" * 250, "X" + "x" * 119),  # a name holds at most 120 characters
    ],
)
@pytest.mark.parametrize("ruleset", ["musket", "becmi", "flattop"])
def test_new_writes_a_scenario_that_validates_whatever_its_file_is_called(
    tmp_path: Path, ruleset: str, stem: str, name: str
) -> None:
    """The name is made of the file's stem; a stem with a control character or of more than
    120 characters gave a scenario validate refused ("new … validates and runs as written"),
    and one not UTF-8 failed to write it (UnicodeEncodeError, no file named)."""
    from sim.scenario.load import load_scenario

    made = catalog.new_scenario(ruleset, tmp_path / f"{stem}.yaml")
    assert made["name"] == name
    _, scenario = load_scenario(tmp_path / f"{stem}.yaml")
    assert scenario.name == name  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("description", "summary"),
    [
        (
            "The Sunken Road at Antietam: D. H. Hill's two brigades. More.",
            "The Sunken Road at Antietam: D. H. Hill's two brigades.",
        ),
        ("Gen. Lee's left (cf. vol. V). Then the rest.", "Gen. Lee's left (cf. vol. V)."),
        ("One sentence without a stop", "One sentence without a stop"),
        ("Ends at the end.", "Ends at the end."),
        ("Two  lines,\n  folded. Second.", "Two lines, folded."),
    ],
)
def test_a_summary_ends_at_a_sentence_not_at_an_initial(description: str, summary: str) -> None:
    assert catalog._first_sentence(description) == summary
