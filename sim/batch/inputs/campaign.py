"""Campaigns: battles fought in order, survivors carried from each into the next.

A campaign file names its battles' scenario files (relative to itself); the
ruleset's ``carry_over`` hook moves the survivors of each battle into the
next by unit id (for musket: strength, fatigue less a recovery, morale
stepped up; see ``sim/rulesets/musket/campaign.py``), and a victory rule decides the
campaign:

* ``points`` (default): each battle is worth ``points`` (default 1) to its
  winner; the side with the most points wins, equal points are a draw. With
  ``needed: N`` the campaign stops as soon as one side has N points.
* ``last_battle``: the winner of the last battle fought wins.

When carry-over leaves a battle that cannot be fought (e.g. an army with no
unit left), the campaign ends there and the rule decides on the battles fought.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from engine.log import FileSink, Sink
from engine.safety.atomic import exporting_together
from sim.batch.inputs.seeds import battle_seed
from sim.contract import AnyRuleset, CarryOver, HookError, Outcome
from sim.contract.carry import LeftOut
from sim.outputs import is_replay
from sim.replay.header import make_header
from sim.runner import DrawTally
from sim.scenario.load import ScenarioError, validate_data
from sim.text.grammar import one_point

__all__ = [
    "BattleEntry",
    "BattleResult",
    "CampaignData",
    "CampaignResult",
    "HeldSink",
    "Victory",
    "campaign_outcome",
    "campaign_replay_name",
    "fight_campaign",
    "play_campaign",
    "shown_reason",
]

Ident = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,40}$")]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Victory(_Model):
    """How the campaign is decided."""

    rule: Literal["points", "last_battle"] = "points"
    needed: int | None = Field(
        None, ge=1, description="Stop once a side has this many points (rule: points)."
    )


class BattleEntry(_Model):
    """One battle of a campaign, its scenario inlined as canonical data."""

    id: Ident
    source: str = Field(description="The scenario file's name (recorded in replay headers).")
    points: int = Field(1, ge=0, le=1000, description="Worth to its winner (rule: points).")
    reinforcements: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="Side id → unit specs joining this battle."
    )
    scenario: dict[str, Any]


class CampaignData(_Model):
    """A campaign with every battle's scenario inlined: what a study stores and sweeps."""

    campaign: str = Field(min_length=1, max_length=120)
    description: str = Field("", max_length=20_000)
    seed: int = Field(1, ge=0, le=2**63 - 1)
    carry_over: dict[str, Any] = Field(
        default_factory=dict, description="The ruleset's carry-over settings."
    )
    victory: Victory = Field(default_factory=Victory)
    battles: list[BattleEntry] = Field(min_length=1, max_length=100)


@dataclass(frozen=True)
class BattleResult:
    """One battle fought in a campaign."""

    id: str
    source: str
    seed: int
    ruleset: AnyRuleset
    scenario: Any
    state: Any
    outcome: Outcome
    draws: dict[str | None, int] = field(default_factory=dict)
    """The random draws its events recorded, by the unit that emitted them."""


@dataclass(frozen=True)
class CampaignResult:
    """A campaign fought: its battles and its outcome (the ruleset outcome contract)."""

    battles: list[BattleResult]
    outcome: dict[str, Any]


def validate_battle(data: dict[str, Any], where: str) -> tuple[AnyRuleset, Any]:
    """Validate one battle's scenario data; problems are named ``where``."""
    return validate_data(data, {}, where)


def settings_for(campaign: CampaignData, entry: BattleEntry) -> dict[str, Any]:
    """The carry-over settings into ``entry``: the campaign's plus its reinforcements."""
    return {**campaign.carry_over, "reinforcements": entry.reinforcements}


def without(data: Any, gone: frozenset[str]) -> Any:
    """``data`` with every list item ``{"id": x, …}`` and every ``target: x`` of x in ``gone``."""
    if isinstance(data, list):
        return [
            without(item, gone)
            for item in data
            if not (isinstance(item, dict) and item.get("id") in gone)
        ]
    if isinstance(data, dict):
        return {
            k: without(v, gone)
            for k, v in data.items()
            if not (k == "target" and isinstance(v, str) and v in gone)
        }
    return data


def unit_ids(ruleset: AnyRuleset, scenario: Any) -> set[str]:
    """Ids of the units of a scenario, through the ruleset contract's unit rows."""
    return {row.id for row in ruleset.units(scenario, ruleset.initial_state(scenario))}


def fallen_in(entry: BattleEntry, ruleset: AnyRuleset, scenario: Any) -> frozenset[str]:
    """Units of battle ``entry``'s own file that carry-over left out (fallen earlier)."""
    own_ruleset, own = validate_battle(entry.scenario, entry.source)
    return frozenset(unit_ids(own_ruleset, own) - unit_ids(ruleset, scenario))


def carry_failed(ruleset: str, battle: str, exc: Exception) -> HookError:
    """A ``carry_over`` that raised what no campaign setting explains (a ``KeyError``…):
    the ruleset, the hook and the battle, as every hook's error names them."""
    return HookError.raised(ruleset, "carry_over", exc, f"the carry into battle {battle!r}")


def carried(
    campaign: CampaignData,
    k: int,
    previous: BattleResult | None,
    fallen: frozenset[str] = frozenset(),
) -> tuple[AnyRuleset, Any] | ScenarioError:
    """Battle ``k``'s validated scenario after carry-over, or why it cannot be fought.

    The ruleset's hook carries the previous battle's survivors; units that
    fell in any battle before that (``fallen``) stay out too — a hook sees
    only the battle just fought.
    """
    entry = campaign.battles[k]
    data = entry.scenario
    if previous is not None:
        hook = previous.ruleset.carry_over
        if hook is None:
            raise ValueError(f"ruleset {previous.ruleset.name!r} has no campaign carry-over")
        settings = settings_for(campaign, entry)
        try:
            if isinstance(hook, CarryOver):  # it changes orders aimed at them as its rules say
                data = hook(previous.scenario, previous.state, data, settings, fallen)
            else:
                data = hook(previous.scenario, previous.state, data, settings)
        except (ValidationError, ValueError):
            raise  # a setting or a reinforcement, worded where the campaign is read
        except LeftOut as exc:  # units the next file brings, lost in the copy
            raise exc.named(previous.ruleset.name, entry.id) from None
        except Exception as exc:  # the hook's own error: named, as every hook's is
            raise carry_failed(previous.ruleset.name, entry.id, exc) from exc
        data = without(data, fallen)  # a plain hook's: their specs, and targets aimed at them
    try:
        return validate_battle(data, entry.source)
    except ScenarioError as exc:
        return exc


def fight_campaign(
    campaign: CampaignData, seed: int, sink_for: Callable[[int, BattleEntry], Sink]
) -> CampaignResult:
    """Fight the campaign's battles in order with ``seed``; each writes to ``sink_for(k, entry)``.

    Raises:
        ScenarioError: the first battle is not a valid scenario.
    """
    fought: list[BattleResult] = []
    ended = ""
    fallen: frozenset[str] = frozenset()
    for k, entry in enumerate(campaign.battles):
        ready = carried(campaign, k, fought[-1] if fought else None, fallen)
        if isinstance(ready, ScenarioError):
            if k == 0:
                raise ready
            problem = ready.problems[0]
            ended = f"battle {entry.id} cannot be fought after carry-over: {problem.field}: "
            ended += problem.message
            break
        ruleset, scenario = ready
        if k > 0:
            fallen |= fallen_in(entry, ruleset, scenario)
        s = battle_seed(seed, k)
        header = make_header(ruleset, scenario, s, source=entry.source)
        tally = DrawTally()
        state = ruleset.simulate(scenario, header, sink_for(k, entry), tally)
        outcome = ruleset.outcome(scenario, state)
        fought.append(
            BattleResult(
                entry.id, entry.source, s, ruleset, scenario, state, outcome, tally.by_unit
            )
        )
        if _decided_early(campaign, fought):
            ended = f"a side reached {campaign.victory.needed} points"
            break
    return CampaignResult(fought, campaign_outcome(campaign, fought, ended))


def _points(campaign: CampaignData, fought: list[BattleResult]) -> dict[str, int]:
    worth = {b.id: b.points for b in campaign.battles}
    points: dict[str, int] = {}
    for b in fought:
        for sid in b.outcome.sides:
            points.setdefault(sid, 0)
        if b.outcome.winner is not None:
            points[b.outcome.winner] += worth[b.id]
    return points


def _decided_early(campaign: CampaignData, fought: list[BattleResult]) -> bool:
    needed = campaign.victory.needed
    more = len(fought) < len(campaign.battles)
    return more and needed is not None and max(_points(campaign, fought).values()) >= needed


_WON_LAST = "won the last battle fought ("
"""The ``last_battle`` rule's reason, a draw's too: a study's runs store it so and ``verify``
re-fights and compares it exactly, so a drawn one keeps these words there
(:func:`shown_reason` says it was drawn)."""


def _winner(campaign: CampaignData, fought: list[BattleResult]) -> tuple[str | None, str]:
    if campaign.victory.rule == "last_battle":
        last = fought[-1]
        return last.outcome.winner, f"{_WON_LAST}{last.id})"
    points = _points(campaign, fought)
    ranked = sorted(points.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None, f"campaign points are even ({ranked[0][1]} each)"
    return ranked[0][0], f"most campaign points ({ranked[0][1]} of {sum(points.values())})"


def campaign_outcome(
    campaign: CampaignData, fought: list[BattleResult], ended: str = ""
) -> dict[str, Any]:
    """The campaign's outcome: winner, reason, turns summed, losses summed by side."""
    winner, reason = _winner(campaign, fought)
    points = _points(campaign, fought)
    sides: dict[str, Any] = {}
    for b in fought:
        for sid, s in b.outcome.sides.items():
            side = sides.setdefault(
                sid, {"name": s.name, "losses": {}, "battles_won": 0, "points": points[sid]}
            )
            for m in s.losses:
                side["losses"][m.name] = side["losses"].get(m.name, 0) + m.value
            side["battles_won"] += b.outcome.winner == sid
    return {
        "winner": winner,
        "winner_name": sides[winner]["name"] if winner is not None else None,
        "reason": f"{reason}; {ended}" if ended else reason,
        "turns": sum(b.outcome.turns for b in fought),
        "battles": [
            {
                "id": b.id,
                "seed": b.seed,
                "winner": b.outcome.winner,
                "turns": b.outcome.turns,
                "reason": b.outcome.reason,
            }
            for b in fought
        ],
        "sides": sides,
    }


def shown_reason(outcome: dict[str, Any]) -> str:
    """A campaign outcome's ``reason`` as a line shows it.

    The stored reason keeps its older words (a study made before compares them): a drawn
    last battle reads ``won the last battle fought (b2)``, shown ``the last battle fought
    (b2) was drawn``; and each ``1 points`` is shown ``1 point``
    (:func:`sim.text.grammar.one_point`).
    """
    reason = one_point(outcome["reason"])
    if outcome["winner"] is None and reason.startswith(_WON_LAST):
        battle, _, rest = reason.removeprefix(_WON_LAST).partition(")")  # ids have no ")"
        return f"the last battle fought ({battle}) was drawn{rest}"
    return reason


def campaign_replay_name(k: int, battle: str) -> str:
    """The replay file of battle ``k`` (from 0) written by ``battlesim campaign``."""
    return f"{k + 1}-{battle}.jsonl"


class HeldSink(FileSink):
    """A battle's replay held at ``<name>.partial`` when the battle ends, put in place
    (:meth:`commit`) only once the whole campaign is fought: a campaign that failed in its
    second battle had already put its first battle's new replay over the old one, beside
    the old second replay and the old ``campaign.json`` (a folder of two campaigns)."""

    _lock: int | None = None

    def close(self) -> None:
        self.finish()
        # still locked while held: another writer takes a .partial nobody locks for a killed
        # run's leftover, and would remove it
        self._lock = os.open(self.partial, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        fcntl.flock(self._lock, fcntl.LOCK_SH)

    def commit(self) -> None:
        try:
            FileSink.close(self)
        finally:
            self._unlock()

    def abandon(self) -> None:
        try:
            super().abandon()
        finally:
            self._unlock()

    def _unlock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def play_campaign(
    campaign: CampaignData, seed: int, folder: Path
) -> tuple[CampaignResult, list[Path]]:
    """Fight a campaign writing one replay per battle and ``campaign.json`` into ``folder``.

    Raises:
        ScenarioError: the first battle is not a valid scenario.
        OSError: the files cannot be written.
    """
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []

    sinks: list[HeldSink] = []

    def sink_for(k: int, entry: BattleEntry) -> Sink:
        paths.append(folder / campaign_replay_name(k, entry.id))
        sinks.append(HeldSink(paths[-1]))
        return sinks[-1]

    try:
        result = fight_campaign(campaign, seed, sink_for)
        summary = {
            "campaign": campaign.campaign,
            "seed": seed,
            **result.outcome,
            "replays": [p.name for p in paths],
        }
        # every battle fought: the replays and campaign.json put in place all or none, a
        # Ctrl-C held back (one between two replays' renames left a folder of two
        # campaigns, its campaign.json the old one's)
        with exporting_together([folder / "campaign.json"], sinks) as held:
            held[0].write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    except BaseException:  # Ctrl-C and SIGTERM too: no .partial is left
        for sink in sinks:
            sink.abandon()  # a replay not yet put in place leaves the folder's old one be
        raise
    # a battle not fought this time (the campaign ended sooner) leaves no replay of an
    # earlier campaign's beside this one's campaign.json, which does not list it
    for k in range(len(paths), len(campaign.battles)):
        stale = folder / campaign_replay_name(k, campaign.battles[k].id)
        if is_replay(stale):
            stale.unlink()
    return result, paths
