"""What a study runs: one scenario, or a campaign of battles, as plain canonical data.

A :class:`Target` holds the scenario's canonical data (every default filled
in, as in a replay header) or the campaign's data with each battle's
scenario inlined. Studies store it, sweep its fields by path and rebuild
any run from it, so a study never depends on its files staying unchanged.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from engine.canonical import digest
from engine.safety.files import missing
from sim.batch.inputs.campaign import (
    BattleEntry,
    CampaignData,
    Victory,
    carry_failed,
    settings_for,
    unit_ids,
    validate_battle,
)
from sim.batch.inputs.fieldpath import filled, get_path, set_paths
from sim.batch.inputs.files import error_message, in_order, located, read_yaml, validate_located
from sim.contract import AnyRuleset, CarryOver
from sim.contract.bases import validate_plain
from sim.contract.carry import LeftOut
from sim.outputs import is_replay
from sim.scenario.diagnose import hint
from sim.scenario.load import (
    KINDS,
    FileKind,
    Located,
    ScenarioError,
    load_scenario,
    validate_data,
    yaml_kind,
)
from sim.text.grammar import an
from sim.text.suggest import did_you_mean

__all__ = [
    "Target",
    "campaign_at",
    "campaign_file_data",
    "load_campaign",
    "load_target",
    "source_label",
]

Ident = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,40}$")]
FieldPath = tuple[str | int, ...]

_FILLED: dict[int, tuple[Target, dict[str, Any]]] = {}
"""Each recent target's :meth:`Target.filled` data, by the target object's id (the target
kept with it, so the id stays its own)."""


@dataclass(frozen=True)
class Target:
    """A scenario or a campaign, as canonical plain data.

    Attributes:
        kind: ``"scenario"`` or ``"campaign"``.
        source: the file's name (replay headers record it for a scenario).
        data: canonical scenario data, or :class:`CampaignData` as JSON data.
    """

    kind: Literal["scenario", "campaign"]
    source: str
    data: dict[str, Any]

    @property
    def name(self) -> str:
        """The scenario's or the campaign's name."""
        return str(self.data["campaign" if self.kind == "campaign" else "name"])

    @property
    def stem(self) -> str:
        """The file name without its extension (default output names)."""
        return Path(self.source).stem

    def digest(self) -> str:
        """``sha256:`` of the canonical data."""
        return digest(self.data)

    def filled(self) -> dict[str, Any]:
        """The data with every field its canonical form leaves out at its default written in
        (:func:`~sim.batch.inputs.fieldpath.filled`: an option added after replays were
        written, ``later_option``): what a path may name. Worked out once."""
        found = _FILLED.get(id(self))
        if found is not None and found[0] is self:
            return found[1]
        if self.kind == "scenario":
            full = filled(self.scenarios()[0][1])
        else:
            full = copy.deepcopy(self.data)
            for battle, (_, scenario) in zip(full["battles"], self.scenarios(), strict=True):
                battle["scenario"] = filled(scenario)
        if len(_FILLED) >= 64:
            _FILLED.clear()
        _FILLED[id(self)] = (self, full)
        return full

    def at(self, values: dict[str, Any]) -> dict[str, Any]:
        """The data with each ``path: value`` of a design point set (an option left out at its
        default is written in)."""
        return set_paths(self.data, values, self.filled() if values else None)

    def get(self, path: str) -> Any:
        """The value at ``path`` (an option left out at its default: that default).

        Raises:
            PathError: the path names no field.
        """
        return get_path(self.data, path, self.filled())

    def check_path(self, path: str) -> None:
        """Raise :class:`~sim.batch.inputs.fieldpath.PathError` unless ``path`` names a field."""
        self.get(path)

    def scenarios(self) -> list[tuple[AnyRuleset, Any]]:
        """Each battle's validated base scenario (one for a scenario target)."""
        if self.kind == "scenario":
            return [validate_data(self.data, {}, self.source)]
        campaign = validate_plain(CampaignData, self.data)
        return [validate_battle(b.scenario, b.source) for b in campaign.battles]

    def identities(self) -> tuple[list[str], list[str]]:
        """The side ids and unit ids of the battles at their start, in order of appearance
        (what a study, a calibration's targets and a case's measures read results by)."""
        sides: list[str] = []
        units: list[str] = []
        for rs, sc in self.scenarios():
            start = rs.initial_state(sc)
            sides += [s for s in rs.outcome(sc, start).sides if s not in sides]
            units += [r.id for r in rs.units(sc, start) if r.id not in units]
        return sides, units

    def sides(self) -> dict[str, tuple[str, list[str]]]:
        """Side id → (name, loss kinds), in order of appearance.

        Read from the ruleset's outcome of each battle's initial state, so
        nothing is fought.
        """
        found: dict[str, tuple[str, list[str]]] = {}
        for ruleset, scenario in self.scenarios():
            outcome = ruleset.outcome(scenario, ruleset.initial_state(scenario))
            for sid, side in outcome.sides.items():
                _, kinds = found.setdefault(sid, (side.name, []))
                kinds.extend(m.name for m in side.losses if m.name not in kinds)
        return found

    def ruleset(self) -> AnyRuleset:
        """The ruleset of the (first) battle."""
        return self.scenarios()[0][0]

    def as_json(self) -> dict[str, Any]:
        """Plain data, stored with a study."""
        return {"kind": self.kind, "source": self.source, "data": self.data}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Target:
        """The inverse of :meth:`as_json`."""
        return cls(data["kind"], data["source"], data["data"])


class _BattleFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Ident
    scenario: str = Field(min_length=1, description="Scenario file, relative to the campaign.")
    points: int = Field(1, ge=0, le=1000)
    reinforcements: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)


class _CampaignFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    campaign: str = Field(min_length=1, max_length=120, description="The campaign's name.")
    description: str = Field("", max_length=20_000)
    seed: int = Field(1, ge=0, le=2**63 - 1)
    carry_over: dict[str, Any] = Field(default_factory=dict)
    victory: Victory = Field(default_factory=Victory)
    battles: list[_BattleFile] = Field(min_length=1, max_length=100)


def campaign_file_data(data: Any, file: str) -> dict[str, Any]:
    """Parsed YAML checked as a campaign file (each battle naming its scenario file), every
    default written in, as plain data: two files whose results are equal say the same.

    Raises:
        ScenarioError: the data is no campaign file.
    """
    return validate_located(_CampaignFile, data, {}, file, "campaign").model_dump(mode="json")


def is_campaign(data: Any) -> bool:
    """Whether parsed YAML is a campaign file (it has ``campaign`` and ``battles``)."""
    return isinstance(data, dict) and "campaign" in data and "battles" in data


def load_target(path: str | Path) -> Target:
    """Read a scenario or a campaign file.

    Raises:
        ScenarioError: every problem, located by file, line and field.
    """
    data, lines = read_yaml(path)
    if is_campaign(data):
        return _campaign_target(path, data, lines)
    _, scenario = validate_data(data, lines, str(path))
    return Target("scenario", source_label(path), scenario.model_dump(mode="json"))


def source_label(path: str | Path) -> str:
    """The name of the file at ``path`` as a study or calibration records it: its bytes
    that are not UTF-8 (read by Python as lone surrogates) as U+FFFD, as a replay's header
    holds them; a study's database, DuckDB's, takes only UTF-8 text."""
    return Path(path).name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def load_campaign(path: str | Path) -> CampaignData:
    """Read a campaign file, its battles' scenarios inlined.

    Raises:
        ScenarioError: every problem, located by file, line and field.
    """
    data, lines = read_yaml(path)
    return validate_plain(CampaignData, _campaign_target(path, data, lines).data)


def _campaign_target(path: str | Path, data: Any, lines: dict[FieldPath, int]) -> Target:
    file = str(path)
    cf = validate_located(_CampaignFile, data, lines, file, "campaign")
    problems: list[Located] = []
    if cf.victory.rule != "points" and cf.victory.needed is not None:
        # it stopped a last_battle campaign after its first battle; a file's check only, so a
        # study or replay made with one before still reads
        problems.append(
            located(
                file,
                lines,
                ("victory",),
                f"'needed' applies to rule points; a {cf.victory.rule} campaign fights every "
                "battle",
            )
        )
    entries: list[BattleEntry] = []
    rulesets: list[AnyRuleset] = []
    carries = True  # every battle read, of one ruleset that carries: the dry run can go on
    for i, b in enumerate(cf.battles):
        where: FieldPath = ("battles", i)
        if [x.id for x in cf.battles].index(b.id) != i:
            problems.append(
                located(file, lines, (*where, "id"), f"battle id {b.id!r} is used twice")
            )
        scenario_path = Path(file).parent / b.scenario
        if not scenario_path.is_file():
            said = not_a_file(scenario_path, "scenario")
            problems.append(located(file, lines, (*where, "scenario"), said))
            carries = False
            continue
        other = other_kind(scenario_path, ("scenario",))
        if other is not None:  # its own error named that file and the command it wants
            said = f"{b.scenario!r} is {other}, not a scenario"
            problems.append(located(file, lines, (*where, "scenario"), said))
            carries = False
            continue
        try:
            ruleset, scenario = load_scenario(scenario_path)
        except ScenarioError as exc:  # said at the scenario file's own lines, with the rest
            problems += exc.problems
            carries = False
            continue
        if rulesets and ruleset.name != rulesets[0].name:
            carries = False
            problems.append(
                located(
                    file,
                    lines,
                    (*where, "scenario"),
                    f"{an(ruleset.name)} scenario in {an(rulesets[0].name)} campaign",
                )
            )
        elif i > 0 and ruleset.carry_over is None:
            carries = False
            problems.append(
                located(
                    file,
                    lines,
                    (*where, "scenario"),
                    f"ruleset {ruleset.name!r} has no campaign carry-over",
                )
            )
        rulesets.append(ruleset)
        sides = _side_ids(ruleset, scenario) if i > 0 else list(b.reinforcements)
        for sid in b.reinforcements:
            if sid not in sides:  # said here, with what it may have meant; not carried below
                said = f"the next battle has no side {sid!r}{did_you_mean(sid, sides)}"
                problems.append(located(file, lines, (*where, "reinforcements"), said))
        entries.append(
            BattleEntry(
                id=b.id,
                source=scenario_path.name,
                points=b.points,
                reinforcements={k: v for k, v in b.reinforcements.items() if k in sides},
                scenario=scenario.model_dump(mode="json"),
            )
        )
    if problems and not carries:
        raise ScenarioError(in_order(file, problems))
    campaign = CampaignData(
        campaign=cf.campaign,
        description=cf.description,
        seed=cf.seed,
        carry_over=cf.carry_over,
        victory=cf.victory,
        battles=entries,
    )
    problems += [located(file, lines, p, m) for p, m in dry_carry(campaign)]
    if problems:
        raise ScenarioError(in_order(file, problems))
    return Target("campaign", source_label(file), campaign.model_dump(mode="json"))


def _side_ids(ruleset: AnyRuleset, scenario: Any) -> list[str]:
    """The side ids of a battle, as the contract's outcome of its start lists them."""
    return list(ruleset.outcome(scenario, ruleset.initial_state(scenario)).sides)


def not_a_file(path: Path, what: str) -> str:
    """Why ``path``, named as a ``what`` file (``scenario``), is none: ``no scenario file
    'x.yaml'``, a folder, a link that leads nowhere, or no regular file."""
    if path.is_dir():
        return f"{str(path)!r} is a folder, not a {what} file"
    if path.exists():
        return f"{str(path)!r} is not a regular file"
    if path.is_symlink():
        return f"{str(path)!r}: {missing(path)}"
    return f"no {what} file {str(path)!r}"


def other_kind(path: Path, wanted: tuple[FileKind, ...]) -> str | None:
    """What the file at ``path`` is (``a study file``) when it is plainly a battlesim file
    of a kind not ``wanted``, else None: its own error would name it and the command that
    takes it, not the line of the file that named it where a scenario goes."""
    if is_replay(path):  # its own error would send the reader to the replay, not this line
        return "a battlesim replay"
    found = yaml_kind(path)
    return None if found is None or found in wanted else KINDS[found][0]


def campaign_at(target: Target, values: dict[str, Any]) -> CampaignData:
    """The campaign ``target`` with a design point's ``values`` set, checked as a study
    checks each of its points (every battle's scenario, each carry-over).

    Raises:
        ScenarioError, ValidationError: the point's values make it invalid.
    """
    campaign = validate_plain(CampaignData, target.at(values))
    first = campaign.battles[0]
    validate_battle(first.scenario, first.source)
    # later battles depend on the fighting, but each is a scenario valid as written (the
    # campaign file's check) and carried over from the start of the one before: a value a
    # design point sets on a later battle is checked both ways here, not in every run
    for entry in campaign.battles[1:]:
        try:
            validate_battle(entry.scenario, entry.source)
        except ScenarioError as exc:
            raise ScenarioError(
                [
                    Located(p.file, p.line, f"battles.{entry.id}.scenario.{p.field}", p.message)
                    for p in exc.problems
                ]
            ) from None
    dry = dry_carry(campaign)
    if dry:
        path, message = dry[0]
        raise ScenarioError([Located(target.source, 0, ".".join(map(str, path)), message)])
    return campaign


def dry_carry(campaign: CampaignData) -> list[tuple[FieldPath, str]]:
    """Problems of carrying each battle into the next, checked on untouched armies.

    Each battle's start state stands in for its end, so the settings, the
    reinforcements and the carried scenario are checked before anything is
    fought. The first battle takes no reinforcements: nothing is carried into it, and its
    units are its scenario's.
    """
    problems: list[tuple[FieldPath, str]] = []
    if campaign.battles[0].reinforcements:
        problems.append(
            (
                ("battles", 0, "reinforcements"),
                "the first battle has no battle before it to be reinforced after: "
                "put these units in its scenario",
            )
        )
    ruleset, scenario = validate_battle(campaign.battles[0].scenario, campaign.battles[0].source)
    if len(campaign.battles) == 1 and campaign.carry_over and ruleset.carry_over is not None:
        # nothing is carried, but the settings are still checked: a misspelt one is refused
        try:
            ruleset.carry_over(
                scenario,
                ruleset.initial_state(scenario),
                campaign.battles[0].scenario,
                settings_for(campaign, campaign.battles[0]),
            )
        except ValidationError as exc:
            return [*problems, *_settings_errors(ruleset, 0, exc)]
        except ValueError as exc:  # a setting the ruleset refuses in words of its own
            return [*problems, (("carry_over",), str(exc))]
        except Exception as exc:
            raise carry_failed(ruleset.name, campaign.battles[0].id, exc) from exc
    for k, entry in enumerate(campaign.battles[1:], start=1):
        hook = ruleset.carry_over
        if hook is None:
            problems.append(
                (("battles", k, "scenario"), f"ruleset {ruleset.name!r} has no carry-over")
            )
            return problems
        carried_in = _dry_step(ruleset, scenario, campaign, k, problems)
        if carried_in is None:  # said: the next battle's own start stands in for what it carried
            carried_in = validate_battle(entry.scenario, entry.source)
        elif not isinstance(hook, CarryOver):  # a CarryOver's result is checked as it returns
            _check_newcomers(ruleset, scenario, entry, carried_in)
        ruleset, scenario = carried_in
    return problems


def _dry_step(
    ruleset: AnyRuleset,
    scenario: Any,
    campaign: CampaignData,
    k: int,
    problems: list[tuple[FieldPath, str]],
) -> tuple[AnyRuleset, Any] | None:
    """Battle ``k`` carried from ``scenario``'s start, or None with why added to
    ``problems`` (a settings problem said once, not again for every later battle)."""
    entry = campaign.battles[k]
    try:
        data = _dry_hook(ruleset, scenario, entry, settings_for(campaign, entry))
    except ValidationError as exc:
        problems += [p for p in _settings_errors(ruleset, k, exc) if p not in problems]
        return None
    except ValueError as exc:  # said at the battle's reinforcements: not named twice
        problems.append(
            (("battles", k, "reinforcements"), str(exc).removeprefix("reinforcements: "))
        )
        return None
    try:
        return validate_battle(data, entry.source)
    except ScenarioError as exc:
        p = exc.problems[0]
        problems.append((("battles", k), f"after carry-over: {p.field}: {p.message}"))
        return None


def _dry_hook(
    ruleset: AnyRuleset, scenario: Any, entry: BattleEntry, settings: dict[str, Any]
) -> Any:
    """The ruleset's ``carry_over`` into battle ``entry``, ``scenario``'s start standing in
    for its end.

    Raises:
        ValidationError, ValueError: a setting or a reinforcement.
        HookError: the hook's own error, or units it lost (:class:`LeftOut`), named.
    """
    hook = ruleset.carry_over
    assert hook is not None
    try:
        return hook(scenario, ruleset.initial_state(scenario), entry.scenario, settings)
    except (ValidationError, ValueError):
        raise
    except LeftOut as exc:  # units the next file brings, lost in the copy
        raise exc.named(ruleset.name, entry.id) from None
    except Exception as exc:  # the hook's own error, not a setting's
        raise carry_failed(ruleset.name, entry.id, exc) from exc


def _check_newcomers(
    ruleset: AnyRuleset, before: Any, entry: BattleEntry, carried_in: tuple[AnyRuleset, Any]
) -> None:
    """Refuse a plain ``carry_over`` that lost, in the dry run (nobody has fallen), units
    battle ``entry``'s file brings that did not fight the battle before it.

    Raises:
        HookError: naming the ruleset, the hook, the battle and the units.
    """
    own = validate_battle(entry.scenario, entry.source)
    order = [row.id for row in own[0].units(own[1], own[0].initial_state(own[1]))]
    new = set(order) - unit_ids(ruleset, before) - unit_ids(*carried_in)
    if new:
        raise LeftOut([i for i in order if i in new], "battle").named(ruleset.name, entry.id)


def _settings_errors(
    ruleset: AnyRuleset, k: int, exc: ValidationError
) -> list[tuple[FieldPath, str]]:
    """Each problem of the carry-over settings into battle ``k``, at its place in the
    campaign file, with "did you mean" for a misspelt setting of a ruleset whose hook is a
    :class:`~sim.contract.CarryOver` (its settings model is known)."""
    hook = ruleset.carry_over
    model = hook.settings if isinstance(hook, CarryOver) else None
    return [
        (
            _settings_path(k, tuple(e["loc"])),
            error_message(e) if model is None else hint(model, e, error_message(e)),
        )
        for e in exc.errors()
    ]


def _settings_path(k: int, loc: FieldPath) -> FieldPath:
    """Where in the campaign file a carry-over settings error is: reinforcements or settings."""
    if loc[:1] == ("reinforcements",):
        return ("battles", k, *loc)
    return ("carry_over", *loc)
