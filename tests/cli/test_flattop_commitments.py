"""A flattop strike may not ask more air factors than its carrier or base holds (issue 24)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from sim.cli import cli

REPO = Path(__file__).resolve().parents[2]
DUEL = REPO / "scenarios" / "carrier_duel.yaml"


def _validate(tmp_path: Path, *edits: tuple[str, str]) -> Result:
    text = DUEL.read_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "duel.yaml"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["validate", str(path)], prog_name="battlesim")
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result


def _line_of(tmp_path: Path, text: str) -> int:
    """The line of the written scenario that holds ``text`` (1-based)."""
    lines = (tmp_path / "duel.yaml").read_text(encoding="utf-8").splitlines()
    return next(k for k, line in enumerate(lines, 1) if text in line)


def test_thirty_dive_bombers_from_a_deck_of_ten_are_refused(tmp_path: Path) -> None:
    """Hornet holds 10 dive bombers: a strike of 30 is one clear line naming the field, exit 2."""
    result = _validate(
        tmp_path,
        ("factors: 8, target: zuikaku}\n          - {aircraft: torpedo_bomber",
         "factors: 30, target: zuikaku}\n          - {aircraft: torpedo_bomber"),
    )  # fmt: skip
    line = _line_of(tmp_path, "factors: 30, target: zuikaku}")  # the scenario's own line
    assert (result.exit_code, result.stderr) == (
        2,
        f"{tmp_path / 'duel.yaml'}:{line}: sides.0.strikes.1.attacks.0.factors: 30 dive_bomber "
        "air factors asked of hornet, which holds 10 at the start\n",
    )


def test_an_escort_and_two_attacks_of_one_type_are_counted_together(tmp_path: Path) -> None:
    """Escort 9 of Enterprise's 8 fighters; two dive-bomber attacks of 10 + 3 > 12: both refused."""
    result = _validate(
        tmp_path,
        ("escort: 3\n        attacks:\n          - {aircraft: dive_bomber, factors: 10",
         "escort: 9\n        attacks:\n          - {aircraft: dive_bomber, factors: 10"),
        ("{aircraft: torpedo_bomber, factors: 4, target: shokaku}",
         "{aircraft: dive_bomber, factors: 3, target: shokaku}"),
    )  # fmt: skip
    assert result.exit_code == 2
    lines = [line.split(": ", 1)[1] for line in result.stderr.splitlines()]
    assert lines == [
        "sides.0.strikes.0.escort: 9 fighter air factors asked of enterprise, "
        "which holds 8 at the start",
        "sides.0.strikes.0.attacks.0.factors: 13 dive_bomber air factors asked of enterprise, "
        "which holds 12 at the start",
    ]


def test_asking_exactly_what_the_deck_holds_is_valid(tmp_path: Path) -> None:
    """10 dive bombers of Hornet's 10 validate."""
    result = _validate(
        tmp_path,
        ("factors: 8, target: zuikaku}\n          - {aircraft: torpedo_bomber",
         "factors: 10, target: zuikaku}\n          - {aircraft: torpedo_bomber"),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr


def test_a_campaign_day_asks_no_more_than_the_decks_carried_into_it(tmp_path: Path) -> None:
    """Day 2 of the carrier war is fought with what day 1 left aboard (its strikes cut to fit)."""
    campaign = REPO / "scenarios" / "carrier_war_campaign.yaml"
    result = CliRunner().invoke(
        cli, ["campaign", str(campaign), "-o", str(tmp_path / "cw")], prog_name="battlesim"
    )
    assert result.exit_code == 0, result.output
    assert "cannot be fought" not in result.stdout
    assert (tmp_path / "cw" / "2-day2.jsonl").is_file()


def test_strikes_launched_together_are_counted_together(tmp_path: Path) -> None:
    """Hornet's dawn strike moved onto Enterprise at Enterprise's dawn launch: each fits her
    deck alone, together they ask 18 of her 12 dive bombers and 8 of her 5 torpedo bombers.
    Refused at the second strike (the second flew with nothing: "no aircraft in the
    hangar"); fighters, 6 of 8, fit."""
    result = _validate(
        tmp_path,
        ('origin: hornet\n        launch: "07:45"', 'origin: enterprise\n        launch: "07:30"'),
    )
    assert result.exit_code == 2
    together = "asked of enterprise by the strikes launched at 07:30 (ent_dawn, hor_dawn)"
    at = f"{tmp_path / 'duel.yaml'}:{_line_of(tmp_path, '- id: hor_dawn')}"  # the strike's item
    assert result.stderr.splitlines() == [
        f"{at}: sides.0.strikes.1: 18 dive_bomber air factors "
        f"{together}, which holds 12 at the start",
        f"{at}: sides.0.strikes.1: 8 torpedo_bomber air factors "
        f"{together}, which holds 5 at the start",
    ]


def test_a_side_with_nothing_on_the_sea_is_refused(tmp_path: Path) -> None:
    """A side with no task force and no base fought a one-turn "draw"; it is refused, as
    musket and becmi refuse an empty side."""
    path = tmp_path / "e.yaml"
    path.write_text(
        'ruleset: flattop\nname: Nobody there\nturns: {limit: 6, start: "07:00"}\nsides:\n'
        "  - id: blue\n    name: Blue\n    task_forces:\n"
        "      - {id: tf1, name: TF One, at: [4, 10],\n"
        "         ships: [{id: dd1, name: D, kind: destroyer}]}\n"
        "  - id: red\n    name: Red\n"
    )
    result = CliRunner().invoke(cli, ["validate", str(path)], prog_name="battlesim")
    assert (result.exit_code, result.stderr) == (
        2,
        f"{path}:10: sides.1: a side needs at least one task force or base\n",
    )
