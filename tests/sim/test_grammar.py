"""Grammar by count and by plural names, in the helpers and in every ruleset's narrative."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim import api
from sim.replay import analysis
from sim.text.grammar import agree, count, in_sentence, is_plural, ordinal, plural

REPLAYS = sorted((Path(__file__).resolve().parents[2] / "replays").glob("*.jsonl"))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("The goblins", True),
        ("Orcs", True),
        ("42nd Highlanders", True),
        ("Union", False),
        ("Orc band", False),
        ("Thorgrim", False),
        ("Cobb's Legion", False),
        ("Confederate", False),
        ("Lexington's air group", False),
        ("Texas", False),
        ("28th Massachusetts", False),
        ("Foot battery, 6-pdrs", False),
        ("1/95th Rifles", True),
        ("Ross", False),
        ("Nautilus", False),
        ("Achilles", False),  # the docs' duel: "Achilles wins", not "Achilles win"
        ("Leonidas", False),
        ("Allies", True),
        ("Carroll's Tennesseans (right)", True),  # a trailing parenthetical is passed over
        ("Battery No. 1 (Humphrey)", False),
        ("44th (East Essex)", False),
        ("21st (Royal North British Fusiliers)", False),
        ("Batteries Nos. 6 and 7", True),  # numbers last: the noun before them
        ("Battery No. 8", False),
        ("Task Force 17", False),
    ],
)
def test_plural_names_by_last_word(name: str, expected: bool) -> None:
    """Plural when the last word before a comma ends in s (not ss, us, is, nor a place in s);
    the word before a trailing parenthetical, and before numbers ("Nos. 6 and 7") ending it."""
    assert is_plural(name) is expected


def test_the_verb_agrees_past_a_parenthetical_and_numbers() -> None:
    """New Orleans' batteries and Tennesseans fire; a battery and a regiment fires."""
    assert agree("Carroll's Tennesseans (right)", "fires") == "Carroll's Tennesseans (right) fire"
    assert agree("Batteries Nos. 6 and 7", "fires") == "Batteries Nos. 6 and 7 fire"
    assert agree("Battery No. 3 (You and Beluche)", "fires") == (
        "Battery No. 3 (You and Beluche) fires"
    )
    assert agree("44th (East Essex)", "checks") == "44th (East Essex) checks"


def test_agree_and_count() -> None:
    """Verbs agree with the name; nouns take the plural unless the count is exactly one."""
    assert agree("The goblins", "wins") == "The goblins win"
    assert agree("The goblins", "acts first") == "The goblins act first"
    assert agree("Union", "wins the campaign") == "Union wins the campaign"
    assert agree("The Highlanders", "catches fire") == "The Highlanders catch fire"
    assert agree("Orc band", "check morale") == "Orc band checks morale"
    counted = [count(n, "casualty") for n in (0, 1, 2)]
    assert counted == ["0 casualties", "1 casualty", "2 casualties"]
    assert [count(1, "man", "men"), count(3, "man", "men")] == ["1 man", "3 men"]
    assert [plural("hex"), plural("day"), plural("ship")] == ["hexes", "days", "ships"]
    spelt = [count(n, "run", spec=",") for n in (1, 20_000)]  # a format for the number
    assert spelt == ["1 run", "20,000 runs"]


def _lines(path: Path) -> list[tuple[dict[str, object], str]]:
    loaded = api.load_replay(path)
    return [(e.model_dump(), line) for e, line in analysis.narrative(loaded)]


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.stem)
def test_no_narrative_line_says_one_plural(path: Path) -> None:
    """No line of any golden replay's narrative reads '1 casualties', '1 hexes', '1 rounds'..."""
    for _, line in _lines(path):
        wrong = r"(?<![\d.,])1 (casualties|hexes|ships|hits|rounds|guns|units)\b"
        assert not re.search(wrong, line)


def test_one_casualty_is_singular_in_the_fire_lines() -> None:
    """Every musket fire line ends its result in 'N casualty' when N is 1, else 'N casualties'."""
    seen = 0
    for path in REPLAYS:
        for event, line in _lines(path):
            if event["type"] != "musket.fired":
                continue
            n = event["result"]["casualties"]  # type: ignore[index]
            assert re.search(rf"→ {count(n, 'casualty')}[, ]", line)
            seen += 1
    assert seen > 50


def test_plural_side_names_agree_in_the_becmi_narrative() -> None:
    """The goblin skirmish: 'the goblins act first', 'the party acts first', no 'goblins acts'.

    A side's name inside a sentence takes its article in lower case (issue 33:
    "The goblins act first" after a semicolon read as a capital mid-sentence).
    """
    [path] = [p for p in REPLAYS if p.stem.startswith("dungeon_skirmish")]
    lines = [line for _, line in _lines(path)]
    assert any(line.endswith("; the goblins act first") for line in lines)
    assert any(line.endswith("; the party acts first") for line in lines)
    assert not any("goblins acts" in line or "The goblins wins" in line for line in lines)
    assert not any("; The " in line or ", The " in line for line in lines)


def test_a_name_in_a_sentence_lowers_only_its_article() -> None:
    """in_sentence lowers a leading The/A/An and nothing else."""
    assert in_sentence("The goblins") == "the goblins"
    assert in_sentence("An orc band") == "an orc band"
    assert in_sentence("Theodric") == "Theodric"
    assert in_sentence("The") == "The"
    assert in_sentence("Union") == "Union"


def _against(event: dict[str, object], verb: str, verbs: str) -> str:
    """How a musket d6 passes at or under its value (docs/rules/musket.md, *Morale checks*):
    from 1 to 5 "at or under" it, below 1 never, at 6 or more always."""
    roll, value = event["roll"], event["morale_value"]
    assert isinstance(value, int)
    if value < 1:
        return f"rolled {roll}; cannot {verb} (needs {value} or less))"
    if value >= 6:
        return f"rolled {roll}; always {verbs} (at or under {value}))"
    return f"rolled {roll}, {verbs} at or under {value})"


def test_every_morale_line_says_how_its_roll_passes() -> None:
    """musket checks and rallies say "at or under" the value a d6 can pass at, "cannot" below
    1, "always" at 6 or more; becmi morale: each flees above its ML."""
    seen = 0
    for path in REPLAYS:
        for event, line in _lines(path):
            if event["type"] == "musket.morale_tested":
                assert _against(event, "pass", "passes") in line, line
                seen += 1
            elif event["type"] == "musket.rallied":
                assert _against(event, "rally", "rallies") in line, line
                seen += 1
            elif "checks morale (" in line:
                assert "each flees above its ML" in line, line
                seen += 1
    assert seen > 20


def test_melee_lines_tell_retreats_and_advances() -> None:
    """Every musket melee line names the hex the loser retreats to and the winner advances to."""
    seen = {"retreat": 0, "advance": 0}
    for path in REPLAYS:
        for event, line in _lines(path):
            if event["type"] != "musket.meleed":
                continue
            to, adv = event["loser_retreats_to"], event["winner_advances_to"]
            if to is not None:
                assert f"retreats to {to[0]},{to[1]}" in line  # type: ignore[index]
                seen["retreat"] += 1
            if adv is not None:
                assert f"advances to {adv[0]},{adv[1]}" in line  # type: ignore[index]
                seen["advance"] += 1
            else:
                assert "advances to" not in line
    assert seen["retreat"] > 0 and seen["advance"] > 0


def test_unit_names_agree_in_the_musket_narrative() -> None:
    """'92nd Highlanders fire', '28th Massachusetts fires', 'Foot battery, 6-pdrs fires'.

    Every line of the two golden battles whose subject is a unit takes the
    verb in that unit's number: fires, charges, routs, checks, rallies...
    """
    verbs = r"(fires?|charges?|routs?|checks?|rall(?:y|ies)|rests?|moves?|withdraws?|flees?)"
    seen = {True: 0, False: 0}
    for stem in ("napoleonic_brigade", "stone_wall"):
        [path] = [p for p in REPLAYS if p.stem.startswith(stem)]
        loaded = api.load_replay(path)
        names = [u.name for u in loaded.state_at(0).units.values()]
        for _, line in _lines(path):
            subject = line.partition(" — ")[2]
            for name in names:
                found = re.match(re.escape(name) + " " + verbs + r"\b", subject)
                if found is None:
                    continue
                verb = found.group(1)
                singular = verb.endswith("s") and not verb.endswith("ss")
                assert singular is not is_plural(name), line
                seen[is_plural(name)] += 1
    assert seen[True] > 10 and seen[False] > 10


def test_tied_initiative_reads_as_the_tie_rule_says() -> None:
    """Sides tied on the highest roll act together under ``initiative_ties: simultaneous``
    (the default, [src]); under ``first_listed`` the first listed acts first, said as a tie."""
    from sim.rulesets.becmi.reading.report import narrate

    [path] = [p for p in REPLAYS if p.stem.startswith("dungeon_skirmish")]
    loaded = api.load_replay(path)
    lines = dict((e["seq"], line) for e, line in _lines(path) if e["type"] == "becmi.initiative")
    tied = 0
    for e in (e for e in loaded.events if e.type == "becmi.initiative"):
        rolls = e.rolls  # type: ignore[attr-defined]
        top = sorted(rolls.values())[-2:]
        if top[0] == top[1]:
            tied += 1
            assert lines[e.seq].endswith("; a tie: the party and the goblins act together")
            before = loaded.state_at(e.turn - 1)
            options = loaded.scenario.options.model_copy(update={"initiative_ties": "first_listed"})
            scenario = loaded.scenario.model_copy(update={"options": options})
            assert narrate(scenario, before, e).endswith(  # type: ignore[arg-type]
                "; a tie: the party acts first, first listed"
            )
        else:
            assert "tie" not in lines[e.seq] and lines[e.seq].endswith(("acts first", "act first"))
    assert tied >= 1


def test_ordinals_take_the_suffix_of_their_last_digit_but_the_teens() -> None:
    """st, nd, rd after a last digit 1, 2, 3, except 11 to 13 of every hundred; th otherwise."""
    numbers = [1, 2, 3, 4, 10, 11, 12, 13, 14, 21, 22, 23, 101, 111, 112, 113, 122, 1003]
    assert [ordinal(n) for n in numbers] == [
        "1st", "2nd", "3rd", "4th", "10th", "11th", "12th", "13th", "14th", "21st", "22nd",
        "23rd", "101st", "111th", "112th", "113th", "122nd", "1003rd",
    ]  # fmt: skip


def test_an_chooses_the_article_by_the_first_letter() -> None:
    """A ruleset's name in a sentence: "a musket", "an archery", "an Ironclad"."""
    from sim.text.grammar import an

    assert [an(w) for w in ("musket", "archery", "Ironclad", "becmi", "", "x")] == [
        "a musket", "an archery", "an Ironclad", "a becmi", "a ", "a x",
    ]  # fmt: skip
