"""Historical case files (format 1, docs/history.md): the model, and reading a suite.

A case is a shipped scenario or campaign, the quantities of the real battle
it must reproduce, each with its source, and the range a designer accepts.
Every problem in a file is reported as ``file:line: field: message``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from sim.batch.inputs.fieldpath import PathError
from sim.batch.inputs.files import located, validate_located
from sim.batch.inputs.sources import named_target
from sim.batch.inputs.target import Target
from sim.history.cdb90 import band_names
from sim.history.eventpaths import path_problem, value_problem
from sim.scenario.load import Located, ScenarioError, read_yaml, refuse_other_kind
from sim.text.suggest import did_you_mean

__all__ = [
    "FORMAT",
    "SUITE",
    "Accept",
    "Case",
    "CaseFile",
    "LossBand",
    "MeasureSpec",
    "Verdict",
    "load_case",
    "load_suite",
]

FORMAT = 1
"""The case format's version (docs/history.md)."""

SUITE = Path(__file__).parent / "suite"
"""The shipped suite: one case per ``<id>.yaml``."""

Ident = Annotated[str, StringConstraints(pattern=r"^[a-z0-9_]{1,40}$")]
Name = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,40}$")]


def _written(text: str) -> str:
    if not text.strip():
        raise ValueError("only spaces: write it out")
    return text


Text = Annotated[str, StringConstraints(min_length=1, max_length=2000), AfterValidator(_written)]
"""A text a reader relies on (a measure's source, a band's reason): one of spaces alone is
none, and would clear the flag a reason answers."""

Verdict = Literal["pass", "fail", "inconclusive"]
"""A measure's verdict on its interval (docs/history.md, *Verdicts*)."""

Kind = Literal[
    "win",
    "battles_won",
    "reaches",
    "status",
    "loss",
    "unit_loss_max",
    "loss_ratio",
    "loss_from",
    "outcome_loss",
    "events",
    "units_below",
    "duration",
]

_NEEDS: dict[str, tuple[str, ...]] = {
    "win": ("side",),
    "battles_won": ("side",),
    "reaches": ("side", "hexes"),
    "status": ("unit", "word"),
    "loss": ("side", "unit"),
    "unit_loss_max": ("side", "unit"),
    "loss_ratio": ("side", "over", "unit"),
    "loss_from": ("side", "unit", "by_kind", "event", "amount"),
    "outcome_loss": ("side", "loss"),
    "events": ("event",),
    "units_below": ("side", "unit"),
    "duration": (),
}
"""The fields each kind needs."""

_ALLOWS: dict[str, tuple[str, ...]] = {
    "win": ("battle",),
    "battles_won": (),
    "reaches": ("battle",),
    "status": ("battle",),
    "loss": ("share", "kinds", "after_contact", "battle"),
    "unit_loss_max": ("kinds", "after_contact", "battle"),
    "loss_ratio": ("battle",),
    "loss_from": ("actor", "target", "battle"),
    "outcome_loss": ("battle",),
    "events": ("where", "side", "side_field", "battle"),
    "units_below": ("share", "kinds", "battle"),
    "duration": ("battle",),
}
"""The optional fields each kind reads (besides ``at_least``/``at_most``)."""

PROBABILITY_KINDS = frozenset({"win", "reaches", "status"})
RATIO_KINDS = frozenset({"loss_ratio", "loss_from"})
COUNT_KINDS = frozenset({"events", "units_below", "duration", "battles_won"})
"""Kinds whose run's value is a count (events, units, turns, battles): never below 0, so a
mean's interval is cut at 0 (:func:`sim.history.estimate.estimate`)."""
_OPTIONAL = (
    "share",
    "kinds",
    "after_contact",
    "battle",
    "actor",
    "target",
    "where",
    "side_field",
)
Split = Literal["fitting", "held_out"]
"""The set a case belongs to (docs/history.md, *Fitting and held-out cases*)."""
Scalar = bool | int | float | str | None
"""A value an ``events`` measure's ``where`` compares a field with."""
DottedPath = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+){0,9}$")]
"""A dotted field path into an event's JSON (``result.casualties``, ``hits.0``)."""


MAGNITUDE = 1e12
"""The largest number a case may give (a record, a range's end, a threshold), as a
calibration's (``sim.calibrate.spec.MAGNITUDE``): a case is fitted by ``calibrate``, and
its plot draws every range; 1e308 broke both (issue 30's review)."""
Bounded = Annotated[float, Field(ge=-MAGNITUDE, le=MAGNITUDE)]


class Accept(BaseModel):
    """The range a designer accepts: ``min``, ``max`` or both."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    min: Bounded | None = None
    max: Bounded | None = None

    @model_validator(mode="after")
    def _some(self) -> Accept:
        if self.min is None and self.max is None:
            raise ValueError("give min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self

    def holds(self, value: float) -> bool:
        """True when ``value`` lies in the range."""
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)

    def verdict(self, value: float, low: float, high: float) -> Verdict:
        """``pass`` when the interval [low, high] lies within the range, ``fail`` when it lies
        wholly outside it (or there is no estimate: ``value`` is not a number), else
        ``inconclusive`` (an interval that straddles a bound, or none: fewer than two runs)."""
        if math.isnan(value):
            return "fail"
        if math.isnan(low) or math.isnan(high):
            return "inconclusive"
        if self.holds(low) and self.holds(high):
            return "pass"
        if (self.min is not None and high < self.min) or (self.max is not None and low > self.max):
            return "fail"
        return "inconclusive"

    @property
    def sides(self) -> int:
        """How many bounds the range has (1 or 2)."""
        return (self.min is not None) + (self.max is not None)

    def text(self) -> str:
        """The range as a reader writes it: ``≤ 0.05``, ``≥ 0.7``, ``3 – 7``."""
        if self.min is None:
            return f"≤ {_num(self.max)}"
        if self.max is None:
            return f"≥ {_num(self.min)}"
        return f"{_num(self.min)} – {_num(self.max)}"


def _num(x: float | None) -> str:
    """A bound as written (``0.05``, ``13``), with thousands separators from a thousand up
    (``1,515``), never ``1e+06``."""
    assert x is not None
    text = f"{x:,g}"
    return f"{x:,.0f}" if "e+" in text and math.isfinite(x) else text


class MeasureSpec(BaseModel):
    """One quantity of a case: what is measured in each run, history, the accepted range."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    id: Ident
    label: Text
    kind: Kind
    side: Name | None = None
    over: Name | None = None
    unit: Annotated[str, StringConstraints(min_length=1, max_length=40)] | None = None
    word: Annotated[str, StringConstraints(min_length=1, max_length=40)] | None = None
    hexes: list[Annotated[tuple[int, ...], Field(min_length=1, max_length=3)]] | None = Field(
        None, min_length=1, max_length=1000
    )
    """Places, each with as many coordinates as the space has axes (a hex map's two, a
    line's one: the ruleset's ``space``)."""
    share: bool | float | None = None
    """``loss``: true (a share, the default) or false (the amount); ``units_below``: the
    share of its initial strength at or under which a unit counts (default 0)."""
    kinds: list[Name] | None = Field(None, min_length=1, max_length=20)
    after_contact: int | None = Field(None, ge=0, le=1000)
    battle: Name | None = None
    by_kind: Name | None = None
    event: Annotated[str, StringConstraints(min_length=1, max_length=80)] | None = None
    amount: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None
    actor: Name | None = None
    target: Name | None = None
    loss: Name | None = None
    where: dict[DottedPath, Scalar] | None = Field(None, min_length=1, max_length=20)
    side_field: DottedPath | None = None
    at_least: Bounded | None = None
    at_most: Bounded | None = None
    historical: Bounded
    accept: Accept
    source: Text

    @model_validator(mode="after")
    def _fields_of_kind(self) -> MeasureSpec:
        missing = [f for f in _NEEDS[self.kind] if getattr(self, f) is None]
        if missing:
            raise ValueError(f"kind {self.kind} needs {', '.join(missing)}")
        allowed = set(_NEEDS[self.kind]) | set(_ALLOWS[self.kind])
        fields = (
            *_OPTIONAL,
            *("side", "over", "unit", "word", "hexes", "by_kind", "event", "amount", "loss"),
        )
        extra = [f for f in fields if getattr(self, f) is not None and f not in allowed]
        if extra:
            raise ValueError(f"kind {self.kind} does not read {', '.join(extra)}")
        if self.kind == "loss" and self.share is not None and not isinstance(self.share, bool):
            raise ValueError("kind loss takes share: true or false")
        if (
            self.kind == "units_below"
            and self.share is not None
            and (isinstance(self.share, bool) or not 0 <= self.share <= 1)
        ):
            raise ValueError("kind units_below takes share: a number from 0 to 1")
        if self.side_field is not None and self.side is None:
            raise ValueError("side_field names where the side's unit is: give side too")
        if self.at_least is not None and self.at_most is not None:
            raise ValueError("give at_least or at_most, not both")
        if self.threshold is not None and self.kind in PROBABILITY_KINDS | RATIO_KINDS:
            raise ValueError(f"kind {self.kind} cannot take at_least or at_most")
        return self

    @field_validator("historical")
    @classmethod
    def _record_of_a_probability(cls, value: float, info: ValidationInfo) -> float:
        """A probability's record (kinds win, reaches, status, or any with ``at_least`` or
        ``at_most``) is 1 or 0: refused at the ``historical`` field's own line (its kind and
        threshold come before it, so they are read by now)."""
        got = info.data
        probability = got.get("kind") in PROBABILITY_KINDS or any(
            got.get(f) is not None for f in ("at_least", "at_most")
        )
        if probability and value not in (0, 1):
            raise ValueError(
                f"{value:g}: a probability's record is 1 (it happened) or 0 (it did not)"
            )
        return value

    @property
    def threshold(self) -> float | None:
        """``at_least`` or ``at_most``, whichever is set."""
        return self.at_least if self.at_least is not None else self.at_most

    @property
    def statistic(self) -> Literal["probability", "mean", "ratio"]:
        """How the runs' values are combined (docs/history.md, *Measure kinds*)."""
        if self.kind in PROBABILITY_KINDS or self.threshold is not None:
            return "probability"
        return "ratio" if self.kind in RATIO_KINDS else "mean"

    @property
    def floor(self) -> float | None:
        """0 for a count's mean (:data:`COUNT_KINDS`), whose interval is cut there; else None."""
        return 0.0 if self.statistic == "mean" and self.kind in COUNT_KINDS else None


class LossBand(BaseModel):
    """Which of CDB90's bands a musket case's attacker ÷ defender loss is set beside
    (docs/history.md, *Loss ratios against CDB90*): the band, who attacked, and a sourced
    reason when the ratio is above the band's p90 by the rule docs/history.md states."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    band: Ident
    attacker: Name
    defender: Name
    battle: Name | None = None
    """A campaign's battle to read (its ``id``); none for a lone scenario."""
    reason: Text | None = None


class CaseFile(BaseModel):
    """The fields of a case file."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    format: Literal[1]
    id: Ident
    title: Text
    battle: Text | None = None
    scenario: Annotated[str, StringConstraints(min_length=1, max_length=400)] | None = None
    campaign: Annotated[str, StringConstraints(min_length=1, max_length=400)] | None = None
    set: dict[Annotated[str, StringConstraints(min_length=1, max_length=200)], Any] = Field(
        default_factory=dict, max_length=100
    )
    seed: int = Field(ge=0, le=2**63 - 1)
    runs: int = Field(ge=1, le=100_000)
    notes: Annotated[str, StringConstraints(max_length=20_000)] = ""
    split: Split = "fitting"
    loss_band: LossBand | None = None
    measures: list[MeasureSpec] = Field(min_length=1, max_length=50)

    @model_validator(mode="after")
    def _one_target(self) -> CaseFile:
        if (self.scenario is None) == (self.campaign is None):
            raise ValueError("name a 'scenario' or a 'campaign' (one of them)")
        ids = [m.id for m in self.measures]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"measure id {twice[0]!r} is used twice")
        return self


@dataclass(frozen=True)
class Case:
    """A case file read and checked: its fields, the target it fights, its file."""

    spec: CaseFile
    target: Target
    file: Path

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def source_name(self) -> str:
        """The scenario or campaign file's name, as the table shows it."""
        rel = self.spec.scenario or self.spec.campaign
        assert rel is not None
        return Path(rel).name


def _target(spec: CaseFile, file: str, lines: dict[tuple[str | int, ...], int]) -> Target:
    target = named_target(file, lines, spec.scenario, spec.campaign)
    problems: list[Located] = []
    for field_path in spec.set:
        if field_path.rsplit(".", 1)[-1] in ("id", "ruleset"):  # as a calibration's factor
            problems.append(
                located(
                    file,
                    lines,
                    ("set", field_path),
                    "a set value cannot change an id (or the ruleset): the measures read "
                    "sides, units and battles by their ids",
                )
            )
            continue
        try:
            target.check_path(field_path)
        except PathError as exc:
            problems.append(located(file, lines, ("set", field_path), str(exc)))
    if not problems and spec.set:
        problems.extend(_set_values(spec, target, file, lines))
    problems.extend(_references(spec, target, file, lines))
    if problems:
        raise ScenarioError(problems)
    return target


def _set_values(
    spec: CaseFile, target: Target, file: str, lines: dict[tuple[str | int, ...], int]
) -> list[Located]:
    """The case's ``set`` values must make a valid scenario (campaign), as every run would
    find them: refused here, on the line of the value at fault (of ``set`` when none is
    named), rather than by the first worker to fight the case."""
    from pydantic import ValidationError  # noqa: PLC0415

    from sim.batch.execution.worker import prepare  # noqa: PLC0415

    try:
        prepare(target, spec.set)
    except ScenarioError as exc:
        found = [(p.field, p.message) for p in exc.problems]
    except ValidationError as exc:
        found = [(".".join(str(x) for x in e["loc"]), e["msg"]) for e in exc.errors()]
    else:
        if not spec.set:
            return []
        at = Target(target.kind, target.source, target.at(spec.set))
        if at.identities() == target.identities():
            return []
        # a side or unit renamed: the measures name the battle's, checked against its start
        return [
            located(
                file,
                lines,
                ("set",),
                "a set value cannot change a side's or a unit's id (or the ruleset): the "
                "measures read them by their ids",
            )
        ]
    return [
        located(
            file,
            lines,
            ("set", field) if field in spec.set else ("set",),
            message if field in spec.set else f"{target.source}: {field}: {message}",
        )
        for field, message in found
    ]


_STRENGTH_KINDS = frozenset({"loss", "unit_loss_max", "loss_ratio", "loss_from", "units_below"})
"""The kinds whose ``unit`` names what a strength is counted in (``men``), not a unit id."""


@dataclass
class _Names:
    """What a case's battles hold, read from each base scenario's initial state."""

    sides: set[str]
    units: set[str]
    counted: dict[str, set[str]]
    """Side id → what its units' strength is counted in (``men``, ``guns``, ``hits``)."""
    kinds: set[str]
    bounds: list[list[tuple[float, float]] | None]
    words: set[str]
    """The rulesets' ``status_words`` (none declared: empty, and a ``word`` is not checked)."""
    losses: dict[str, set[str]]
    """Side id → the losses its outcome lists (``outcome_loss``: flattop's ``air_factors``)."""
    events: dict[str, type[BaseModel]] = dataclasses.field(default_factory=dict)
    """Event type → its class, from the rulesets' registries."""
    axes: set[int] = dataclasses.field(default_factory=set)
    """How many axes the battles' spaces have (a place has as many coordinates)."""


def _names(target: Target) -> tuple[_Names, list[str]]:
    """What the target's battles hold (through the contract), and its campaign's battle ids."""
    names = _Names(set(), set(), {}, set(), [], set(), {})
    for ruleset, scenario in target.scenarios():
        names.words.update(ruleset.status_words)
        for cls in ruleset.registry.classes:
            names.events[cls.model_fields["type"].default] = cls
        start = ruleset.initial_state(scenario)
        outcome = ruleset.outcome(scenario, start)
        names.sides.update(outcome.sides)
        for side, losses in outcome.losses().items():
            names.losses.setdefault(side, set()).update(losses)
        for row in ruleset.units(scenario, start):
            names.units.add(row.id)
            names.counted.setdefault(row.side, set()).add(row.strength.unit)
            names.kinds.add(row.kind)
        space = ruleset.space(scenario)
        names.bounds.append(space.bounds)
        names.axes.add(len(space.axes))
    battles: list[str] = []
    if target.kind == "campaign":
        for battle in target.data.get("battles", []):
            battles.append(str(battle.get("id")))
            for side, joining in (battle.get("reinforcements") or {}).items():
                specs = [u for u in joining if isinstance(u, dict)]
                names.units.update(str(u.get("id")) for u in specs)
                names.kinds.update(str(u["kind"]) for u in specs if "kind" in u)
                # what a reinforcement's strength is counted in is the ruleset's to say, once
                # the campaign carries it in: that side's strength units are not checked
                names.counted.pop(str(side), None)
    return names, battles


def _unknown(what: str, name: str, known: set[str] | list[str]) -> str:
    return f"no {what} {name!r} ({', '.join(sorted(known)) or 'none'})"


def _no_side(name: str, sides: set[str]) -> str:
    """``no side 'csaa'; did you mean 'csa'?``, as the scenario loader says a misspelt side
    id, when one is close; else ``no side 'xyz' (csa, usa)``."""
    hint = did_you_mean(name, sides)
    return f"no side {name!r}{hint}" if hint else _unknown("side", name, sides)


def _references(
    spec: CaseFile, target: Target, file: str, lines: dict[tuple[str | int, ...], int]
) -> list[Located]:
    """Each side, unit, unit kind, loss, battle and hex a measure names must be one of the
    case's battles' (their base scenarios, read through the contract, and a campaign's
    reinforcements): a misspelt name would be a silent 0 in every run, which can pass. An
    ``outcome_loss`` names one of the losses the outcome of each battle's start lists.

    A status ``word`` is checked against the rulesets' ``status_words`` (when declared).
    """
    names, battles = _names(target)
    return [
        located(file, lines, ("measures", i, field_name), message)
        for i, m in enumerate(spec.measures)
        for field_name, message in (
            *_named_units(m, names),
            *_named_places(m, names, battles),
            *_named_events(m, names),
        )
    ] + [
        located(file, lines, ("loss_band", field_name), message)
        for field_name, message in _named_band(spec, target, names, battles)
    ]


def _named_band(
    spec: CaseFile, target: Target, names: _Names, battles: list[str]
) -> Iterator[tuple[str, str]]:
    """(field, problem) for a ``loss_band`` naming a band CDB90's figures lack, a side the
    battles lack, one side twice, or a battle a lone scenario cannot have (a campaign must
    name one)."""
    band = spec.loss_band
    if band is None:
        return
    if target.ruleset().name != "musket":
        yield "band", "a loss band is a musket case's (CDB90's battles, their losses in men)"
        return
    known = band_names()
    if band.band not in known:
        yield "band", _unknown("band", band.band, set(known))
    sides = names.sides  # a lone scenario's, or a campaign's named battle's below
    if target.kind == "campaign" and band.battle is None:
        yield "battle", f"a campaign's case names the battle to read ({', '.join(battles)})"
    elif target.kind == "campaign" and band.battle not in battles:
        yield "battle", _unknown("battle", str(band.battle), set(battles))
    elif target.kind == "campaign":
        rs, sc = target.scenarios()[battles.index(str(band.battle))]
        sides = set(rs.outcome(sc, rs.initial_state(sc)).sides)
    elif band.battle is not None:
        yield "battle", "a scenario's case has one battle: give no 'battle'"
    for field_name in ("attacker", "defender"):
        value = getattr(band, field_name)
        if value not in sides:
            yield field_name, _no_side(value, sides)
    if band.attacker == band.defender:
        yield "defender", "the attacker and the defender are one side"


def _named_units(m: MeasureSpec, names: _Names) -> Iterator[tuple[str, str]]:
    """(field, problem) for each side, unit, loss, status word or unit kind ``m`` names
    that its battles lack."""
    for field_name in ("side", "over"):
        value = getattr(m, field_name)
        if value is not None and value not in names.sides:
            yield field_name, _no_side(value, names.sides)
    if m.unit is not None and m.kind == "status" and m.unit not in names.units:
        yield "unit", _unknown("unit", m.unit, names.units)
    if m.loss is not None and m.side in names.losses and m.loss not in names.losses[m.side]:
        known = ", ".join(sorted(names.losses[m.side]))
        yield "loss", f"the outcome lists no loss {m.loss!r} for {m.side!r} ({known})"
    if m.word is not None and names.words and m.word not in names.words:
        yield "word", _unknown("status word", m.word, names.words)
    if m.unit is not None and m.kind in _STRENGTH_KINDS and m.side in names.counted:
        counted = names.counted[m.side]
        if m.unit not in counted:
            shown = ", ".join(sorted(counted))
            yield "unit", f"side {m.side!r} counts strength in {shown}, not {m.unit!r}"
    for kind in m.kinds or []:
        if kind not in names.kinds:
            yield "kinds", _unknown("unit kind", kind, names.kinds)
    if m.by_kind is not None and m.by_kind not in names.kinds:
        yield "by_kind", _unknown("unit kind", m.by_kind, names.kinds)


def _named_events(m: MeasureSpec, names: _Names) -> Iterator[tuple[str, str]]:
    """(field, problem) for an event type ``m`` names that no ruleset of its battles
    logs, and each field path into that event that its class does not have
    (:mod:`sim.history.eventpaths`): a path left at its default (``unit``, ``target``)
    is checked too, at the field that would change it."""
    if m.event is None or not names.events:
        return
    cls = names.events.get(m.event)
    if cls is None:
        yield "event", _unknown("event type", m.event, set(names.events))
        return
    for key, value in (m.where or {}).items():
        if (problem := value_problem(cls, key, value)) is not None:
            yield "where", problem
    # (the field, its value, the path it reads when left out and the field that then
    # stands for it, what the path must end at)
    paths: list[tuple[str, str | None, str, str, str]] = []
    if m.kind == "events" and m.side is not None:
        paths.append(("side_field", m.side_field, "unit", "side", "text"))
    if m.kind == "loss_from":
        paths.append(("actor", m.actor, "unit", "event", "text"))
        paths.append(("target", m.target, "target", "event", "text"))
        paths.append(("amount", m.amount, "", "amount", "number"))
    for field_name, given, default, instead, ends_at in paths:
        if (problem := path_problem(cls, given or default, ends_at)) is not None:
            yield (
                (field_name, problem)
                if given
                else (
                    instead,
                    f"{problem} (name one with {field_name})",
                )
            )


def _named_places(m: MeasureSpec, names: _Names, battles: list[str]) -> Iterator[tuple[str, str]]:
    """(field, problem) for a battle or a hex ``m`` names that the case does not have."""
    if m.battle is not None and m.battle not in battles:
        yield (
            "battle",
            (
                _unknown("battle", m.battle, battles)
                if battles
                else f"a lone scenario has no battle {m.battle!r} to name (a campaign's do)"
            ),
        )
    for hex_ in m.hexes or []:
        if names.axes and len(hex_) not in names.axes:
            axes = " or ".join(str(n) for n in sorted(names.axes))
            n = len(hex_)
            plural = "s" * (n != 1)
            yield "hexes", f"place {list(hex_)} has {n} coordinate{plural}; the map has {axes}"
            break
        if all(b is not None and not _inside(hex_, b) for b in names.bounds):
            yield "hexes", f"hex {list(hex_)} is off the map"
            break


def _inside(point: tuple[int, ...], bounds: list[tuple[float, float]]) -> bool:
    return len(point) == len(bounds) and all(
        lo <= x <= hi for x, (lo, hi) in zip(point, bounds, strict=True)
    )


def load_case(path: str | Path) -> Case:
    """Read one case file and the scenario or campaign it names.

    Raises:
        ScenarioError: every problem, located by file, line and field.
    """
    file = str(path)
    data, lines = read_yaml(path)
    try:  # a case names its format and id: a file with neither is plainly something else
        if not isinstance(data, dict) or not {"format", "id"} & data.keys():
            refuse_other_kind(data, lines, file, "case")
            raise ScenarioError(  # of no kind battlesim reads: notes, a config…
                [Located(file, 1, "", "not a historical case file (no format, id or measures)")]
            )
    except ScenarioError as exc:  # a calibration or a scenario kept beside the cases
        problem = exc.problems[0]
        raise ScenarioError(
            [
                dataclasses.replace(
                    problem,
                    message=f"{problem.message} (a suite's folder holds case files only: "
                    "every *.yaml in it is read as a case)",
                )
            ]
        ) from None
    _measure_ids_once(data, file, lines)
    spec = validate_located(CaseFile, data, lines, file, "historical case")
    if Path(file).stem != spec.id:
        raise ScenarioError(
            [located(file, lines, ("id",), f"the case {spec.id!r} belongs in {spec.id}.yaml")]
        )
    return Case(spec, _target(spec, file, lines), Path(file))


def _measure_ids_once(data: Any, file: str, lines: dict[tuple[str | int, ...], int]) -> None:
    """A measure id used twice, refused at the second one's line (the model's own check,
    for a case made in Python, can point only at the file's first line).

    Raises:
        ScenarioError: two measures share an id.
    """
    measures = data.get("measures") if isinstance(data, dict) else None
    if not isinstance(measures, list):
        return
    seen: set[str] = set()
    for j, m in enumerate(measures):
        mid = m.get("id") if isinstance(m, dict) else None
        if isinstance(mid, str) and mid in seen:
            message = f"measure id {mid!r} is used twice"
            raise ScenarioError([located(file, lines, ("measures", j, "id"), message)])
        if isinstance(mid, str):
            seen.add(mid)


def load_suite(folder: str | Path = SUITE) -> list[Case]:
    """Every case of a suite folder (``*.yaml``, not its subfolders nor hidden files), by id.

    Raises:
        ScenarioError: a case file has a problem (every problem of the first such file).
    """
    files = sorted(f for f in Path(folder).glob("*.yaml") if not f.name.startswith("."))
    return [load_case(f) for f in files]
