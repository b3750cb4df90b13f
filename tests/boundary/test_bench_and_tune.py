"""The Boundary benchmarks and tuner, in short runs (the long ones are `arena bench` and
`arena tune`): the engine workloads run, the win matrix counts each game once per side, and
`arena tune boundary` writes a table from its log, resumes a killed run without replaying what
the log holds, and refuses a log of other settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools import cli
from tools.bench import boundary_core
from tools.bench.matrix import Matrix, games_for, play_one
from tools.commands.bench_strength import _make_for


def test_engine_workloads_run_and_report_ticks_and_turns() -> None:
    workloads = boundary_core.workloads(sample_games=2)
    names = [w.name for w in workloads]
    assert any("engine contract" in n for n in names) and any("fast core" in n for n in names)
    contract = workloads[0]
    assert {"seconds per game (median of the sample)", "ticks/s", "turns/s"} <= set(
        contract.details)
    assert contract.details["ticks/s"] > 0 and contract.details["turns per game"] >= 1
    for workload in workloads:
        if "adaptive" in workload.name:
            continue   # a whole lookahead game: `arena bench engine` times it
        assert workload.make()() >= 1


def test_the_matrix_plays_every_pair_on_the_same_starts_both_ways() -> None:
    tasks = games_for("boundary", ["greedy-treasure", "greedy-capture", "defensive-capture"],
                      2, seed=3)
    assert len(tasks) == 3 * 2 and len({t.seed for t in tasks}) == 1   # one start for all
    assert [(t.a, t.b, t.seat_of_a) for t in tasks[:2]] == [
        ("greedy-treasure", "greedy-capture", 0), ("greedy-treasure", "greedy-capture", 1)]
    matrix = Matrix(["greedy-treasure", "greedy-capture", "defensive-capture"])
    for task in tasks[:2]:   # greedy-treasure against greedy-capture, both seatings
        result = play_one(task, lambda spec, seed: _make_for(spec, seed, "boundary"))
        assert result.reason in ("treasures", "elimination", "turn_limit")
        matrix.add(result)
    pair = matrix.cell("greedy-treasure", "greedy-capture")
    back = matrix.cell("greedy-capture", "greedy-treasure")
    assert pair.games == back.games == 2
    assert pair.wins == back.losses and pair.draws == back.draws
    assert "GT" not in matrix.render() and "greedy-capture" in matrix.render()


@pytest.mark.slow
def test_tune_writes_a_table_and_resumes_its_log(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    log, out = tmp_path / "tune.jsonl", tmp_path / "table.json"
    argv = ["tune", "boundary", "-n", "2", "--jobs", "2", "--log", str(log), "--out", str(out)]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "counter table" in text and "opening" in text
    table = json.loads(out.read_text())
    assert sorted(table["table"]) == sorted(["GT", "BT", "GC", "HC", "DT", "DC"])
    assert table["round_robin"]["games"] == 30 and table["lookahead"] == 2
    lines = log.read_text().splitlines()
    assert len(lines) == 31 and json.loads(lines[0])["format"] == "arena-tune-boundary/1"
    # A killed run: the last game torn in half, two more lost. The same command plays only
    # those three again and writes the same table.
    log.write_text("\n".join(lines[:-3]) + "\n" + lines[-3][:20], encoding="utf-8")
    out.unlink()
    assert cli.main(argv) == 0
    capsys.readouterr()
    again = log.read_text().splitlines()
    assert len(again) == 31 and again[:28] == lines[:28]
    assert json.loads(out.read_text())["table"] == table["table"]
    # Other settings refuse the log instead of mixing two runs.
    assert cli.main([*argv[:-4], "--seed", "9", "--log", str(log), "--out", str(out)]) == 2
    assert "other settings" in capsys.readouterr().err


def test_the_adaptive_agent_reads_a_tuned_table_file(tmp_path: Path) -> None:
    from bots.boundary.agents import AdaptiveBot
    from bots.boundary.table import load_settings

    shipped = load_settings("tuned")
    assert shipped.lookahead >= 1 and not shipped.thesis_turns
    assert set(shipped.table) == {"GT", "BT", "GC", "HC", "DT", "DC"}
    thesis = load_settings("thesis")
    assert thesis.thesis_turns and thesis.table["DC"] == "GT" and thesis.lookahead == 0
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"table": {"GT": "GC"}}), encoding="utf-8")
    with pytest.raises(ValueError, match="reply to each"):
        AdaptiveBot(table=str(path))
    with pytest.raises(ValueError, match="no counter table"):
        AdaptiveBot(table=str(tmp_path / "missing.json"))


def test_bench_strength_boundary_prints_the_matrix_beside_the_thesis(
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "strength", "boundary", "-n", "2", "--agents",
            "greedy-treasure,greedy-capture"]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "The thesis, Table 4" in text and "Table 5" in text
    assert cli.main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["benchmark"] == "strength-matrix"
    assert report["matrix"]["games"] == 2
    cell = report["matrix"]["cells"]["greedy-treasure|greedy-capture"]
    assert cell["wins"] + cell["draws"] + cell["losses"] == 2
    assert report["thesis"]["table_5"]["DC"] == 62
    assert cli.main(["bench", "strength", "boundary", "-n", "2", "--agents", "nobody"]) == 2
