"""The fitting/held-out lot rule (sim/history/split.py) and the shipped files' agreement."""

from __future__ import annotations

import hashlib
import math

from sim.history import SUITE, load_suite
from sim.history.split import LATE, ORIGINAL, RECAST, digest, expected, splits

MUSKET_ORIGINAL = [
    "stone_wall_first_hour",
    "marye_heights_day",
    "quatre_bras_hedge",
    "chancellorsville_works",
    "fredericksburg_campaign",
]
FLATTOP_ORIGINAL = ["coral_sea_shoho", "coral_sea_tf17"]


def _ranked(ids: list[str]) -> list[str]:
    return sorted(
        ids,
        key=lambda i: hashlib.sha256(f"battlesim holdout 2026-12-03 {i}".encode()).hexdigest(),
    )


def test_the_digest_is_of_the_fixed_text() -> None:
    assert (
        digest("malvern_hill")
        == hashlib.sha256(b"battlesim holdout 2026-12-03 malvern_hill").hexdigest()
    )
    assert {*MUSKET_ORIGINAL, *FLATTOP_ORIGINAL} == ORIGINAL


def test_half_the_new_cases_of_each_ruleset_are_held_out() -> None:
    """flattop: 2 original + 6 new = 8; ⌈6/2⌉ = 3 ≥ ⌈8/3⌉ = 3, so the first 3 of the
    ranking are held out. musket: 5 + 7 = 12; ⌈7/2⌉ = 4 ≥ ⌈12/3⌉ = 4."""
    new_f = [f"carrier_{i}" for i in range(6)]
    new_m = [f"musket_{i}" for i in range(7)]
    got = splits(
        [(i, "flattop") for i in FLATTOP_ORIGINAL + new_f]
        + [(i, "musket") for i in MUSKET_ORIGINAL + new_m]
    )
    held = {i for i, s in got.items() if s == "held_out"}
    assert held == set(_ranked(new_f)[:3]) | set(_ranked(new_m)[:4])
    assert all(got[i] == "fitting" for i in ORIGINAL)
    assert len(got) == 2 + 6 + 5 + 7


def test_the_share_is_raised_to_a_third_of_the_ruleset() -> None:
    """musket: 5 original + 3 new = 8: ⌈3/2⌉ = 2 < ⌈8/3⌉ = 3, so all 3 new are held out;
    5 + 1 new: ⌈6/3⌉ = 2 but only 1 new case can be; 5 + 0 new: none."""
    three = splits([(i, "musket") for i in [*MUSKET_ORIGINAL, "a", "b", "c"]])
    assert [i for i, s in three.items() if s == "held_out"] == ["a", "b", "c"]
    one = splits([(i, "musket") for i in [*MUSKET_ORIGINAL, "a"]])
    assert [i for i, s in one.items() if s == "held_out"] == ["a"]
    none = splits([(i, "musket") for i in MUSKET_ORIGINAL])
    assert set(none.values()) == {"fitting"}
    n, k = 20, 13
    ids = [*MUSKET_ORIGINAL, *(f"m{i}" for i in range(k)), "x1", "x2"]
    got = splits([(i, "musket") for i in ids])
    assert n == len(ids)
    held = max(math.ceil((k + 2) / 2), math.ceil(n / 3))
    assert sorted(i for i, s in got.items() if s == "held_out") == sorted(
        _ranked([i for i in ids if i not in ORIGINAL])[:held]
    )


def test_the_shipped_cases_agree_with_the_rule() -> None:
    """Every shipped case's ``split`` is the rule's, recomputed from the suite's ids and
    rulesets. A case file without ``split`` must be an original (pre-2026-12-03) fitting
    case: a NEW case without it fails here until its ruleset's split commit lands
    (issue 30: the split is applied in a separate commit once the cases are written)."""
    cases = load_suite(SUITE)
    rule = expected(cases)
    unsplit = [
        c.id
        for c in cases
        if "split" not in c.spec.model_fields_set and c.id not in ORIGINAL and c.id not in RECAST
    ]
    assert unsplit == [], "new cases with no split: key (the split commit has not landed)"
    wrong = {c.id: (c.spec.split, rule[c.id]) for c in cases if c.spec.split != rule[c.id]}
    assert wrong == {}, "case: (its split, the rule's)"


def test_a_late_case_is_fitting_and_moves_no_other_case() -> None:
    """The late-case addition (2026-12-04): a case written after the held-out verdicts were
    seen joins the fitting set, and every other case keeps the split the rule gave it
    without the late case, whatever the late case's digest (it is in neither the ranking
    nor the counts). Without the addition, one more new musket case would change them:
    5 + 11 new = 16 cases hold out ⌈11/2⌉ = 6; with a 12th new case ⌈12/2⌉ = 6 of a new
    ranking, and the 12th is held out if its digest ranks among the first six."""
    new = [f"musket_{i}" for i in range(11)]
    base = [(i, "musket") for i in MUSKET_ORIGINAL + new]
    before = splits(base)
    assert sum(s == "held_out" for s in before.values()) == 6
    # a late id that would rank first of all (the smallest digest among 200 candidates)
    late = min((f"late_{i}" for i in range(200)), key=digest)
    assert digest(late) < min(digest(i) for i in new)
    after = splits([*base, (late, "musket")], late={late})
    assert after[late] == "fitting"
    assert {i: s for i, s in after.items() if i != late} == before
    # the same id as an ordinary new case is held out, and one case's split changes
    # (⌈12/2⌉ = 6 held out: the late id takes the first place, the sixth drops to fitting)
    plain = splits([*base, (late, "musket")], late=set())
    assert plain[late] == "held_out"
    moved = [i for i in before if plain[i] != before[i]]
    assert moved == [_ranked(new)[5]]


def test_the_shipped_late_cases_are_fitting() -> None:
    """Every shipped late case is fitting, is neither original nor a re-cast, and names
    when it was written and what it fits; the other cases' splits are the rule's without
    the late cases (so an addition to :data:`LATE` moved nobody)."""
    cases = load_suite(SUITE)
    ids = {c.id for c in cases}
    for case_id, why in LATE.items():
        assert case_id in ids, f"{case_id}: a late case with no case file"
        assert case_id not in ORIGINAL and case_id not in RECAST
        assert why.startswith("2026-12-"), why
    rule = expected(cases)
    assert all(rule[i] == "fitting" for i in LATE)
    without = splits((c.id, c.target.ruleset().name) for c in cases if c.id not in LATE)
    assert {i: s for i, s in rule.items() if i not in LATE} == without


def test_the_docs_ranking_tables_are_the_rules() -> None:
    """docs/history.md lists, for each ruleset, its new cases in the rule's order with their
    digests and sets: the rows are exactly the rule's, from the shipped cases."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "history.md").read_text("utf-8")
    cases = load_suite(SUITE)
    got = expected(cases)
    for ruleset in ("musket", "flattop"):
        ids = [c.id for c in cases if c.target.ruleset().name == ruleset]
        ranked = _ranked([i for i in ids if i not in ORIGINAL and i not in LATE])
        rows = [
            f"| {n} | `{i}` | `{digest(i)}` | {got[i].replace('_', ' ')} |"
            for n, i in enumerate(ranked, 1)
        ]
        at = docs.index(f"\n{ruleset} (k = {len(ranked)} new cases")
        shown = docs[at:].split("\n\n")[1].splitlines()[2:]
        assert shown[: len(rows)] == rows
        assert all(line.startswith("| — |") for line in shown[len(rows) :])
