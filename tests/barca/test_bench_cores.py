"""`arena bench engine --game barca`: the workloads timing Barca's scratch and incremental
cores (tools/bench/barca_core.py) run, check what they time, and quote their ratios. Speed
itself is never asserted (see tests/test_bench.py); perft runs at depth 2 here to stay quick."""

from __future__ import annotations

import json

import pytest

from engine.barca import Position
from engine.barca.incremental import IncrementalPosition
from tools import cli
from tools.bench import barca_core
from tools.bench.engine import ComparedWorkload, quote_ratios
from tools.bench.measure import Result, Workload


@pytest.fixture
def shallow_perft(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(barca_core, "PERFT_DEPTH", 2)
    monkeypatch.setattr(barca_core, "PERFT_NODES", 1404)


def test_both_cores_play_the_same_seeded_games() -> None:
    for seed in range(3):
        for read in (False, True):
            assert barca_core.playout(Position, seed, read_both_sides=read) == \
                barca_core.playout(IncrementalPosition, seed, read_both_sides=read)


def test_each_incremental_workload_is_compared_with_its_scratch_twin(
        shallow_perft: None) -> None:
    workloads = barca_core.workloads()
    names = [w.name for w in workloads]
    assert names == [f"barca: {what}, {core} core"
                     for what in ("perft(2) from the start", "random playouts",
                                  "random playouts reading both sides' moves and statuses")
                     for core in ("scratch", "incremental")]
    for scratch, incremental in zip(workloads[::2], workloads[1::2], strict=True):
        assert isinstance(incremental, ComparedWorkload)
        assert incremental.baseline == scratch.name and incremental.unit == scratch.unit
        assert scratch.make()() == incremental.make()() == 1  # one perft run or one game


def test_a_wrong_perft_count_is_not_timed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(barca_core, "PERFT_DEPTH", 1)
    monkeypatch.setattr(barca_core, "PERFT_NODES", 39)
    with pytest.raises(AssertionError, match="perft"):
        barca_core.workloads()[0].make()()


def test_ratios_are_quoted_against_the_baseline() -> None:
    def nothing() -> int:
        return 1
    workloads = [Workload("a", "u/s", lambda: nothing),
                 ComparedWorkload("b", "u/s", lambda: nothing, baseline="a"),
                 ComparedWorkload("c", "u/s", lambda: nothing, baseline="missing")]
    results = [Result("a", "u/s", (4.0,)), Result("b", "u/s", (2.0, 3.0, 5.0)),
               Result("c", "u/s", (1.0,))]
    quote_ratios(workloads, results)
    assert results[1].details == {"speed ratio": 0.75, "baseline": "a"}
    assert results[0].details == results[2].details == {}


def test_arena_bench_engine_barca_json(shallow_perft: None,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["bench", "engine", "--game", "barca", "--repeat", "1",
                       "--seconds", "0.01", "--warmup", "0", "--json"])
    assert status == 0
    report = json.loads(capsys.readouterr().out)
    by_name = {r["name"]: r for r in report["results"]}
    incremental = by_name["barca: perft(2) from the start, incremental core"]
    assert incremental["details"]["baseline"] == "barca: perft(2) from the start, scratch core"
    assert incremental["details"]["speed ratio"] > 0 and incremental["details"]["leaves"] == 1404
    assert sum("speed ratio" in r.get("details", {}) for r in report["results"]) == 3
