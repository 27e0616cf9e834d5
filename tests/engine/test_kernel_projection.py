"""The turn kernel's documented ordering, and projection's order check."""

from __future__ import annotations

import pytest
import simpy

from engine.kernel import TurnKernel
from engine.projection import OutOfOrder, Projection, fold
from tests.engine.conftest import Ping


def test_phases_open_in_order_and_waiters_resume_by_order_key() -> None:
    """Within a phase, waiters resume by ascending order key, whatever their start order."""
    env = simpy.Environment()
    kernel = TurnKernel(env, ("move", "fire"), turn_minutes=20)
    trace: list[tuple[float, int, str, str]] = []

    def unit(name: str, key: int) -> simpy.events.ProcessGenerator:
        for _ in range(2):
            for phase in ("move", "fire"):
                yield kernel.phase(phase, (key,))
                trace.append((env.now, kernel.turn, phase, name))

    for name, key in (("c", 3), ("a", 1), ("b", 2)):
        env.process(unit(name, key))
    ends: list[int] = []
    kernel.start(2, lambda t: ends.append(t) is not None)
    env.run()
    assert trace == [
        (0, 1, "move", "a"),
        (0, 1, "move", "b"),
        (0, 1, "move", "c"),
        (10, 1, "fire", "a"),
        (10, 1, "fire", "b"),
        (10, 1, "fire", "c"),
        (20, 2, "move", "a"),
        (20, 2, "move", "b"),
        (20, 2, "move", "c"),
        (30, 2, "fire", "a"),
        (30, 2, "fire", "b"),
        (30, 2, "fire", "c"),
    ]
    assert ends == [1, 2]


@pytest.mark.parametrize("hold", [False, True])
def test_a_waiter_may_name_its_own_process(hold: bool) -> None:
    """A process that passes itself to ``phase`` (read once from ``env.active_process``)
    is ordered exactly as one that lets the kernel read it: by order key, then
    registration, with equal keys among them."""
    env = simpy.Environment()
    kernel = TurnKernel(env, ("move", "fire"), turn_minutes=20)
    trace: list[tuple[float, str, str]] = []

    def unit(name: str, key: int) -> simpy.events.ProcessGenerator:
        me = env.active_process if hold else None
        for _ in range(2):
            for phase in ("move", "fire"):
                yield kernel.phase(phase, (key,), me)
                trace.append((env.now, phase, name))

    for name, key in (("c", 3), ("a", 1), ("b2", 2), ("b1", 2)):
        env.process(unit(name, key))
    kernel.start(2, lambda t: False)
    env.run()
    one_phase = ["a", "b2", "b1", "c"]
    assert trace == [
        (t, phase, name)
        for t, phase in ((0, "move"), (10, "fire"), (20, "move"), (30, "fire"))
        for name in one_phase
    ]


def test_waiters_that_skip_phases_resume_by_order_key_then_registration() -> None:
    """Processes waiting on different phase sequences still resume each phase by order key;
    equal keys resume in the order they registered."""
    env = simpy.Environment()
    kernel = TurnKernel(env, ("a", "b", "c"), turn_minutes=30)
    trace: list[tuple[str, str]] = []

    def unit(name: str, key: int, phases: tuple[str, ...]) -> simpy.events.ProcessGenerator:
        for phase in phases:
            yield kernel.phase(phase, (key,))
            trace.append((phase, name))

    # in phase "a", "x1" and "y1" register for "c" before "x2" and "y2" do (through "b")
    for name, key, phases in (
        ("x1", 1, ("a", "c")),
        ("x2", 1, ("a", "b", "c")),
        ("y2", 2, ("a", "b", "c")),
        ("y1", 2, ("a", "c")),
        ("w0", 0, ("a", "b", "c")),
    ):
        env.process(unit(name, key, phases))
    kernel.start(1, lambda t: True)
    env.run()
    by_phase = {p: [n for q, n in trace if q == p] for p in ("a", "b", "c")}
    assert by_phase == {
        "a": ["w0", "x1", "x2", "y2", "y1"],
        "b": ["w0", "x2", "y2"],
        "c": ["w0", "x1", "x2", "y1", "y2"],
    }


def test_turn_end_can_stop_the_clock() -> None:
    """A true result from on_turn_end stops the battle after that turn."""
    env = simpy.Environment()
    kernel = TurnKernel(env, ("only",), turn_minutes=5)
    kernel.start(10, lambda t: t == 3)
    env.run()
    assert (kernel.turn, env.now, kernel.finished) == (3, 15, True)


def test_projection_refuses_out_of_order_events() -> None:
    """Applying seq 1 before seq 0 raises OutOfOrder."""
    seen: list[int] = []
    p = Projection(seen, lambda s, e: s.append(e.seq))
    with pytest.raises(OutOfOrder):
        p.apply(Ping(seq=1, turn=1, time=0, n=0))
    p.apply(Ping(seq=0, turn=1, time=0, n=0))
    assert seen == [0]


def test_fold_stops_before_the_until_event() -> None:
    """fold applies events until the predicate first holds."""
    events = [Ping(seq=i, turn=i // 2 + 1, time=i, n=i) for i in range(6)]
    got = fold([], events, lambda s, e: s.append(e.seq), until=lambda e: e.turn > 2)
    assert got == [0, 1, 2, 3]


def test_timed_waits_resume_by_time_then_order_after_the_turn_end() -> None:
    """Timed waiters: by time, then order key; a turn end at the same minute comes first."""
    env = simpy.Environment()
    kernel = TurnKernel(env, ("hour",), turn_minutes=60)
    trace: list[tuple[float, int, str]] = []

    def waiter(name: str, times: list[float], key: int) -> simpy.events.ProcessGenerator:
        for t in times:
            yield kernel.at(t, (key,))
            trace.append((env.now, kernel.turn, name))

    env.process(waiter("late", [60.0, 90.0], 2))
    env.process(waiter("early", [60.0, 75.5], 1))
    kernel.start(3, lambda t: trace.append((env.now, t, "end")) is not None)
    env.run()
    assert trace == [
        (60.0, 1, "end"),
        (60.0, 2, "early"),
        (60.0, 2, "late"),
        (75.5, 2, "early"),
        (90.0, 2, "late"),
        (120.0, 2, "end"),
        (180.0, 3, "end"),
    ]


def test_a_timed_waiter_runs_its_hand_offs_before_the_next_and_may_be_overtaken() -> None:
    """A waiter's hand-off to another process completes before the next same-time waiter;
    a waiter registered at that moment with a lower order key goes before the rest."""
    env = simpy.Environment()
    kernel = TurnKernel(env, ("hour",), turn_minutes=60)
    trace: list[str] = []
    inbox = env.event()

    def helper() -> simpy.events.ProcessGenerator:
        yield inbox
        trace.append("helper")

    def first() -> simpy.events.ProcessGenerator:
        yield kernel.at(10, (1,))
        trace.append("first")
        inbox.succeed()
        env.process(third())

    def third() -> simpy.events.ProcessGenerator:
        yield kernel.at(10, (0,))
        trace.append("third")

    def second() -> simpy.events.ProcessGenerator:
        yield kernel.at(10, (2,))
        trace.append("second")

    for p in (helper(), first(), second()):
        env.process(p)
    kernel.start(1, lambda t: True)
    env.run()
    assert trace == ["first", "helper", "third", "second"]


def test_a_phase_waited_on_inside_a_condition_resumes_after_the_direct_waiters() -> None:
    """A phase event yielded inside a condition still fires; its process comes after the
    processes that waited on the phase directly, which keep their order keys."""
    env = simpy.Environment()
    kernel = TurnKernel(env, ("only",), turn_minutes=10)
    trace: list[str] = []

    def direct(name: str, key: int) -> simpy.events.ProcessGenerator:
        yield kernel.phase("only", (key,))
        trace.append(name)

    def inside() -> simpy.events.ProcessGenerator:
        yield kernel.phase("only", (0,)) | env.timeout(5)
        trace.append(f"inside@{env.now:g}")

    env.process(inside())
    env.process(direct("b", 2))
    env.process(direct("a", 1))
    kernel.start(1, lambda t: True)
    env.run()
    assert trace == ["a", "b", "inside@0"]


@pytest.mark.parametrize("where", ["process", "turn end"])
def test_an_error_simpy_cannot_copy_reaches_the_caller_itself(where: str) -> None:
    """SimPy re-raises a failed process's error as ``type(exc)(*exc.args)``; pydantic's
    ValidationError (a plugin building an event with a wrongly typed field) cannot be made
    so, and SimPy raised that construction's TypeError instead, the original lost. The
    kernel raises the original; an error SimPy can copy is SimPy's copy, as before."""
    import pydantic

    class Fired(pydantic.BaseModel):
        value: int

    def build() -> None:
        Fired(value=5.5)  # type: ignore[arg-type]

    env = simpy.Environment()
    kernel = TurnKernel(env, ("only",), turn_minutes=5)

    def body() -> simpy.events.ProcessGenerator:
        yield kernel.phase("only", (0,))
        build()

    def turn_end(turn: int) -> bool:
        if where == "turn end":
            build()
        return False

    if where == "process":
        kernel.process(body())
    kernel.start(3, turn_end)
    with pytest.raises(pydantic.ValidationError) as caught:
        kernel.run()
    assert caught.value.title == "Fired"
    assert caught.value.errors()[0]["loc"] == ("value",)

    env = simpy.Environment()
    kernel = TurnKernel(env, ("only",), turn_minutes=5)

    def plain() -> simpy.events.ProcessGenerator:
        yield kernel.phase("only", (0,))
        raise KeyError("boom")

    original = kernel.process(plain())
    kernel.start(3, lambda turn: True)
    with pytest.raises(KeyError) as copied:
        kernel.run()
    assert copied.value.__cause__ is original.value  # SimPy's copy, its cause the original


def test_an_oserror_named_after_it_was_made_keeps_its_file_name() -> None:
    """SimPy's copy of an OSError is made from its args alone: a file name set on it later
    (a replay's sink names a full disk's error so) was lost, and `campaign` said `cannot
    write replays: No space left on device`. The kernel raises the original."""
    env = simpy.Environment()
    kernel = TurnKernel(env, ("only",), turn_minutes=5)

    def body() -> simpy.events.ProcessGenerator:
        yield kernel.phase("only", (0,))
        error = OSError(28, "No space left on device")
        error.filename = "out/1-fredericksburg.jsonl"
        raise error

    kernel.process(body())
    kernel.start(3, lambda turn: False)
    with pytest.raises(OSError) as caught:
        kernel.run()
    assert caught.value.filename == "out/1-fredericksburg.jsonl"


@pytest.mark.parametrize("case", ["nested", "after a handled failure"])
def test_the_uncopyable_error_is_found_in_a_child_process_and_past_a_handled_one(
    case: str,
) -> None:
    """The error SimPy could not copy is found whichever process raised it: a child process
    another waits on (SimPy copies it into the parent, and fails there), and not an earlier
    process's failure that a plugin caught and handled (a KeyError long gone was raised)."""
    import pydantic

    class Fired(pydantic.BaseModel):
        value: int

    env = simpy.Environment()
    kernel = TurnKernel(env, ("only",), turn_minutes=5)
    handled_it: list[bool] = []

    def child() -> simpy.events.ProcessGenerator:
        yield kernel.phase("only", (0,))
        Fired(value=5.5)  # type: ignore[arg-type]

    def parent(first: simpy.Process) -> simpy.events.ProcessGenerator:
        yield first

    def handled() -> simpy.events.ProcessGenerator:
        yield kernel.phase("only", (0,))
        raise KeyError("handled long ago")

    def handler(first: simpy.Process) -> simpy.events.ProcessGenerator:
        try:
            yield first
        except KeyError:
            handled_it.append(True)  # the plugin handled it
        yield kernel.phase("only", (1,))
        Fired(value=5.5)  # type: ignore[arg-type]

    if case == "nested":
        kernel.process(parent(kernel.process(child())))
    else:
        kernel.process(handler(kernel.process(handled())))
    kernel.start(3, lambda turn: False)
    with pytest.raises(pydantic.ValidationError) as caught:
        kernel.run()
    assert caught.value.title == "Fired"
    assert handled_it == ([] if case == "nested" else [True])
