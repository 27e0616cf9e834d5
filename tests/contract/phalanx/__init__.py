"""``phalanx``: DBA-style ancients on the state base, as a plugin author writes it.

Two battle lines face each other file by file across a field of ranks.  Each
bound, an element not in contact steps one rank towards its enemy in the same
file (advance); then every pair in contact fights (close combat): each rolls
a d6 and adds its kind's combat factor (+1 for a general).  A higher total
makes the loser recoil one rank; double its total or more destroys it; a tie
is a stand-off.  A side that has lost a third of its elements (rounded up)
breaks and its enemy wins; at the bound limit the side that lost fewer wins.
In a campaign, the elements destroyed stay out of the next battle.

Written for issue 21 to measure the framework, not to model ancients: the
rules are ours and simple, with no flanks, overlaps or terrain.  It is what
an outside author writes against ``sim.contract`` alone — the state base
gives ``apply``, ``snapshot`` and ``restore``, the defaults give summary
lines and charts — in about 300 lines, docstrings included; the contract
suite checks it as a second installed plugin beside the toy ``pips``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Literal

import simpy
from pydantic import BaseModel, ConfigDict, Field

from engine.events import Draw, Event, EventRegistry
from engine.recorder import Recorder
from sim.contract import (
    Measure,
    Outcome,
    Problem,
    Ruleset,
    SideResult,
    Space,
    StateBase,
    UnitRow,
    applies,
)
from sim.runner import Actor, BattleView, Plan

__all__ = ["RULESET", "SCENARIOS"]

SCENARIOS = (Path(__file__).parent / "phalanx_clash.yaml",)

FACTORS = {"spear": 4, "blade": 4, "auxilia": 3, "psiloi": 2, "knights": 3}
"""Close-combat factor of each element kind."""

RANKS = 20
"""The field's last rank (the first is 0)."""

Kind = Literal["spear", "blade", "auxilia", "psiloi", "knights"]


# --- the scenario file -------------------------------------------------------------
class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ElementSpec(_Spec):
    """One element: its kind and file (column) in the line."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str
    kind: Kind
    file: int = Field(ge=0, le=23)
    general: bool = False


class ArmySpec(_Spec):
    """A side: a name, the rank its line starts on, its elements."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str
    rank: int = Field(ge=0, le=RANKS)
    elements: list[ElementSpec] = Field(min_length=1, max_length=24)


class PhalanxScenario(_Spec):
    """A phalanx battle: two armies, a bound limit."""

    ruleset: Literal["phalanx"]
    name: str
    seed: int = Field(1, ge=0, le=2**63 - 1)
    bounds: int = Field(12, ge=1, le=100)
    armies: list[ArmySpec] = Field(min_length=2, max_length=2)


def cross_check(sc: PhalanxScenario) -> list[Problem]:
    """Unique ids; one element per file a side; the lines start apart, the first lower."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for i, army in enumerate(sc.armies):
        files: set[int] = set()
        for j, e in enumerate(army.elements):
            where = ("armies", i, "elements", j)
            if e.id in seen:
                problems.append(((*where, "id"), f"id {e.id!r} is used twice"))
            if e.file in files:
                problems.append(((*where, "file"), f"file {e.file} holds two elements"))
            seen.add(e.id)
            files.add(e.file)
    if sc.armies[0].rank >= sc.armies[1].rank:
        problems.append((("armies", 1, "rank"), "the second army must start on a higher rank"))
    return problems


# --- events --------------------------------------------------------------------------
class Advanced(Event):
    """An element stepped one rank towards the enemy in its file."""

    type: Literal["phalanx.advanced"] = "phalanx.advanced"
    element: str
    rank: int


class Fought(Event):
    """Close combat in one file: both dice, both totals, the result for the loser."""

    type: Literal["phalanx.fought"] = "phalanx.fought"
    file: int
    elements: tuple[str, str]
    rolls: tuple[int, int]
    totals: tuple[int, int]
    result: Literal["stand", "recoil", "destroyed"]
    loser: str | None
    recoil_to: int | None
    draws: list[Draw]


class Broke(Event):
    """A side lost a third of its elements: the battle is over."""

    type: Literal["phalanx.broke"] = "phalanx.broke"
    side: str
    lost: int
    winner: str | None
    reason: str


# --- state: fields and one @applies method per event -------------------------------
class Element(BaseModel):
    """An element's changing state."""

    side: str
    rank: int
    destroyed_by: int | None = None


class State(StateBase):
    """Every element by id; how the battle ended."""

    elements: dict[str, Element]
    ended_bound: int = 0
    winner: str | None = None
    reason: str = ""

    @applies(Advanced)
    def advanced(self, e: Advanced) -> None:
        self.elements[e.element].rank = e.rank

    @applies(Fought)
    def fought(self, e: Fought) -> None:
        if e.loser is None:
            return
        if e.result == "destroyed":
            self.elements[e.loser].destroyed_by = e.seq
        elif e.recoil_to is not None:
            self.elements[e.loser].rank = e.recoil_to

    @applies(Broke)
    def broke(self, e: Broke) -> None:
        self.ended, self.ended_bound, self.winner, self.reason = True, e.turn, e.winner, e.reason


def initial_state(sc: PhalanxScenario) -> State:
    """Both lines drawn up on their ranks."""
    elements = {e.id: Element(side=a.id, rank=a.rank) for a in sc.armies for e in a.elements}
    return State(elements=elements)


# --- rules decide --------------------------------------------------------------------
class Battlefield(BattleView[PhalanxScenario, State]):
    """The read-only battle view."""

    def spec(self, eid: str) -> tuple[ArmySpec, ElementSpec]:
        """An element's army and spec."""
        return next((a, e) for a in self.scenario.armies for e in a.elements if e.id == eid)

    def opponent(self, eid: str) -> str | None:
        """The enemy element alive in the same file, if any."""
        army, me = self.spec(eid)
        enemy = next(a for a in self.scenario.armies if a.id != army.id)
        return next((e.id for e in enemy.elements if e.file == me.file and self.alive(e.id)), None)

    def alive(self, eid: str) -> bool:
        """Not destroyed."""
        return self.state.elements[eid].destroyed_by is None

    def facing(self, eid: str) -> int:
        """+1 for the lower army (it advances up the ranks), -1 for the upper."""
        return 1 if self.spec(eid)[0].id == self.scenario.armies[0].id else -1


def decide_advance(b: Battlefield, eid: str) -> Advanced | None:
    """Step one rank towards the enemy in the file, unless in contact or alone in it."""
    foe = b.opponent(eid)
    if foe is None:
        return None
    gap = abs(b.state.elements[foe].rank - b.state.elements[eid].rank)
    if gap <= 1:
        return None
    return Advanced(
        turn=b.turn, time=b.now, element=eid, rank=b.state.elements[eid].rank + b.facing(eid)
    )


def decide_combat(b: Battlefield, eid: str) -> Fought | None:
    """Close combat of the lower army's element ``eid`` and its opponent, when in contact."""
    foe = b.opponent(eid)
    if foe is None or abs(b.state.elements[foe].rank - b.state.elements[eid].rank) != 1:
        return None
    pair = (eid, foe)
    stream = b.streams.stream(b.turn, "combat", b.spec(eid)[1].file)
    (ra, da), (rb, db) = stream.roll(6), stream.roll(6)
    totals = tuple(
        r + FACTORS[b.spec(x)[1].kind] + b.spec(x)[1].general
        for r, x in zip((ra, rb), pair, strict=True)
    )
    if totals[0] == totals[1]:
        result, loser = "stand", None
    else:
        win, lose = (0, 1) if totals[0] > totals[1] else (1, 0)
        loser = pair[lose]
        result = "destroyed" if totals[win] >= 2 * totals[lose] else "recoil"
    recoil_to = None
    if result == "recoil" and loser is not None:
        recoil_to = b.state.elements[loser].rank - b.facing(loser)
        if not 0 <= recoil_to <= RANKS:  # no room to recoil: destroyed
            result, recoil_to = "destroyed", None
    return Fought(
        turn=b.turn,
        time=b.now,
        file=b.spec(eid)[1].file,
        elements=pair,
        rolls=(ra, rb),
        totals=(totals[0], totals[1]),
        result=result,
        loser=loser,
        recoil_to=recoil_to,
        draws=[da, db],
    )


def decide_end(b: Battlefield, bound: int, last: bool) -> list[Event]:
    """A side that lost a third of its elements breaks; at the limit, fewer losses win."""
    lost = {a.id: [e for e in a.elements if not b.alive(e.id)] for a in b.scenario.armies}
    for army in b.scenario.armies:
        gone = lost[army.id]
        if len(gone) * 3 >= len(army.elements):
            other = next(a for a in b.scenario.armies if a.id != army.id)
            cause = max(b.state.elements[e.id].destroyed_by or -1 for e in gone)
            return [
                Broke(
                    turn=bound,
                    time=b.now,
                    cause=cause,
                    side=army.id,
                    lost=len(gone),
                    winner=other.id,
                    reason=f"{army.name} broke",
                )
            ]
    if not last:
        return []
    a, z = b.scenario.armies
    winner = (
        a.id
        if len(lost[a.id]) < len(lost[z.id])
        else z.id
        if len(lost[z.id]) < len(lost[a.id])
        else None
    )
    return [Broke(turn=bound, time=b.now, side="", lost=0, winner=winner, reason="bound limit")]


# --- the battle ----------------------------------------------------------------------
def element(
    b: Battlefield, rec: Recorder[State], eid: str, rank: int
) -> simpy.events.ProcessGenerator:
    """Advance, then (lower army only, one combat a file) fight."""
    lower = b.facing(eid) == 1
    while True:
        yield b.kernel.phase("advance", (rank,))
        if b.state.ended or not b.alive(eid):
            return
        moved = decide_advance(b, eid)
        if moved is not None:
            rec.emit(moved)
        yield b.kernel.phase("combat", (rank,))
        if lower and b.alive(eid) and not b.state.ended:
            fought = decide_combat(b, eid)
            if fought is not None:
                rec.emit(fought)


def plan(sc: PhalanxScenario) -> Plan[PhalanxScenario, State, Battlefield]:
    """Bounds of two phases; a process per element."""
    ids = [e.id for a in sc.armies for e in a.elements]
    return Plan(
        phases=("advance", "combat"),
        turn_length=1.0,
        turn_limit=sc.bounds,
        view=Battlefield,
        processes=lambda b, rec: [Actor(eid, element(b, rec, eid, k)) for k, eid in enumerate(ids)],
        turn_end=decide_end,
    )


# --- reading a battle ----------------------------------------------------------------
def outcome(sc: PhalanxScenario, state: State) -> Outcome:
    """Winner, reason, elements lost by each side."""
    names = {a.id: a.name for a in sc.armies}
    sides = {
        a.id: SideResult(
            name=a.name,
            losses=[
                Measure(
                    name="elements",
                    unit="elements",
                    value=sum(state.elements[e.id].destroyed_by is not None for e in a.elements),
                )
            ],
        )
        for a in sc.armies
    }
    return Outcome(
        winner=state.winner,
        winner_name=names.get(state.winner or ""),
        reason=state.reason,
        turns=state.ended_bound,
        sides=sides,
    )


def units(sc: PhalanxScenario, state: State) -> list[UnitRow]:
    """Every element: its file and rank, 1 element strong or 0 when destroyed."""
    rows = []
    for a in sc.armies:
        for e in a.elements:
            now = state.elements[e.id]
            alive = now.destroyed_by is None
            rows.append(
                UnitRow(
                    id=e.id,
                    name=e.name,
                    side=a.id,
                    side_name=a.name,
                    kind=e.kind,
                    position=(e.file, now.rank) if alive else None,
                    strength=Measure(name="elements", value=int(alive), unit="elements"),
                    initial=Measure(name="elements", value=1, unit="elements"),
                    status=[] if alive else ["destroyed"],
                    details={"factor": FACTORS[e.kind] + e.general},
                )
            )
    return rows


def space(sc: PhalanxScenario) -> Space:
    """Files across, ranks deep."""
    return Space(
        kind="grid", axes=("file", "rank"), unit="base width", bounds=[(0, 23), (0, RANKS)]
    )


def narrate(sc: PhalanxScenario, state: State, e: Event) -> str | None:
    """One line per event."""
    if isinstance(e, Advanced):
        return f"Bound {e.turn}: {e.element} advances to rank {e.rank}"
    if isinstance(e, Fought):
        a, z = e.elements
        told = {
            "stand": "they stand",
            "recoil": f"{e.loser} recoils",
            "destroyed": f"{e.loser} is destroyed",
        }
        return f"Bound {e.turn}: {a} {e.totals[0]} against {z} {e.totals[1]}: {told[e.result]}"
    if isinstance(e, Broke):
        return f"Bound {e.turn}: {e.reason}"
    return None


class CarryOver(BaseModel):
    """A campaign's ``carry_over:`` settings: phalanx takes none."""

    model_config = ConfigDict(extra="forbid")

    reinforcements: dict[str, list[Any]] = Field(default_factory=dict, max_length=0)


def carry_over(
    sc: PhalanxScenario, state: State, next_data: dict[str, Any], settings: dict[str, Any]
) -> dict[str, Any]:
    """The next battle's data, without the elements destroyed in this one."""
    CarryOver.model_validate(settings)  # a ValidationError names the campaign's setting
    data = copy.deepcopy(next_data)
    gone = {i for i, e in state.elements.items() if e.destroyed_by is not None}
    for army in data.get("armies", []):
        army["elements"] = [e for e in army.get("elements", []) if e.get("id") not in gone]
    return data


RULESET: Ruleset[PhalanxScenario, State] = Ruleset(
    name="phalanx",
    version="1",
    scenario_model=PhalanxScenario,
    registry=EventRegistry([Advanced, Fought, Broke], since_format=1),
    plan=plan,
    initial_state=initial_state,
    outcome=outcome,
    units=units,
    space=space,
    cross_check=cross_check,
    rules_data=lambda: {"factors": FACTORS, "destroyed_at": "double", "break_at": "one third"},
    narrate=narrate,
    carry_over=carry_over,
    turn_name="bound",
    examples=SCENARIOS,
)
