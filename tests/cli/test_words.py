"""Output that reads right: agreeing verbs, each ruleset's turn word, diff in words (issue 24)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from sim.batch.analysis.summary import format_summary
from sim.batch.charts import results
from sim.cli import cli
from sim.scenario.load import load_scenario

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"
REPLAYS = REPO / "replays"
PYTHON_REPR = re.compile(r"\{'|\['|\bNone\b|\bTrue\b|\bFalse\b")


def _invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args), prog_name="battlesim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _plural_brawl(tmp_path: Path) -> Path:
    """The tavern brawl with both sides named in the plural."""
    text = (SCENARIOS / "tavern_brawl.yaml").read_text()
    text = text.replace("    name: Thorgrim\n", "    name: The dwarves\n", 1)
    text = text.replace("    name: Orc band\n", "    name: The hobgoblin guards\n", 1)
    path = tmp_path / "brawl.yaml"
    path.write_text(text)
    return path


def test_a_plural_side_is_the_only_side_left_standing_in_the_plural(tmp_path: Path) -> None:
    """becmi's end reason and the headline agree with 'The dwarves': 'are', 'win', in rounds."""
    result = _invoke("run", str(_plural_brawl(tmp_path)), "-o", str(tmp_path / "b.jsonl"))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == (
        "brawl.yaml (seed 377): The dwarves win after 4 rounds — "
        "The dwarves are the only side left standing"
    )


def test_diff_of_two_rulesets_names_the_ruleset_first() -> None:
    """A musket-vs-flattop diff lists `ruleset` as its first input change, in the file's order."""
    result = _invoke(
        "diff", str(REPLAYS / "stone_wall-s1862.jsonl"), str(REPLAYS / "carrier_duel-s688.jsonl")
    )
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "different inputs:",
        "  changed  ruleset: musket -> flattop",
        "  changed  name: Stone wall at Marye's Heights -> Carrier duel — a day of strikes",
    ]
    assert not PYTHON_REPR.search(result.stdout), result.stdout


def test_diff_tells_the_seeds_fought_with_from_the_scenarios_defaults(tmp_path: Path) -> None:
    """Two scenarios fought at seeds other than their files' `seed`: two seed rows, each saying
    which it is (the JSON keeps both paths `seed`, the seeds fought with first)."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert _invoke("run", "scenarios/stone_wall.yaml", "--seed", "3", "-o", str(a)).exit_code == 0
    assert _invoke("run", "scenarios/tavern_brawl.yaml", "--seed", "4", "-o", str(b)).exit_code == 0
    lines = _invoke("diff", str(a), str(b)).stdout.splitlines()
    seeds = [line for line in lines if line.startswith("  changed  seed")]
    assert seeds == [
        "  changed  seed (fought with): 3 -> 4",
        "  changed  seed (the scenario's default): 1862 -> 377",
    ]
    assert lines[1] == seeds[0]
    inputs = json.loads(_invoke("diff", str(a), str(b), "--json").stdout)["inputs"]
    assert [(c["a"], c["b"]) for c in inputs if c["path"] == "seed"] == [(3, 4), (1862, 377)]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("stone_wall-s1862.jsonl", "chancellorsville-s1863.jsonl"),
        ("carrier_duel-s688.jsonl", "coral_sea-s1942.jsonl"),
        ("tavern_brawl-s377.jsonl", "dungeon_skirmish-s3.jsonl"),
    ],
)
def test_diff_text_has_no_python_reprs(a: str, b: str) -> None:
    """Every value in diff's text is in words: no {'men': …}, ['…'], None, True or False."""
    result = _invoke("diff", str(REPLAYS / a), str(REPLAYS / b), "--verbose")
    assert result.exit_code == 1
    assert not PYTHON_REPR.search(result.stdout), result.stdout


def test_flattop_strength_by_turn_keeps_hits_apart_from_air_factors() -> None:
    """Turn 0: a side's air factors are its CAP and bases; its hits, its ships' damage factors."""
    _, sc = load_scenario(SCENARIOS / "carrier_duel.yaml")
    cells = []
    for side in sorted(sc.sides, key=lambda s: s.id):
        air = sum(tf.cap for tf in side.task_forces)
        air += sum(sum(b.aircraft.values()) for b in side.bases)
        hits = sum(ship.damage_factor(sc.options) for tf in side.task_forces for ship in tf.ships)
        cells.append(f"{side.id} air factors {air} | {air}, hits {hits} | {hits}")
    other = _invoke("diff", str(REPLAYS / "carrier_duel-s688.jsonl"), str(_reseeded_duel()))
    row = next(line for line in other.stdout.splitlines() if line.startswith("  turn   0:"))
    assert row == "  turn   0: " + "; ".join(cells)


def _reseeded_duel() -> Path:
    out = REPO / ".pytest_cache" / "carrier_duel-s5.jsonl"
    out.parent.mkdir(exist_ok=True)
    scenario = str(SCENARIOS / "carrier_duel.yaml")
    assert _invoke("run", scenario, "--seed", "5", "-o", str(out)).exit_code == 0
    return out


def test_becmi_diff_speaks_of_rounds(tmp_path: Path) -> None:
    """diff of two becmi fights: 'strength by round', 'round   0:', never 'turn'."""
    other = tmp_path / "brawl-s5.jsonl"
    scenario = str(SCENARIOS / "tavern_brawl.yaml")
    assert _invoke("run", scenario, "--seed", "5", "-o", str(other)).exit_code == 0
    result = _invoke("diff", str(REPLAYS / "tavern_brawl-s377.jsonl"), str(other))
    lines = result.stdout.splitlines()
    assert "strength by round, units' own measures summed (a | b; - after a battle ended):" in lines
    assert any(
        line.startswith("  round   0: orcs hp 11 | 11; thorgrim hp 24 | 24") for line in lines
    )
    assert not any(line.startswith("  turn ") for line in lines)


def test_batch_and_rerun_speak_of_rounds_and_agree_with_plural_sides(tmp_path: Path) -> None:
    """A becmi batch summary says 'The goblins win' and 'rounds'; rerun 'after N rounds'."""
    out = tmp_path / "study"
    scenario = str(SCENARIOS / "dungeon_skirmish.yaml")
    result = _invoke("batch", scenario, "--runs", "3", "--jobs", "1", "--no-plots", "-o", str(out))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Win and draw rates with 95 % Wilson score intervals"
    labels = [line.split("  ")[1].strip() for line in lines[2:5]]
    assert labels == ["The party wins", "The goblins win", "draw"]
    assert any(line.startswith("  rounds ") for line in result.stdout.splitlines())
    assert not any(line.startswith("  turns ") for line in result.stdout.splitlines())
    rerun = _invoke("rerun", str(out), "0", "-o", str(tmp_path / "r0.jsonl"))
    assert rerun.exit_code == 0
    assert re.search(r": (The party wins|The goblins win) after \d+ rounds? — ", rerun.stdout), (
        rerun.stdout
    )


def _summary(names: dict[str, str], ruleset: str) -> dict[str, Any]:
    win = {
        sid: {"name": n, "count": 1, "p": 0.5, "low": 0.1, "high": 0.9} for sid, n in names.items()
    }
    point = {
        "point": 0, "label": "base", "factors": {}, "runs": 2, "done": 2, "failed": 0,
        "errors": {}, "win": win, "draw": {"count": 0, "p": 0.0, "low": 0.0, "high": 0.8},
        "losses": {}, "turns": {"mean": 3.0, "sd": 1.0, "median": 3.0, "p5": 2.0, "p95": 4.0},
    }  # fmt: skip
    study = {"name": "s", "ruleset": ruleset, "until_ci": None}
    return {"study": study, "points": [point], "unmet_targets": []}


def test_summary_lines_agree_with_singular_and_plural_names() -> None:
    """'Union wins', 'The goblins win'; a musket study's turns are 'turns'."""
    lines = format_summary(_summary({"usa": "Union", "gob": "The goblins"}, "musket"))
    assert lines[2].startswith("  Union wins ")
    assert lines[3].startswith("  The goblins win ")
    assert lines[5].startswith("  turns ")


def test_plot_legend_agrees_with_a_plural_side(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The outcomes plot's legend: 'The party wins', 'The goblins win'."""
    figures: list[Any] = []
    monkeypatch.setattr(results, "_save", lambda fig, path: figures.append(fig) or path)
    summary = _summary({"party": "The party", "gob": "The goblins"}, "becmi")
    results._outcomes(summary, tmp_path / "outcomes.png")
    labels = figures[0].axes[0].get_legend_handles_labels()[1]
    assert labels == ["The party wins", "The goblins win"]


def test_irregular_plural_side_names_take_a_plural_verb() -> None:
    """'Rohan's men win', 'The horsemen win'; 'Yemen wins', 'Bunker Hill wins', 'The party wins'."""
    from sim.text.grammar import agree

    assert [agree(n, "wins") for n in ("Rohan's men", "The horsemen", "Riflemen")] == [
        "Rohan's men win",
        "The horsemen win",
        "Riflemen win",
    ]
    assert [agree(n, "is") for n in ("Yemen", "Bunker Hill", "The party")] == [
        "Yemen is",
        "Bunker Hill is",
        "The party is",
    ]


def test_a_long_measure_name_keeps_every_figure_in_one_column() -> None:
    """A loss name longer than the label column (flattop's "Allied air factors lost to
    anti-aircraft fire") pushed its own figures right of every other line's; the column is as
    wide as the point's longest label, so every line's figures start in the same place."""
    summary = _summary({"allied": "Allied", "japan": "Japanese"}, "flattop")
    stats = {"mean": 0.4, "sd": 0.1, "median": 0.0, "p5": 0.0, "p95": 1.0}
    kinds = ["air_factors", "air_factors_air_combat", "air_factors_anti_aircraft"]
    summary["points"][0]["losses"] = {"allied": {k: stats for k in kinds}}
    lines = format_summary(summary)[2:]
    w = len("Allied air factors lost to anti-aircraft fire")  # the longest label
    assert lines[-1].startswith("  turns") and len(lines) == 7
    for line in lines:  # every label padded to the longest, then its figures
        assert line[2 + w] == " " and (line[2 + w + 1] != " " or "%" in line[2 + w :][:7]), line
    assert [line[2 + w + 1 :].split()[0] for line in lines[3:]] == ["mean"] * 4


@pytest.mark.parametrize(("x", "measure", "said"), [
    (-4e-17, "losses.guns", "+0.0"), (-0.0, "losses.guns", "+0.0"), (-0.04, "turns", "-0.04"),
    (1234.56, "losses.men", "+1,234.6"), (-3e-12, "win_rate", "+0.0 pts"),
    (0.0123, "win_rate", "+1.2 pts"),
])  # fmt: skip
def test_a_zero_difference_is_never_minus_zero(x: float, measure: str, said: str) -> None:
    """ "Union guns lost +0.0  [-0.0, +0.0]" of a study whose guns were never lost: zero, or
    a float's error about it, is +0.0; a bound truly below zero keeps its sign, and its
    figures where it rounds to zero (-0.04, never -0.0)."""
    from sim.batch.analysis.summary import _signed

    assert _signed(x, measure) == said


def test_show_says_yes_and_no_not_pythons_true_and_false(tmp_path: Path) -> None:
    """A flattop task force's `clouds` detail is a yes/no: `show`'s table printed `False`
    and `True` (the report page says no and yes); every cell of it says yes or no."""
    replay = Path(__file__).resolve().parents[2] / "replays" / "carrier_duel-s688.jsonl"
    result = CliRunner().invoke(cli, ["show", str(replay), "--turn", "7"])
    lines = result.stdout.splitlines()
    at = lines[1].index("clouds")  # the column's place in the header, each row's cell there
    cells = {line[at : at + len("clouds")].strip() for line in lines[2:]}
    assert "True" not in result.stdout and "False" not in result.stdout
    assert {"no", "-"} <= cells <= {"no", "yes", "-"}
