"""A fork whose every --set leaves its field as it was would be its parent: refused.

``fork --at 19 --set passed=false`` where the check had failed wrote a "fork" that diff
then called identical to its parent (found by an engineer's review). A no-op beside a
real change is the user's business: it is written.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sim import api
from sim.cli import cli

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "replays" / "stone_wall-s1862.jsonl"


def _fork(tmp_path: Path, at: int, *sets: str) -> tuple[int, str, Path]:
    out = tmp_path / "f.jsonl"
    args = ["fork", str(REPLAY), "--at", str(at), *(a for s in sets for a in ("--set", s))]
    result = CliRunner().invoke(cli, [*args, "-o", str(out)])
    return result.exit_code, result.output, out


def _failed_check() -> tuple[int, str]:
    """The seq and the state after of the golden's first failed morale check."""
    event = next(
        e
        for e in api.load_replay(REPLAY).events
        if e.type == "musket.morale_tested" and not e.passed
    )
    return event.seq, event.after  # type: ignore[attr-defined]


def test_an_event_field_set_to_its_own_value_is_refused(tmp_path: Path) -> None:
    seq, _ = _failed_check()
    code, output, out = _fork(tmp_path, seq, "passed=false")
    assert code == 2
    assert output == (
        f"battlesim: error: --set passed=false: already so at seq {seq}: the fork would be "
        "its parent; nothing was written\n"
    )
    assert not out.exists()


def test_a_state_field_set_to_its_own_value_is_refused_and_a_real_change_is_not(
    tmp_path: Path,
) -> None:
    seq, after = _failed_check()
    strength = api.load_replay(REPLAY).after(seq).units["69ny"].strength
    code, output, _ = _fork(tmp_path, seq, f"state.units.69ny.strength={strength}")
    assert code == 2 and f"--set state.units.69ny.strength={strength}: already so" in output
    code, output, out = _fork(tmp_path, seq, "passed=false", "passed=true", "after=good")
    assert code == 0 and out.is_file(), output  # the last --set of a field wins: a change
    assert after != "good"
    code, output, out = _fork(tmp_path, seq, f"state.units.69ny.strength={strength}", "after=good")
    assert code == 0 and out.is_file(), output
    code, output, _ = _fork(tmp_path, seq, "passed=true", "passed=false")
    assert code == 2 and "already so" in output  # the last --set of a field is the one kept


def test_a_change_the_rules_do_not_act_on_is_refused(tmp_path: Path) -> None:
    """`passed` and `roll` are the check's record; its consequence is `after` (the morale
    apply sets). Changing only them leaves every later event and the final state as the
    parent's: refused (the narrative would say "passes" of a unit the state has routed),
    and nothing is written; with `after` the same change is a fork."""
    seq, _ = _failed_check()
    for change in (("passed=true",), ("roll=1",), ("passed=true", "roll=1")):
        code, output, out = _fork(tmp_path, seq, *change)
        shown = ", ".join(change)  # as --set took them: JSON values
        assert code == 2 and not out.exists()
        assert output == (
            f"battlesim: error: --set {shown}: the battle it makes is its parent's: the rules "
            f"do not act on the change (every event after seq {seq} and the final state are "
            "the parent's), so the fork would tell of a change that did not happen; change "
            "what the event's result does to the units (its fields that `battlesim show "
            "--events` narrates as the outcome), or a state field with state.…; nothing was "
            "written\n"
        )
        assert sorted(p.name for p in tmp_path.iterdir()) == []
    code, output, out = _fork(tmp_path, seq, "passed=true", "after=good")
    assert code == 0 and out.is_file(), output


def test_a_change_that_does_not_act_is_refused_for_a_parent_of_an_older_format_too(
    tmp_path: Path,
) -> None:
    """A format-3 or -4 parent's lines are another format's than its fork's: the battle after
    the change is compared event by event as upcast values, and a roll changed alone (the
    check's record; apply reads `after`) is refused as for today's format."""
    for source in ("format3", "format4"):
        parent = ROOT / "tests" / "data" / "replays" / f"stone_wall-s1862.{source}.jsonl"
        check = next(e for e in api.load_replay(parent).events if e.type == "musket.morale_tested")
        roll = 1 if check.roll != 1 else 2  # type: ignore[attr-defined]
        out = tmp_path / f"{source}.jsonl"
        args = [
            "fork",
            str(parent),
            "--at",
            str(check.seq),
            "--set",
            f"roll={roll}",
            "-o",
            str(out),
        ]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, result.output
        assert "the battle it makes is its parent's" in result.output
        assert not (tmp_path / f"{source}.jsonl").exists()


def test_an_engine_record_is_not_forked(tmp_path: Path) -> None:
    """A turn's end is the engine's record: its fields are refused as no decision's."""
    end = next(e for e in api.load_replay(REPLAY).events if e.type == "engine.turn_ended")
    code, output, out = _fork(tmp_path, end.seq, "state_digest=sha256:00")
    assert code == 2 and not out.exists()
    assert output == (
        f"battlesim: error: --set state_digest: seq {end.seq} is engine.turn_ended, the engine's "
        "own record (no rule decided it): change an event of the battle, or the state after "
        "this one with state.…\n"
    )
