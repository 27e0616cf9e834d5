"""English by count and by name: "1 casualty", "2 casualties", "The goblins win".

Narratives, headlines and summaries of every ruleset use these, so a count
of one and a side named in the plural read right. A name is plural when its
last word (before any comma) ends in "s" but not in "ss", "us" or "is"
("The goblins", "Orc raiders", "92nd Highlanders"; not "Orc band",
"Thorgrim", "Bunker Hill", or a place such as "28th Massachusetts"), or is an
irregular plural ("Rohan's men", "The people"): a simple rule that a side or
unit name can always satisfy by its wording. The last word is the one before
a trailing parenthetical ("Carroll's Tennesseans (right)") and before numbers
that end the name ("Batteries Nos. 6 and 7", "Battery No. 8").
"""

from __future__ import annotations

import re

__all__ = ["agree", "an", "count", "in_sentence", "is_plural", "one_point", "ordinal", "plural"]

_IRREGULAR = {"is": "are", "has": "have", "was": "were", "does": "do", "goes": "go"}
_SINGULAR_ENDINGS = ("ss", "us", "is")
_SINGULAR_PLACES = frozenset(
    {"massachusetts", "texas", "arkansas", "kansas", "wales", "flanders", "paris", "athens"}
    # one hero each (docs/rulesets.md's duel is Hector against Achilles)
    | {"achilles", "hercules", "ulysses", "xerxes", "ramses", "pericles", "themistocles"}
    | {"leonidas", "miltiades", "alcibiades", "aristides", "diomedes"}
)
_IRREGULAR_PLURALS = frozenset(
    {"men", "women", "people", "folk", "children", "riflemen", "bowmen", "footmen", "yeomen"}
    | {"horsemen", "spearmen", "pikemen", "freemen"}
    | {"militiamen", "infantrymen", "cavalrymen", "artillerymen", "seamen", "airmen"}
)


_PARENTHETICAL = re.compile(r"\s*\([^()]*\)\s*$")
"""A parenthetical ending a name: "(right)" of "Carroll's Tennesseans (right)"."""
_NUMBERING = re.compile(r"\d[\w-]*|and|&|nos?\.?|#")
"""A word of the numbers ending a name: "Nos.", "6", "and", "7" of "Batteries Nos. 6 and 7"."""


def _head_word(name: str) -> str:
    """The word of ``name`` its number is read from, in lower case, bare of punctuation.

    The last word before any comma ("Foot battery, 6-pdrs": "battery") and before a
    trailing parenthetical ("Carroll's Tennesseans (right)": "tennesseans"); when numbers
    end what is left, the word before them ("Batteries Nos. 6 and 7": "batteries").

    >>> _head_word("Battery No. 1 (Humphrey)"), _head_word("44th (East Essex)")
    ('battery', '44th')
    """
    words = name.partition(",")[0].split()
    while (cut := _PARENTHETICAL.sub("", " ".join(words))) and cut != " ".join(words):
        words = cut.split()
    bare = [w.lower().strip(".;:!?'\"") for w in words]
    if bare and bare[-1][:1].isdigit():
        named = [w for w in bare if not _NUMBERING.fullmatch(w)]
        while bare and _NUMBERING.fullmatch(bare[-1]) and named:
            bare.pop()
    return bare[-1] if bare else ""


def is_plural(name: str) -> bool:
    """True when ``name`` reads as a plural ("The goblins", "Orcs"), by its head word.

    The last word before any comma: "Foot battery, 6-pdrs" is a battery; before a
    trailing parenthetical and numbers ending the name (:func:`_head_word`). A
    place that ends in "s" is one place: "28th Massachusetts", "4th Texas".
    """
    last = _head_word(name)
    if last in _IRREGULAR_PLURALS or last.endswith("smen"):  # horsemen, swordsmen, kinsmen
        return True
    if last in _SINGULAR_PLACES:
        return False
    return last.endswith("s") and not last.endswith(_SINGULAR_ENDINGS) and len(last) > 2


def in_sentence(name: str) -> str:
    """``name`` as it reads inside a sentence: a leading article in lower case.

    >>> in_sentence("The goblins"), in_sentence("A company"), in_sentence("Thorgrim")
    ('the goblins', 'a company', 'Thorgrim')
    """
    first, space, rest = name.partition(" ")
    if space and first in ("The", "A", "An"):
        return first.lower() + space + rest
    return name


def _verb_plural(verb: str) -> str:
    """The plural form of a third-person singular verb ("wins" -> "win")."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith(("ches", "shes", "sses", "xes", "zes")):
        return verb[:-2]
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    return verb[:-1] if verb.endswith("s") else verb


def _agreeing(plural_subject: bool, phrase: str) -> str:
    """``phrase`` with its first word, a verb, in the subject's number."""
    word, space, rest = phrase.partition(" ")
    verb = word.rstrip(",;:")
    mark = word[len(verb) :]
    if plural_subject:
        verb = _verb_plural(verb)
    elif not verb.endswith("s") and verb not in _IRREGULAR.values():
        verb = verb + ("es" if verb.endswith(("ch", "sh", "x", "z", "o")) else "s")
    return f"{verb}{mark}{space}{rest}"


def agree(name: str, phrase: str, *more: str, joiner: str = ", ") -> str:
    """``name`` and ``phrase`` (its first word a singular verb), the verb agreeing with the name.

    Each of ``more`` is a further phrase of the same subject, joined with ``joiner``.

    >>> agree("Union", "wins"), agree("The goblins", "act first")
    ('Union wins', 'The goblins act first')
    >>> agree("The goblins", "acts first")
    'The goblins act first'
    >>> agree("Royal Dragoons", "breaks off", "falls back")
    'Royal Dragoons break off, fall back'
    >>> agree("Royal Dragoons", "is routed", "retreats", joiner=" and ")
    'Royal Dragoons are routed and retreat'
    """
    plural_subject = is_plural(name)
    return f"{name} " + joiner.join(_agreeing(plural_subject, p) for p in (phrase, *more))


def plural(word: str) -> str:
    """The regular English plural of a noun ("casualty" -> "casualties", "hex" -> "hexes")."""
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


def an(word: str) -> str:
    """``word`` after its indefinite article, chosen by its first letter: ``"a musket"``,
    ``"an archery"`` (a ruleset's name in "an archery scenario")."""
    return f"an {word}" if word[:1].lower() in ("a", "e", "i", "o", "u") else f"a {word}"


def count(n: int | float, word: str, many: str | None = None, *, spec: str = "") -> str:
    """``"1 casualty"``, ``"0 casualties"``, ``"2 men"`` (``many`` for irregular plurals);
    ``spec`` formats the number (``count(20000, "run", spec=",")`` is ``"20,000 runs"``)."""
    return f"{n:{spec}} {word if n == 1 else (many or plural(word))}"


def ordinal(n: int) -> str:
    """``"1st"``, ``"2nd"``, ``"3rd"``, ``"4th"``; ``"11th"`` to ``"13th"``, then ``"21st"``."""
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}{({1: 'st', 2: 'nd', 3: 'rd'}).get(n % 10, 'th')}"


_ONE_POINTS = re.compile(r"(?<![\w.,])1 points\b")
"""``1 points`` as a count of its own (not the end of ``21 points`` or ``0.1 points``)."""


def one_point(reason: str) -> str:
    """``reason`` with each ``1 points`` said ``1 point``, for showing it.

    A battle's reason is recorded in its last event as the rules wrote it (flattop's tally,
    ``every strike flown: Allied 1 points, Japanese 14 — …``), and that text is the
    replay's, fixed by its hash chain and its state digests, and a study's (its runs'
    ``reason``): it stays so there. Every line that shows it — the headline, the narrative
    of the end, the report's page — words the count as :func:`count` does.

    >>> one_point("every strike flown: Allied 1 points, Japanese 14 — Japanese leads by 13")
    'every strike flown: Allied 1 point, Japanese 14 — Japanese leads by 13'
    >>> one_point("turn limit: Allied 21 points, Japanese 1")
    'turn limit: Allied 21 points, Japanese 1'
    """
    return _ONE_POINTS.sub("1 point", reason)
