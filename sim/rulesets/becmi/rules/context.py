"""The read-only view of a fight that the ``becmi`` rules decide from."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from engine.rng import Stream
from sim.rulesets.becmi.model.data import (
    COVER,
    DEMIHUMAN_MAX_LEVEL,
    LONG_RANGE_MODIFIER,
    SAVE_AS_CODES,
    STUNNED,
    WEAPONS,
)
from sim.rulesets.becmi.model.events import Wrestler
from sim.rulesets.becmi.model.options import BecmiOptions
from sim.rulesets.becmi.model.scenario import BecmiScenario, CharacterSpec, MonsterSpec
from sim.rulesets.becmi.model.state import BattleState, CombatantState
from sim.rulesets.becmi.model.tohit import (
    HitDice,
    ability_adjustment,
    character_thac0,
    death_ray_save,
    monster_thac0,
    parse_hd,
)
from sim.runner import BattleView

__all__ = ["Band", "Battle", "distance"]

Point = tuple[int, int]
Band = Literal["short", "medium", "long"]
Spec = CharacterSpec | MonsterSpec
SAVE_AS_LETTER = {cls: code for code, cls in SAVE_AS_CODES.items()}
"""The "Save As" code of each class: ``fighter`` → ``F``."""


def distance(a: Point, b: Point) -> int:
    """Feet between two points: the Euclidean distance rounded down (exact integers)."""
    return math.isqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2)


@dataclass
class Battle(BattleView[BecmiScenario, BattleState]):
    """Scenario, options, current state, random streams and clock (``turn`` is the round).

    Rules read it and return events; only the recorder's apply changes ``state``.
    """

    specs: dict[str, Spec] = field(init=False)
    rank: dict[str, int] = field(init=False)
    hit_dice: dict[str, HitDice] = field(init=False)

    def __post_init__(self) -> None:
        self.specs = {c.id: c for s in self.scenario.sides for c in s.combatants}
        self.rank = {cid: i for i, cid in enumerate(self.specs)}
        self.hit_dice = {
            c.id: parse_hd(c.hd) for c in self.specs.values() if isinstance(c, MonsterSpec)
        }

    @property
    def options(self) -> BecmiOptions:
        """The ruleset options of this scenario."""
        return self.scenario.options

    def stream(self, purpose: str, *key: str | int) -> Stream:
        """The stream for ``purpose`` this round: name ``<round>/<purpose>/<key...>``."""
        return self.streams.stream(self.turn, purpose, *key)

    # Fixed statistics

    def thac0(self, cid: str) -> int:
        """THAC0 from the seed's table: class and level (or rank), or Hit Dice."""
        s = self.specs[cid]
        if isinstance(s, CharacterSpec):
            return character_thac0(s.class_, s.level, s.attack_rank)
        return monster_thac0(self.hit_dice[cid], self.options.minus_hd_row)

    def str_adj(self, cid: str) -> int:
        """Strength adjustment; a monster without a Strength score has 0."""
        s = self.specs[cid]
        if isinstance(s, CharacterSpec):
            return ability_adjustment(s.abilities.strength)
        return ability_adjustment(s.strength) if s.strength is not None else 0

    def dex_adj(self, cid: str) -> int:
        """Dexterity adjustment (characters only)."""
        s = self.specs[cid]
        return ability_adjustment(s.abilities.dexterity) if isinstance(s, CharacterSpec) else 0

    def armour_class(self, cid: str) -> tuple[int, dict[str, int]]:
        """Base AC and its adjustments: Dex, shield [src], stunned (AC 4 worse) [src]."""
        s = self.specs[cid]
        mods: dict[str, int] = {}
        if isinstance(s, CharacterSpec):
            base = s.armour_ac
            if s.shield:
                mods["shield"] = -1
            if self.dex_adj(cid):
                mods["dexterity"] = -self.dex_adj(cid)
        else:
            base = s.ac
        if self.state.combatants[cid].stunned(self.turn):
            mods["stunned"] = STUNNED["ac"]
        return base, mods

    def save_as(self, cid: str) -> tuple[str, int, str]:
        """Class, level and label a combatant saves as [src]; a monster without ``save_as``,
        as ``monster_save_as`` of its Hit Dice [ours]."""
        s = self.specs[cid]
        if isinstance(s, CharacterSpec):
            level = min(s.level, DEMIHUMAN_MAX_LEVEL.get(s.class_, 36))
            return s.class_, level, f"{s.class_.replace('_', '-')} {level}"
        if s.save_as is not None:
            code = "NM" if s.save_as == "NM" else s.save_as[0]
            level = 0 if code == "NM" else int(s.save_as[1:])
            return SAVE_AS_CODES[code], level, s.save_as
        hd = self.hit_dice[cid]
        cls = self.options.monster_save_as  # [ours]: default fighter
        if hd.half or cls == "normal_man":
            return "normal_man", 0, "NM"
        level = min(hd.dice, 36)
        return cls, level, f"{SAVE_AS_LETTER[cls]}{level}"

    def death_ray(self, cid: str) -> tuple[int, str]:
        """The d20 number that saves vs Death Ray, and what it saves as."""
        cls, level, label = self.save_as(cid)
        return death_ray_save(cls, level), label

    def stun_con(self, cid: str) -> tuple[int, str]:
        """C in the stun roll: Constitution (or its adjustment, ``stun_c``), or
        ``monster_con_per_hd`` × HD [ours]."""
        s = self.specs[cid]
        if isinstance(s, CharacterSpec):
            con = s.abilities.constitution
            if self.options.stun_c == "constitution_adjustment":
                return ability_adjustment(con), "constitution adjustment"
            return con, "constitution"
        k = self.options.monster_con_per_hd
        return k * self.hit_dice[cid].twice // 2, f"{k} x HD"

    def wrestler(self, cid: str) -> Wrestler:
        """Wrestling rating and its parts (seed 001 L58–L60)."""
        s = self.specs[cid]
        if isinstance(s, CharacterSpec):
            parts = {
                "half_level": -(-s.level // 2),
                "strength": self.str_adj(cid),
                "dexterity": self.dex_adj(cid),
                "basic_ac": s.armour_ac,
            }
            twice = 2 * s.level  # option character_hd: "level"
        else:
            twice = self.hit_dice[cid].twice
            parts = {"twice_hd": twice, "ac": s.ac}
        return Wrestler(id=cid, wr=sum(parts.values()), parts=parts, twice_hd=twice)

    # Positions and targets

    def enemies(self, c: CombatantState) -> list[CombatantState]:
        """Conscious enemies, in scenario order."""
        return [e for e in self.state.combatants.values() if e.side != c.side and e.conscious]

    def pick(self, c: CombatantState, found: list[CombatantState]) -> CombatantState | None:
        """The order's target if among ``found``, else the nearest (ties: scenario order)."""
        preferred = self.specs[c.id].target
        for e in found:
            if e.id == preferred:
                return e
        if not found:
            return None
        return min(found, key=lambda e: (distance(c.at, e.at), self.rank[e.id]))

    def in_reach(self, c: CombatantState) -> list[CombatantState]:
        """Conscious enemies within melee reach."""
        reach = self.options.melee_reach
        return [e for e in self.enemies(c) if distance(c.at, e.at) <= reach]

    def missile_targets(self, c: CombatantState) -> list[CombatantState]:
        """Conscious enemies within the missile's long range that cover does not hide."""
        missile = self.specs[c.id].missile
        if missile is None:
            return []
        ranges = WEAPONS[missile]["ranges"]
        assert isinstance(ranges, tuple)
        return [
            e
            for e in self.enemies(c)
            if distance(c.at, e.at) <= ranges[2] and self.cover_modifier(e) is not None
        ]

    def cover_modifier(self, e: CombatantState) -> int | None:
        """To-hit modifier of the target's cover; ``None`` when it cannot be hit (L85)."""
        soft, hard = COVER[e.cover]
        return soft if e.cover_kind == "soft" else hard

    def range_band(self, c: CombatantState, e: CombatantState) -> tuple[Band, int]:
        """Range band of a missile shot and its to-hit modifier."""
        missile = self.specs[c.id].missile
        assert missile is not None
        ranges = WEAPONS[missile]["ranges"]
        assert isinstance(ranges, tuple)
        d = distance(c.at, e.at)
        if d <= ranges[0]:
            return "short", self.options.short_range_modifier
        if d <= ranges[1]:
            return "medium", self.options.medium_range_modifier
        return "long", LONG_RANGE_MODIFIER

    # Order of action

    def side_position(self, side: str) -> int:
        """The side's place in this round's initiative order."""
        return self.state.order.index(side)

    def order_key(self, cid: str, phase: str) -> tuple[int, ...]:
        """Sort key within a phase: initiative order, then scenario order.

        In the melee phase a haymaker loses initiative (seed 001 L53): it acts
        after every other blow.
        """
        c = self.state.combatants[cid]
        late = 1 if phase == "melee" and self.specs[cid].haymaker else 0
        return (1, late, self.side_position(c.side), self.rank[cid])

    def may_act(self, c: CombatantState, phase: str) -> bool:
        """Able to act in ``phase``: conscious, and not stunned for an attack.

        With ``initiative_ties: simultaneous`` [src], one felled or stunned in
        this phase by a side with the same initiative roll still acts.
        """
        if c.conscious and not (phase != "movement" and c.stunned(self.turn)):
            return True
        sides = self.state.sides
        return (
            self.options.initiative_ties == "simultaneous"
            and c.status != "fled"
            and c.harmed_round == self.turn
            and c.harmed_phase == phase
            and c.harmed_by != c.side
            and sides[c.harmed_by].initiative == sides[c.side].initiative
            and not (phase == "melee" and self.specs[c.id].haymaker)
        )
