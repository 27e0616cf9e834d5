"""``verify STUDY_DIR`` proves a whole study (issue 31, item 1).

Each tampering the issue lists is caught and named, with the exit code 1
(damaged): a forged-and-resummarised study, a deleted run, an edited unit
row, outcome or kept replay, an edited export or plot. A fresh study
verifies OK, and a study made before per-run digests verifies as far as it
can and says what it could not check. A forger who recomputes every digest
with battlesim's own code passes every digest check — only fighting the run
again catches them: ``--all``, or a sample holding it (its chance printed).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from sim.batch.analysis.summary import summarize
from sim.batch.execution.digests import run_digests
from sim.batch.storage.manifest import write_manifest
from sim.batch.storage.store import Store
from tests.batch.helpers import SCENARIOS, invoke

BRAWL = SCENARIOS / "tavern_brawl.yaml"
ROOT = SCENARIOS.parent
RUNS = 6


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six runs of the brawl, two replays kept, plots drawn, exported as CSV into export/."""
    out = tmp_path_factory.mktemp("proof") / "st"
    args: list[str | Path] = [
        "batch",
        BRAWL,
        "--runs",
        str(RUNS),
        "--keep-replays",
        "2",
        "--out",
        out,
        "-q",
    ]
    assert invoke(*args).exit_code == 0
    assert invoke("export", out, "--format", "csv").exit_code == 0
    return out


@pytest.fixture
def copy(study: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(study, tmp_path / "st"))


def _sql(folder: Path, *sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(folder / "study.duckdb")) as con:
        rows: list[tuple[Any, ...]] = []
        for statement in sql:
            rows = con.execute(statement).fetchall()
        return rows


def _verify(folder: Path, *options: str) -> tuple[int, list[str]]:
    result = invoke("verify", folder, "--sample-seed", "1", *options)
    return result.exit_code, result.output.splitlines()


def _resummarise(folder: Path) -> None:
    """Rewrite summary.json with battlesim's own summary code, as a forger would."""
    store = Store.open(folder / "study.duckdb", read_only=True)
    try:
        summary = summarize(store, 0)
    finally:
        store.close()
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


def _redigest(folder: Path, run_id: int) -> None:
    """Recompute one run's digests and the manifest with battlesim's own code."""
    with duckdb.connect(str(folder / "study.duckdb")) as con:
        types = {
            t: [r[0] for r in con.execute(
                "SELECT data_type FROM duckdb_columns() WHERE table_name = ? "
                "ORDER BY column_index", [t]).fetchall()]
            for t in ("runs", "unit_rows")
        }  # fmt: skip
        row = con.execute("SELECT * FROM runs WHERE run_id = ?", [run_id]).fetchone()
        units = con.execute(
            "SELECT * FROM unit_rows WHERE run_id = ? ORDER BY battle, unit", [run_id]
        ).fetchall()
        (replays,) = con.execute(
            "SELECT replays FROM run_digests WHERE run_id = ?", [run_id]
        ).fetchone() or (None,)
        kept = None if replays is None else [tuple(r) for r in json.loads(replays)]
        assert row is not None
        parts = run_digests(row, types["runs"], units, types["unit_rows"], kept)
        con.execute(
            "UPDATE run_digests SET row = ?, units = ?, digest = ? WHERE run_id = ?",
            [parts[1], parts[2], parts[4], run_id],
        )
    store = Store.open(folder / "study.duckdb")
    try:
        write_manifest(folder, store, _plots(folder))
    finally:
        store.close()


def _plots(folder: Path) -> list[str]:
    """Every plot in the study's ``plots/``, as a forger resealing its manifest lists them."""
    return [f"plots/{p.name}" for p in sorted((folder / "plots").glob("*.png"))]


def _flip_winner(folder: Path, run_id: int) -> tuple[str, str]:
    ((winner,),) = _sql(folder, f"SELECT winner FROM runs WHERE run_id = {run_id}")
    other = "orcs" if winner == "thorgrim" else "thorgrim"
    _sql(folder, f"UPDATE runs SET winner = '{other}' WHERE run_id = {run_id}")
    return winner, other


def test_a_fresh_study_verifies_ok(study: Path) -> None:
    """Every digest, every file of the manifest, every run fought again: exit 0."""
    code, lines = _verify(study, "--all")
    assert code == 0, lines
    assert lines[-1].startswith(f"OK: {study}: plan, seeds, every planned run present")
    assert f"{RUNS} runs' rows and kept replays match their digests" in lines[-1]
    assert "caught with probability 100.00% (6 of 6" in lines[-1]


def test_a_forged_and_resummarised_study_is_caught(copy: Path) -> None:
    """Run 3's winner flipped and summary.json rewritten by battlesim's summary code: the
    run's row no longer matches its digest, summary.json no longer matches the manifest."""
    _flip_winner(copy, 3)
    _resummarise(copy)
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert "DIFFERS: run 3: its runs row (winner, losses, outcome …) does not match its digest" in (
        lines
    )
    assert "DIFFERS: summary.json: differs from its digest in manifest.json" in lines


def test_a_forger_who_recomputes_every_digest_is_caught_by_fighting_again(copy: Path) -> None:
    """The forger also recomputes run 3's digests and the manifest with battlesim's code:
    every digest matches (the honest limit of digests without a secret), and fighting the
    run again names the flipped winner."""
    winner, other = _flip_winner(copy, 3)
    _resummarise(copy)
    _redigest(copy, 3)
    code, lines = _verify(copy, "--sample", "0")
    assert code == 0, lines  # nothing fought: digests alone cannot see it
    assert "caught with probability 0.00% (0 of 6" in lines[-1]
    code, lines = _verify(copy, "--all")
    assert code == 1
    assert f"DIFFERS: run 3: winner: stored '{other}', re-fought '{winner}'" in lines


def test_a_deleted_run_is_caught(copy: Path) -> None:
    """Run 4 deleted with its unit rows and digests, the summary re-made: the plan calls
    for it, and the manifest's chain of run digests no longer closes."""
    _sql(copy, *(f"DELETE FROM {t} WHERE run_id = 4" for t in ("runs", "unit_rows", "run_digests")))
    _resummarise(copy)
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert "DIFFERS: runs: 1 run missing (4)" in lines
    assert any("manifest.json: the runs' digests chain to another value" in x for x in lines)


def test_an_edited_unit_row_is_caught(copy: Path) -> None:
    """``UPDATE unit_rows SET strength = 0`` for one run, nothing else: named by run."""
    _sql(copy, "UPDATE unit_rows SET strength = 0 WHERE run_id = 2")
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert lines[:-1] == ["DIFFERS: run 2: its unit rows do not match their digest"]


@pytest.mark.parametrize(
    "edit",
    [
        """UPDATE points SET "options.fire_hcv" = 99 WHERE point = 1""",
        "UPDATE points SET label = 'options.fire_hcv=99' WHERE point = 1",
    ],
)
def test_an_edited_design_point_column_or_label_is_caught(tmp_path: Path, edit: str) -> None:
    """The digests cover a point's ``values``; its typed factor column and its label, which
    ``export --wide``, ``runs_wide`` and ``load_study`` read, are checked against them (an
    edit of those alone verified, and the export then gave the forged value)."""
    out = tmp_path / "sw"
    made = invoke(
        "batch", SCENARIOS / "stone_wall.yaml", "--runs", "1", "--sweep",
        "options.fire_hcv=15,35", "--sweep", "map.terrain.0.terrain=stone_wall",
        "--no-plots", "--out", out, "-q",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    # two factors, not in alphabetical order: the label follows the factors, the stored
    # values are canonical JSON (keys sorted), and an untouched study verifies
    assert _verify(out, "--sample", "0")[0] == 0
    _sql(out, edit)
    code, lines = _verify(out, "--sample", "0")
    assert code == 1
    assert lines[0] == (  # and the summary's pooled figures read from that column, if edited
        "DIFFERS: points: design point 1's label or factor columns do not match its values "
        "(edited since the study was written?)"
    )


def test_an_edited_outcome_is_caught(copy: Path) -> None:
    """One run's outcome JSON changed, nothing else: named by run."""
    _sql(copy, "UPDATE runs SET outcome = replace(outcome, 'turns', 'Turns') WHERE run_id = 5")
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert lines[:-1] == [
        "DIFFERS: run 5: its runs row (winner, losses, outcome …) does not match its digest"
    ]


def test_a_truncated_kept_replay_is_caught(copy: Path) -> None:
    """A kept replay cut short: named by run, without fighting it again."""
    replay = copy / "replays" / "run-1.jsonl"
    replay.write_bytes(replay.read_bytes()[:-40])
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert lines[:-1] == [
        "DIFFERS: run 1: its kept replay differs from its digest (edited or missing)"
    ]


def test_a_replay_no_run_kept_is_caught(copy: Path) -> None:
    """Run 0's kept replay copied in as run 4's, and another battle as run 5's: runs 4 and 5
    kept none, so both files are named, though every listed replay matches its digest."""
    replays = copy / "replays"
    kept = sorted(p.name for p in replays.iterdir())
    assert "run-4.jsonl" not in kept and "run-5.jsonl" not in kept
    (replays / "run-4.jsonl").write_bytes((replays / kept[0]).read_bytes())
    (replays / "run-5.jsonl").write_bytes(
        (ROOT / "replays" / "stone_wall-s1862.jsonl").read_bytes()
    )
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert lines[:-1] == [
        f"DIFFERS: replays/{name}: no run kept this replay (its name is not in the runs' digests)"
        for name in ("run-4.jsonl", "run-5.jsonl")
    ]


@pytest.mark.parametrize("cut", ["half", "to 4000 bytes", "its last block", "overwritten"])
def test_a_truncated_study_database_is_damaged_not_foreign(copy: Path, cut: str) -> None:
    """study.duckdb cut to half its size, to 4,000 bytes (its header and part of its first
    block), or by its last 4 KiB block (which opening does not read), or a block of it
    overwritten (its checksum fails): verify names it damaged, exit 1, as any difference,
    and says nothing past it was checked; export refuses it in one line, exit 2, and
    leaves no part of an export. A file that is no DuckDB database is foreign (exit 2)."""
    db = copy / "study.duckdb"
    size = db.stat().st_size
    with db.open("r+b") as f:
        if cut == "overwritten":
            f.seek(8192)
            f.write(b"\xff" * 4096)
        else:
            f.truncate({"half": size // 2, "to 4000 bytes": 4000}.get(cut, size - 4096))
    code, lines = _verify(copy)
    assert code == 1
    why = (
        "Corrupt database file: computed checksum"
        if cut == "overwritten"
        else "IO Error: Could not read enough bytes from file"
    )
    assert lines[0].startswith(
        f"DIFFERS: {str(db)!r} is damaged: a DuckDB database that cannot be read through ({why}"
    )
    assert lines[1:] == [
        f"{copy}: 1 difference: its database is damaged, so nothing past the damage was checked"
    ]
    as_json = json.loads(invoke("verify", copy, "--json").stdout)
    assert (as_json["ok"], as_json["damaged"], as_json["catch_probability"]) == (False, True, None)
    exported = invoke("export", copy, "--format", "parquet")
    assert exported.exit_code == 2
    assert exported.output.startswith(f"battlesim: error: {str(db)!r} is damaged: ")
    assert not list((copy / "export").glob("*.parquet"))
    db.write_bytes(b"hello")
    code, _ = _verify(copy)
    assert code == 2


@pytest.mark.parametrize("name", ["export/runs.csv", "plots/outcomes.png"])
def test_an_edited_export_or_plot_is_caught(copy: Path, name: str) -> None:
    """A byte of an export or a plot changed: the file is named."""
    path = copy / name
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert lines[:-1] == [f"DIFFERS: {name}: differs from its digest in manifest.json"]


def test_an_export_after_tampering_does_not_vouch_for_it(copy: Path) -> None:
    """A plot edited and another removed, then `export` into the study's own export/: the
    export adds its files to the manifest and nothing else, so verify still names both
    (a whole new manifest would have vouched for the tampered folder)."""
    (copy / "plots" / "outcomes.png").write_bytes(b"not the plot")
    (copy / "plots" / "losses.png").unlink()
    assert invoke("export", copy, "--format", "parquet").exit_code == 0
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert lines[:-1] == [
        "DIFFERS: plots/losses.png: missing (listed in manifest.json)",
        "DIFFERS: plots/outcomes.png: differs from its digest in manifest.json",
    ]
    listed = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))["files"]
    assert {n for n in listed if n.endswith(".parquet")} == {
        f"export/{t}.parquet" for t in ("points", "runs", "study", "unit_finals")
    }


@pytest.mark.parametrize(
    ("error", "is_damage"),
    [
        (duckdb.IOException('IO Error: Could not read enough bytes from file "s"'), True),
        (duckdb.Error("Corrupt database file: computed checksum 1 does not match stored "
                      "checksum 2 in block at location 8192"), True),
        (duckdb.IOException('IO Error: Could not set lock on file "s": Conflicting lock is '
                            "held in python (PID 1)"), False),
        (duckdb.IOException('IO Error: Cannot open file "s": Read-only file system'), False),
        (duckdb.IOException('IO Error: Cannot open file "s": Permission denied'), False),
        (duckdb.IOException('IO Error: Could not write file "x.csv": File too large'), False),
    ],
)  # fmt: skip
def test_damage_is_a_block_that_cannot_be_read_back(
    study: Path, error: Exception, is_damage: bool
) -> None:
    """Only DuckDB's words for a block it cannot read back (cut short, a checksum that
    fails) make a DuckDB file damaged; a lock, a read-only file system, a permission or a
    failed write are the machine's, and keep their own messages."""
    from sim.batch.storage.store import damaged

    found = damaged(study / "study.duckdb", error)
    assert (found is not None) == is_damage
    assert damaged(study / "summary.json", error) is None  # not a DuckDB file: never damage


def test_a_failed_export_leaves_the_old_export_whole(copy: Path) -> None:
    """A write that fails on the third table (a full disk): no table of the new export is
    put in place, every file of the old one is as it was, and it is no damage to the study
    (the database reads back whole)."""
    before = {p.name: p.read_bytes() for p in (copy / "export").iterdir()}
    store = Store.open(copy / "study.duckdb", read_only=True, files=True)

    class FullDisk:
        def __init__(self, con: Any) -> None:
            self.con, self.copies = con, 0

        def execute(self, sql: str, *args: Any) -> Any:
            if sql.startswith("COPY"):
                self.copies += 1
                if self.copies == 3:
                    raise duckdb.IOException('IO Error: Could not write file "x": No space left')
            return self.con.execute(sql, *args)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.con, name)

    real = store.con
    store.con = FullDisk(real)  # type: ignore[assignment]
    try:
        with pytest.raises(duckdb.IOException, match="No space left"):
            store.export(copy / "export", "csv")
    finally:
        store.con = real
        store.close()
    assert {p.name: p.read_bytes() for p in (copy / "export").iterdir()} == before
    assert _verify(copy, "--sample", "0")[0] == 0


def test_a_resume_never_vouches_for_an_export_it_did_not_make(copy: Path) -> None:
    """The study completed again (--resume of a finished study) writes its manifest anew:
    its own files as they are, an export only as the manifest before listed it. An export
    forged since still differs; with the manifest removed too, the export is listed in
    none (verify notes it), never digested as it now is."""
    forged = copy / "export" / "runs.csv"
    forged.write_text("run_id\n0,forged\n", encoding="utf-8")
    args: list[str | Path] = ["batch", BRAWL, "--runs", str(RUNS), "--keep-replays", "2"]
    args += ["--out", copy, "-q", "--resume"]
    assert invoke(*args).exit_code == 0
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert lines[:-1] == ["DIFFERS: export/runs.csv: differs from its digest in manifest.json"]
    (copy / "manifest.json").unlink()
    assert invoke(*args).exit_code == 0
    listed = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))["files"]
    assert not [name for name in listed if name.startswith("export/")]
    code, lines = _verify(copy, "--sample", "0")
    assert lines[0].startswith("note: not in manifest.json (written after the study?): export/")


def test_a_study_with_digests_and_no_manifest_differs(copy: Path) -> None:
    """Every study with digests writes its manifest last: without it (the file removed, and
    a plot then changed) nothing says the plots are the study's, so it is a difference,
    as a missing summary.json is, not a note."""
    (copy / "manifest.json").unlink()
    (copy / "plots" / "outcomes.png").write_bytes(b"not the study's")
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert lines[:-1] == [
        "DIFFERS: manifest.json: missing (a study stopped before its end, or the file "
        "removed): summary.json, plots and exports cannot be checked against their digests"
    ]


def test_a_study_without_digests_is_proved_only_by_fighting_every_run(copy: Path) -> None:
    """No run_digests table, no manifest (a study made before them, or one stripped of both
    to hide an edit: the two look alike): without --all a run changed outside the sample
    would pass, so it differs; with --all every run is fought again, and it verifies."""
    _sql(copy, "DROP TABLE run_digests")
    (copy / "manifest.json").unlink()
    code, lines = _verify(copy, "--sample", "2")
    assert code == 1, lines
    assert lines[0] == (
        "DIFFERS: no per-run digests (a study made before them, or its run_digests table "
        "removed): its stored rows and kept replays cannot be proved without fighting every "
        "run again (verify --all)"
    )
    assert lines[1].startswith("note: no manifest.json (a study made before manifests")
    code, lines = _verify(copy, "--all")
    assert code == 0, lines
    assert lines[0].startswith("note: the study holds no per-run digests (made before them)")
    assert lines[-1].startswith("OK: ")


def test_every_run_fought_again_still_finds_unit_rows_of_no_run(copy: Path) -> None:
    """Without digests, --all compares the runs there are; unit rows copied to a run that
    does not exist are found all the same."""
    _sql(copy, "DROP TABLE run_digests")
    _sql(
        copy, "INSERT INTO unit_rows SELECT 99, * EXCLUDE (run_id) FROM unit_rows WHERE run_id = 0"
    )
    (copy / "manifest.json").unlink()
    code, lines = _verify(copy, "--all")
    assert code == 1, lines
    assert "DIFFERS: run 99: has unit rows but no stored row" in lines


def test_a_run_edited_and_its_digests_dropped_never_verifies(copy: Path) -> None:
    """The downgrade: one run's winner changed, the run_digests table dropped, and the
    manifest left as the study wrote it (it records the digests' chain): it differs."""
    _sql(copy, "UPDATE runs SET winner = NULL WHERE run_id = 1")
    _sql(copy, "DROP TABLE run_digests")
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1, lines
    assert (
        "DIFFERS: manifest.json: records a chain of run digests, but the study holds none "
        "(its run_digests table removed since the study ended)"
    ) in lines


def test_a_run_the_stopping_rule_called_for_is_missed(tmp_path: Path) -> None:
    """With --until-ci the runs a point needs come from the stopping rule replayed over
    its stored pilot: the study verifies, and its last confirmatory run deleted is named."""
    out = tmp_path / "ci"
    args: list[str | Path] = ["batch", BRAWL, "--runs", "200", "--until-ci", "0.15"]
    assert invoke(*args, "--chunk-size", "10", "--out", out, "-q", "--no-plots").exit_code == 0
    assert _verify(out, "--sample", "0")[0] == 0
    ((last, count),) = _sql(out, "SELECT max(run_id), count(*) FROM runs")
    assert count < 200  # the rule stopped the point before --runs
    _sql(out, *(f"DELETE FROM {t} WHERE run_id = {last}" for t in ("runs", "unit_rows",
                                                                   "run_digests")))  # fmt: skip
    _resummarise(out)
    code, lines = _verify(out, "--sample", "0")
    assert code == 1
    assert f"DIFFERS: runs: 1 run missing ({last})" in lines


def _reseal(folder: Path) -> None:
    """summary.json and manifest.json rewritten with battlesim's own code, as a forger would."""
    _resummarise(folder)
    store = Store.open(folder / "study.duckdb")
    try:
        write_manifest(folder, store, _plots(folder))
    finally:
        store.close()


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            "SIDES",
            "DIFFERS: study: the row's sides is not what its stored plan and target make "
            "(edited since the study was written?)",
        ),
        (
            "UPDATE study SET keep_replays = 5, chunk_size = 7",
            "DIFFERS: study: the row's chunk_size, keep_replays are not what its stored plan "
            "and target make (edited since the study was written?)",
        ),
        (
            "UPDATE study SET ruleset_version = '0', rules_digest = 'sha256:00'",
            "DIFFERS: study: it says its runs were fought under becmi rules version 0 "
            "(sha256:00); this battlesim re-fights them under version 1 (sha256:",
        ),
        (
            "UPDATE points SET point = 5",
            "DIFFERS: points: the design points are not numbered 0, 1, 2 … in order "
            "(renumbered since the study was written?)",
        ),
    ],
)
def test_a_study_row_edited_and_resealed_is_caught(copy: Path, edit: str, said: str) -> None:
    """The row's sides (the summary's names), loss columns, copies of the plan, rules and
    point numbers are checked against what the stored plan and target make: swapping the
    sides' names and resealing verified with --all and credited each army with the other's
    battles; a renumbered point's runs fell out of every export."""
    if edit == "SIDES":  # the two sides' names swapped
        ((stored,),) = _sql(copy, "SELECT sides FROM study")
        sides = json.loads(stored)
        assert [s[1] for s in sides] == ["Thorgrim", "Orc band"]
        sides[0][1], sides[1][1] = sides[1][1], sides[0][1]
        with duckdb.connect(str(copy / "study.duckdb")) as con:
            con.execute("UPDATE study SET sides = ?", [json.dumps(sides)])
    else:
        _sql(copy, edit)
    _reseal(copy)
    code, lines = _verify(copy, "--all")
    assert code == 1
    assert any(line.startswith(said) for line in lines), lines


def test_a_fifo_or_a_link_in_a_received_study_is_a_difference_never_read(
    copy: Path, tmp_path: Path
) -> None:
    """A study's files are read only as regular files inside its folder: a FIFO in place
    of summary.json or a kept replay blocked verify for ever; plots/ linked to a folder
    outside, with the manifest listing a file there and its digest, had verify hash it."""
    import hashlib
    import os

    summary = copy / "summary.json"
    summary.unlink()
    os.mkfifo(summary)
    replay = sorted((copy / "replays").iterdir())[0]
    replay.unlink()
    os.mkfifo(replay)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("precious\n")
    shutil.rmtree(copy / "plots")
    (copy / "plots").symlink_to(outside, target_is_directory=True)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["files"] = {
        k: v for k, v in manifest["files"].items() if not k.startswith("plots/")
    } | {"plots/secret.txt": "sha256:" + hashlib.sha256(b"precious\n").hexdigest()}
    (copy / "manifest.json").write_text(json.dumps(manifest))
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1
    assert "DIFFERS: plots/secret.txt: a link inside the study, not a file of the study" in lines
    assert "DIFFERS: summary.json: not a regular file, not a file of the study" in lines
    assert "DIFFERS: summary.json: unreadable: a FIFO (named pipe), not a regular file" in lines
    assert any(line.startswith("DIFFERS: run 0: its kept replay") for line in lines), lines


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("UPDATE runs SET outcome = '{not json' WHERE run_id = 2",
         "DIFFERS: run 2: outcome: stored '{not json', not JSON"),
        ("UPDATE run_digests SET replays = '{bad' WHERE run_id = 0",
         "DIFFERS: run 0: its kept replay"),
        ("UPDATE run_digests SET replays = '[[\"../../x\"]]' WHERE run_id = 0",
         "DIFFERS: run 0: lists kept replays of the battles ['../../x'], not of those it "
         "fought ['tavern_brawl']"),
        ("UPDATE study SET keep_replays = NULL",
         "DIFFERS: study: the row's keep_replays is not what its stored plan"),
        (f"UPDATE runs SET outcome = '{'[' * 100_000}' WHERE run_id = 5",
         "DIFFERS: run 5: outcome: stored '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['… "
         "(100000 characters), not JSON"),
    ],
)  # fmt: skip
def test_values_edited_by_hand_are_differences_not_crashes(
    copy: Path, edit: str, said: str
) -> None:
    """An outcome or a kept-replay list that is not JSON, a replay list naming a path, a
    NULL copy of the plan: each was `battlesim: error: JSONDecodeError …` (or IndexError,
    TypeError) with exit 2; a study edited so differs, exit 1."""
    _sql(copy, edit)
    code, lines = _verify(copy, "--all")
    assert code == 1, lines
    assert any(line.startswith(said) for line in lines), lines


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("UPDATE study SET design = 'sobol'",
         "damaged: the study row's design is not its plan's (edited since it was written?)"),
        ("UPDATE runs SET point = 99 WHERE run_id = 3",
         "damaged: 1 run whose point or number is not the plan's"),
        ("UPDATE study SET ruleset_version = '0'",
         "this battlesim fights version 1: its runs would be fought under two rule sets"),
        ("DELETE FROM points",
         "damaged: the stored design points are not the plan's design"),
    ],
)  # fmt: skip
def test_a_resume_refuses_a_row_or_runs_its_plan_does_not_make(
    copy: Path, edit: str, said: str
) -> None:
    """--resume holds the row, its rules and the runs' numbers to the plan: an edited design
    crashed its summary (TypeError), a run of no point its start (IndexError), and a study
    begun under other rules would have been finished under these."""
    _sql(copy, edit)
    args = ("batch", BRAWL, "--runs", str(RUNS), "--keep-replays", "2", "--out", copy, "-q")
    result = invoke(*args, "--resume")
    assert result.exit_code == 2
    (line,) = result.output.splitlines()
    assert line.startswith("battlesim: error: --resume: ") and said in line, line


def test_an_export_of_a_value_no_study_holds_is_one_line_naming_the_study(copy: Path) -> None:
    """A unit row's details edited to text that is not JSON: export said DuckDB's
    "InvalidInputException: Invalid Input Error: Malformed JSON …" alone."""
    _sql(copy, "UPDATE unit_rows SET details = '{bad' WHERE run_id = 1")
    result = invoke("export", copy, "--format", "csv", "-o", copy.parent / "out")
    assert result.exit_code == 2
    (line,) = result.output.splitlines()
    assert line.startswith(
        f"battlesim: error: {copy / 'study.duckdb'}: damaged: a value cannot be exported "
        "(Invalid Input Error: Malformed JSON"
    ), line


def test_a_replay_planted_for_a_run_that_kept_none_is_caught_even_resealed(copy: Path) -> None:
    """Run 2 (replication 2; the plan keeps replications 0 and 1) given run 0's replay
    file and digest list, its digests and the manifest recomputed: verify --all said OK
    (the re-fight compares only the replays it keeps). The runs' replay lists are held to
    the plan and to the battles each run fought."""
    shutil.copy(copy / "replays" / "run-0.jsonl", copy / "replays" / "run-2.jsonl")
    ((listed,),) = _sql(copy, "SELECT replays FROM run_digests WHERE run_id = 0")
    with duckdb.connect(str(copy / "study.duckdb")) as con:
        con.execute("UPDATE run_digests SET replays = ? WHERE run_id = 2", [listed])
    _redigest(copy, 2)
    code, lines = _verify(copy, "--all")
    assert code == 1
    assert "DIFFERS: run 2: lists kept replays, but the plan keeps none of replication 2 (it " \
        "keeps 2)" in lines, lines  # fmt: skip


def test_a_study_of_a_file_whose_name_is_no_identifier_verifies(tmp_path: Path) -> None:
    """A scenario's kept replay is named by its run alone, whatever the file's name: a study
    of `tavern brawl.v2.yaml` with kept replays is whole (a check meant for a campaign's
    battle ids called its replay edited)."""
    source = tmp_path / "tavern brawl.v2.yaml"
    shutil.copy(BRAWL, source)
    out = tmp_path / "st"
    made = invoke("batch", source, "--runs", "2", "--keep-replays", "1", "--out", out, "-q")
    assert made.exit_code == 0, made.output
    code, lines = _verify(out, "--all")
    assert code == 0, lines


@pytest.mark.parametrize(
    ("name", "edit", "said"),
    [
        ("summary.json", lambda d: d["study"].update(interval="bogus"),
         'DIFFERS: summary.json: study.interval: stored "bogus", re-derived "wilson"'),
        ("summary.json", lambda d: d["study"].update(interval=["wilson"]),
         "DIFFERS: summary.json: study.interval: stored"),
        ("summary.json", "[" * 100_000 + "]" * 100_000, "DIFFERS: summary.json: unreadable: "),
        ("manifest.json", "[" * 100_000 + "]" * 100_000, "DIFFERS: manifest.json: unreadable: "),
    ],
)  # fmt: skip
def test_a_summary_or_manifest_edited_by_hand_differs(
    copy: Path, name: str, edit: Any, said: str
) -> None:
    """A summary naming an interval no summary takes was `battlesim: error: ValueError:
    unknown interval 'bogus' …` (the value echoed whole, exit 2), and a summary or manifest
    nested 100,000 deep `battlesim: error: input nested too deeply` naming no file (exit
    2): each a received study edited by hand, which differs (exit 1), the rest still
    checked."""
    path = copy / name
    if callable(edit):
        data = json.loads(path.read_text())
        edit(data)
        path.write_text(json.dumps(data))
    else:
        path.write_text(edit)
    code, lines = _verify(copy, "--sample", "0")
    assert code == 1, lines
    assert any(line.startswith(said) for line in lines), lines
    assert not any(line.startswith("battlesim: error") for line in lines), lines


def test_a_manifest_or_progress_nested_deep_is_not_battlesims(copy: Path) -> None:
    """``read_manifest`` (export, discover, a resume) and ``read_progress`` (load_study)
    raised RecursionError on a file nested 100,000 deep: export said `input nested too
    deeply` after writing its files."""
    from sim.batch.storage.manifest import read_manifest
    from sim.batch.storage.progress import read_progress

    deep = "[" * 100_000 + "]" * 100_000
    (copy / "manifest.json").write_text(deep)
    (copy / "progress.json").write_text(deep)
    with pytest.raises(ValueError, match=r"manifest\.json: unreadable"):
        read_manifest(copy)
    assert read_progress(copy) is None
    result = invoke("export", copy, "--format", "csv")
    assert result.exit_code == 0, result.output
