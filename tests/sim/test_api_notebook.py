"""The Python API as a notebook uses it: arguments checked as the CLI checks them, nothing
of the user's overwritten, NumPy's integers taken as whole numbers, and readable reprs.

Each case is one a notebook user met (a run id picked from ``load_study``'s DataFrame, a
fork written over a file of notes, a rerun into the study's own folder, a replay file
rewritten by the next cell); the CLI refused each already.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim import api
from sim.batch import Factor, RunOptions, StudyPlan, load_target, rerun, run_study
from sim.batch.storage.store import Store
from tests.batch.helpers import SCENARIOS

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "replays" / "stone_wall-s1862.jsonl"
TAVERN = SCENARIOS / "tavern_brawl.yaml"


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A four-run study of the tavern brawl keeping two replays."""
    out = tmp_path_factory.mktemp("api") / "k1"
    plan = StudyPlan(load_target(TAVERN), seed=1, replications=4, keep_replays=2)
    run_study(plan, out, RunOptions(plots=False))
    return out


def test_rerun_refuses_the_studys_own_files_and_the_users_without_force(
    study: Path, tmp_path: Path
) -> None:
    kept = study / "replays" / "run-0.jsonl"
    before = kept.read_bytes()
    with pytest.raises(api.OutputError, match="is inside the study"):
        rerun(study, 3, kept)
    assert kept.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    with pytest.raises(api.OutputError, match="not a replay battlesim wrote; add --force"):
        rerun(study, 3, notes)
    assert notes.read_text() == "my notes\n"
    done = rerun(study, 3, notes, force=True)
    assert done.paths == [notes] and notes.read_text().startswith('{"engine_version"')


def test_a_run_id_from_the_dataframe_reruns_and_a_bad_one_is_named(
    study: Path, tmp_path: Path
) -> None:
    frame_id = np.int64(2)  # what df.run_id.iloc[2] is
    done = rerun(study, frame_id, tmp_path / "r2.jsonl")
    assert done.run_id == 2 and type(done.run_id) is int
    for bad in ("2", 2.0, True, -1):
        with pytest.raises(api.ValueProblem, match="is not a run id: use a whole number from 0"):
            rerun(study, bad, tmp_path / "bad.jsonl")  # type: ignore[arg-type]


def test_a_plan_that_could_not_run_is_refused_when_it_is_made() -> None:
    target = load_target(TAVERN)
    cases = [
        ({"seed": -1}, "StudyPlan seed: -1 is not a seed"),
        ({"seed": "1"}, "StudyPlan seed: '1' is not a seed"),
        ({"replications": 0}, "StudyPlan replications: 0 is not a whole number from 1"),
        ({"design": "bogus"}, "StudyPlan design: 'bogus' is not a design: use one of grid"),
        ({"until_ci": 0.5}, "StudyPlan until_ci: 0.5 is not a half-width"),
    ]
    for change, words in cases:
        settings = {"seed": 1, "replications": 3, **change}
        with pytest.raises(api.ValueProblem, match=words):
            StudyPlan(target, **settings)  # type: ignore[arg-type]
    kept = StudyPlan(target, seed=1, replications=3, keep_replays=200_000_000)
    assert kept.keep_replays == 200_000_000  # more than it fights: every replay (the CLI's)
    runs = [
        ({"executor": "bogus"}, "RunOptions executor: 'bogus' is not one of local, dask"),
        ({"jobs": 0}, "RunOptions jobs: 0 is not a whole number from 1"),
        ({"interval": "bogus"}, "RunOptions interval: 'bogus' is not one of wilson"),
        ({"paired_interval": "t"}, "RunOptions paired_interval: 't' is not one of newcombe"),
        ({"baseline": -1}, "RunOptions baseline: -1 is not a whole number from 0"),
        ({"commit_seconds": float("nan")}, "RunOptions commit_seconds: nan is not a number"),
    ]
    for change, words in runs:
        with pytest.raises(api.ValueProblem, match=words):
            RunOptions(**change)  # type: ignore[arg-type]


def test_numpy_numbers_in_a_plan_are_its_plain_values() -> None:
    plan = StudyPlan(
        load_target(TAVERN),
        seed=np.int64(1),  # type: ignore[arg-type]
        replications=np.int64(3),  # type: ignore[arg-type]
        factors=(Factor(path="options.short_range_modifier", values=np.arange(0, 3, 2)),),  # type: ignore[arg-type]
    )
    identity = plan.identity()
    assert (type(plan.seed), type(plan.replications)) == (int, int)
    assert identity["factors"] == [{"path": "options.short_range_modifier", "values": [0, 2]}]
    json.dumps(identity)  # the study table's row: plain data
    assert RunOptions(jobs=np.int64(2)).jobs == 2  # type: ignore[arg-type]


def test_fork_takes_a_mapping_and_refuses_the_users_file_and_the_parent(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    change = {"passed": np.bool_(True), "after": "good"}
    with pytest.raises(api.OutputError, match="not a replay battlesim wrote"):
        api.fork(REPLAY, 39, change, notes)
    assert notes.read_text() == "mine\n"
    with pytest.raises(api.OutputError, match="which this command reads"):
        api.fork(REPLAY, 39, ["passed=true"], REPLAY)
    with pytest.raises(api.ValueProblem, match="'39' is not an event's seq"):
        api.fork(REPLAY, "39", change, tmp_path / "x.jsonl")  # type: ignore[arg-type]
    with pytest.raises(api.ForkError, match="is not plain data"):
        api.fork(REPLAY, 39, {"passed": object()}, tmp_path / "x.jsonl")
    for none in ({}, [], [1]):
        with pytest.raises(api.ValueProblem, match="give at least one change"):
            api.fork(REPLAY, 39, none, tmp_path / "x.jsonl")  # type: ignore[arg-type]
    forked = api.fork(str(REPLAY), np.int64(39), change, tmp_path / "held.jsonl")  # type: ignore[arg-type]
    same = api.fork(api.load_replay(REPLAY), 39, ["passed=true", "after=good"],
                    tmp_path / "held2.jsonl")  # fmt: skip
    assert forked.path.read_bytes() == same.path.read_bytes()
    assert repr(forked) == f"Forked(path={forked.path!r}, events={forked.events})"
    parted = api.diff(REPLAY, forked.path)
    assert (parted["mode"], parted["identical"], parted["seq"]) == ("same", False, 39)


def test_why_narrative_and_state_at_refuse_what_show_and_why_refuse() -> None:
    last = api.open_replay(REPLAY).last_turn
    assert last == 2  # the shipped replay ends in turn 2: the messages below name it
    refusals = [
        (lambda: api.state_at(REPLAY, 99), "turn 99: the battle ended at turn 2"),
        (lambda: api.narrative(REPLAY, turn=9), "turn 9: the battle ended at turn 2"),
        (lambda: api.narrative(REPLAY, unit="69NY"), "no unit '69NY' in this battle; did you"),
        (lambda: api.narrative(REPLAY, types=["fird"]), "no event type 'fird' in the musket"),
        (lambda: api.why(REPLAY, "3"), "'3' is not an event's seq"),
        (lambda: api.why(REPLAY, 10_000), "no event seq 10000: the replay has seq 0..47"),
        (lambda: api.diff(REPLAY, REPLAY, context=-1), "context -1 is not a whole number"),
        (lambda: api.why(42, 3), "int is not a replay: give its path"),
        (lambda: api.diff(REPLAY, REPLAY, context=2**63), "context 9223372036854775808 is not"),
        (lambda: api.narrative(REPLAY, types=[1]), r"types \[1\]: give event types as text"),
    ]
    for call, words in refusals:
        with pytest.raises(api.ValueProblem, match=words):
            call()
    fired = api.narrative(REPLAY, types="fired")  # one type as a string, not its letters
    assert fired and {e.type for e, _ in fired} == {"musket.fired"}
    named = api.narrative(REPLAY, unit="69th New York")
    assert named == api.narrative(REPLAY, unit="69ny") and named
    assert api.why(REPLAY, np.int64(33))[-1][0].seq == 33  # type: ignore[arg-type]
    assert api.state_at(REPLAY, np.int64(2)) == api.state_at(REPLAY, 2)  # type: ignore[arg-type]
    entry = next(e for e in os.scandir(REPLAY.parent) if e.name == REPLAY.name)  # os.PathLike
    assert api.state_at(entry, 1) == api.state_at(bytes(REPLAY), 1) == api.state_at(REPLAY, 1)


@pytest.mark.parametrize("bad", ["2", 2.5, True, -1])
def test_a_loaded_and_an_opened_replay_refuse_the_same_arguments(bad: object) -> None:
    for replay in (api.load_replay(REPLAY), api.open_replay(REPLAY)):
        with pytest.raises(api.ValueProblem, match="is not a turn"):
            replay.state_at(bad)  # type: ignore[arg-type]
        with pytest.raises(api.ValueProblem, match="is not an event's seq"):
            replay.event(bad)  # type: ignore[arg-type]
        with pytest.raises(api.ValueProblem, match="is not an event's seq"):
            replay.after(bad)  # type: ignore[arg-type]
        with pytest.raises(api.ValueProblem, match="is not an event's seq"):
            list(replay.fold_near(bad))  # type: ignore[arg-type]
        with pytest.raises(api.ValueProblem, match="is not a turn"):
            list(replay.fold_before_turn(bad))  # type: ignore[arg-type]
    for replay in (api.load_replay(REPLAY), api.open_replay(REPLAY)):
        with pytest.raises(IndexError, match=r"no event seq 48: the replay has seq 0\.\.47"):
            replay.after(48)


@pytest.mark.parametrize("bad", [None, 3, True, 2.5, ["x.jsonl"]])
def test_what_is_not_a_path_is_refused_by_its_argument_not_from_inside(
    bad: object, tmp_path: Path
) -> None:
    coral = ROOT / "replays" / "coral_sea-s1942.jsonl"  # an int was stat'ed as a descriptor
    calls = [
        ("path", lambda: api.load_replay(bad)),  # type: ignore[arg-type]
        ("path", lambda: api.open_replay(bad)),  # type: ignore[arg-type]
        ("path", lambda: api.verify_replay(bad)),  # type: ignore[arg-type]
        ("scenario_path", lambda: api.run(bad, out=tmp_path / "r.jsonl")),  # type: ignore[arg-type]
        ("out", lambda: api.run(TAVERN, out=bad)),  # type: ignore[arg-type]
        ("out", lambda: api.fork(coral, 9, {"hits_taken": 1}, bad)),  # type: ignore[arg-type]
        ("folder", lambda: api.load_study(bad)),  # type: ignore[arg-type]
        ("scenario_path", lambda: api.default_replay_path(bad, 1)),  # type: ignore[arg-type]
    ]
    for name, call in calls:
        if bad is None and name == "out":
            continue  # None: the default replay path
        with pytest.raises(api.ValueProblem, match=rf"^{name} .* is not a path: give a str or"):
            call()
    assert list(tmp_path.iterdir()) == []


def test_a_path_in_bytes_is_read_as_the_os_decodes_it(study: Path, tmp_path: Path) -> None:
    loaded = api.load_replay(bytes(REPLAY))
    assert loaded.path == str(REPLAY) and api.verify_replay(bytes(REPLAY)).ok
    ran = api.run(bytes(TAVERN), seed=3, out=bytes(tmp_path / "t.jsonl"))
    assert ran.replay == str(tmp_path / "t.jsonl") and ran.scenario == str(TAVERN)
    assert len(api.load_study(bytes(study))) == 4


def test_reprs_are_one_line_and_name_the_file() -> None:
    loaded, opened = api.load_replay(REPLAY), api.open_replay(REPLAY)
    assert repr(loaded) == (
        f"<LoadedReplay {str(REPLAY)!r}: musket rules version 8, seed 1862, 48 events>"
    )
    assert repr(opened) == f"<ReplayFile {str(REPLAY)!r}: musket rules version 8, seed 1862>"


def test_a_result_repr_leaves_the_state_out(tmp_path: Path) -> None:
    result = api.run(TAVERN, seed=np.int64(3), out=tmp_path / "t.jsonl")  # type: ignore[arg-type]
    assert result.seed == 3 and "state=" not in repr(result)


def test_verify_replay_of_a_missing_file_raises_as_load_replay_does(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(api.ReplayError, match=r"nope\.jsonl: cannot read: No such file"):
        api.verify_replay(missing)
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    kinds = [(tmp_path, "a directory"), (Path("/dev/null"), "a device"),
             (fifo, r"a FIFO \(named pipe\)")]  # fmt: skip  # the FIFO never opened to block
    for unreadable, kind in kinds:
        with pytest.raises(api.ReplayError, match=rf"{kind}, not a regular file"):
            api.verify_replay(unreadable)
    assert api.verify_replay(REPLAY).ok and api.verify_replay(api.open_replay(REPLAY)).ok


def test_a_fork_of_a_gzip_replay_is_named_as_the_commands_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packed = tmp_path / "p.jsonl.gz"
    packed.write_bytes(gzip.compress(REPLAY.read_bytes()))
    monkeypatch.chdir(tmp_path)
    forked = api.fork(packed, 39, {"passed": True, "after": "good"})
    assert forked.path == Path("p-fork39.jsonl") and forked.path.is_file()


def test_a_replay_rewritten_after_it_was_opened_is_said_to_have_changed(tmp_path: Path) -> None:
    path = tmp_path / "st.jsonl"
    api.run(TAVERN, seed=7, out=path)
    opened = api.open_replay(path)
    assert opened.count > 0
    api.run(TAVERN, seed=8, out=path)  # the notebook's cell run again
    with pytest.raises(api.ReplayError, match="changed since it was opened: open it again"):
        opened.state_at(1)
    assert api.open_replay(path).state_at(1) is not None


def test_a_connection_this_process_holds_is_named_as_the_notebooks(study: Path) -> None:
    import duckdb

    con = duckdb.connect(str(study / "study.duckdb"), read_only=True)  # docs/batch.md's way
    try:
        with pytest.raises(api.StoreError, match="this process already holds a connection"):
            api.load_study(study)
        with pytest.raises(api.StoreError, match=r"close that connection \(con.close\(\)\)"):
            Store.open(study / "study.duckdb", read_only=True)
    finally:
        con.close()
    assert len(api.load_study(study)) == 4


START_METHOD = """
import multiprocessing, sys
from sim.batch import RunOptions, StudyPlan, load_target, run_study
if __name__ == "__main__":
    before = multiprocessing.get_start_method(allow_none=True)
    plan = StudyPlan(load_target(sys.argv[1]), seed=1, replications=4)
    run_study(plan, sys.argv[2], RunOptions(jobs=2, plots=False))
    print(before, multiprocessing.get_start_method(allow_none=True))
    multiprocessing.set_start_method("spawn")  # a notebook's own choice, later
"""


def test_a_pooled_study_leaves_the_start_method_unset(tmp_path: Path) -> None:
    """docs/batch.md: the start method is never set globally; the forkserver's workers ask
    for the default as each starts, which fixed it for the whole process."""
    script = tmp_path / "study.py"
    script.write_text(START_METHOD)
    done = subprocess.run(
        [sys.executable, str(script), str(TAVERN), str(tmp_path / "s")],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "None None\n"), done.stderr[-2000:]
    shutil.rmtree(tmp_path / "s")


def test_run_takes_sets_as_a_mapping_pairs_or_texts_and_names_any_other_shape(
    tmp_path: Path,
) -> None:
    """``api.run(sets=...)`` takes what ``api.fork`` takes for its changes — a mapping, or
    ``"path=value"`` texts — beside ``(path, value)`` pairs, each the same battle; any other
    shape is a ValueProblem naming ``sets`` (a dict ended in "too many values to unpack", a
    None in a TypeError from inside)."""
    scenario = SCENARIOS / "stone_wall.yaml"
    made = [
        api.run(scenario, out=tmp_path / f"{k}.jsonl", sets=sets)
        for k, sets in enumerate(
            (
                [("options.fire_scale", 1.5)],
                {"options.fire_scale": np.float64(1.5)},
                ["options.fire_scale=1.5"],
            )
        )
    ]
    first = Path(made[0].replay or "").read_bytes()
    assert all(Path(r.replay or "").read_bytes() == first for r in made)
    said = (
        "sets {!r}: give (field path, value) pairs, a mapping "
        '({{"options.fire_scale": 1.5}}) or texts ("options.fire_scale=1.5")'
    )
    for bad in (None, [("options.fire_scale",)], [(3, 1.5)], ("options.fire_scale", 1.5), 7):
        with pytest.raises(api.ValueProblem) as caught:
            api.run(scenario, out=tmp_path / "x.jsonl", sets=bad)  # type: ignore[arg-type]
        assert str(caught.value) == said.format(bad)
    with pytest.raises(api.ValueProblem) as caught:
        api.run(scenario, out=tmp_path / "x.jsonl", sets=["options.fire_scale"])
    assert str(caught.value) == "--set 'options.fire_scale': expected FIELD=VALUE"
    assert not (tmp_path / "x.jsonl").exists()
