"""The benchmark machinery (tools/bench, `arena bench`): structure and arithmetic only. Speed
itself is never asserted in tests; the figures are what `arena bench engine` prints."""

from __future__ import annotations

import asyncio
import io
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from games.goofspiel import GAME as GOOFSPIEL
from websockets.asyncio.client import ClientConnection, connect

from engine import registry
from protocol import decode, encode
from protocol.messages import SUBPROTOCOL_OF_ENCODING, Encoding
from tools import cli
from tools.bench import baselines, game_path, server_scale
from tools.bench import engine as engine_bench
from tools.bench import server as server_bench
from tools.bench.measure import Result, Workload, measure, print_table, run_for
from tools.commands import bench


@pytest.fixture
def goofspiel_registered() -> Iterator[None]:
    registry.register(GOOFSPIEL, replace=True)
    yield
    registry.unregister(GOOFSPIEL.info.name)


def test_measure_reports_median_min_max_of_the_runs() -> None:
    runs = iter([1.0, 3.0, 2.0])
    result = Result("x", "ops/s", tuple(runs))
    assert (result.median, result.minimum, result.maximum) == (2.0, 1.0, 3.0)
    assert result.to_json()["runs"] == [1.0, 3.0, 2.0]

    made = []

    def make() -> object:
        made.append(1)
        return lambda: 5
    measured = measure(Workload("w", "units/s", make), repeat=3, seconds=0.001)  # type: ignore[arg-type]
    assert len(measured.rates) == 3 and len(made) == 3  # a fresh operation per run
    assert all(rate > 0 for rate in measured.rates)
    with pytest.raises(ValueError):
        measure(Workload("w", "u", make), repeat=0, seconds=1)  # type: ignore[arg-type]


def test_run_for_calls_the_operation_at_least_once() -> None:
    units, elapsed = run_for(lambda: 7, seconds=0.0)
    assert units == 7 and elapsed >= 0


def test_table_has_a_header_and_one_row_per_result() -> None:
    out = io.StringIO()
    print_table([Result("game: playouts", "games/s", (10.0, 20.0, 30.0))], out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["benchmark", "median", "min", "max", "unit", "per", "unit"]
    assert lines[2].split()[:6] == ["game:", "playouts", "20.0", "10.0", "30.0", "games/s"]
    assert lines[2].endswith("50.0 ms")


def test_fast_playout_plays_the_same_game_as_the_driver(goofspiel_registered: None) -> None:
    from engine.conformance import playout
    for seed in range(5):
        assert engine_bench.fast_playout(GOOFSPIEL, seed, {"cards": 5}) == \
            len(playout(GOOFSPIEL, seed).steps)


def test_arena_bench_engine_json(goofspiel_registered: None,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["bench", "engine", "--game", "goofspiel", "--repeat", "2",
                       "--seconds", "0.02", "--warmup", "0", "--json"])
    assert status == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["benchmark"] == "engine" and report["settings"]["repeat"] == 2
    names = [r["name"] for r in report["results"]]
    assert names == ["goofspiel: random playouts, apply_unchecked",
                     "goofspiel: random playouts, checked Match"]
    for r in report["results"]:
        assert r["unit"] == "games/s" and len(r["runs"]) == 2
        assert r["min"] <= r["median"] <= r["max"]
    assert "[1/2]" in err and "run 2/2" in err  # progress goes to stderr


@pytest.mark.parametrize("argv", [
    ["engine", "--game", "battleline", "--game", "nope", "--repeat", "1"],
    ["server", "--game", "nope"],
    ["ladder", "--game", "nope"],
    ["strength", "nope", "random", "random"],
    ["bot", "random", "--game", "nope"],
])
def test_an_unknown_game_is_refused_before_any_benchmark_runs(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", *argv]) == 2
    out, err = capsys.readouterr()
    available = ", ".join(registry.names())
    assert f"arena bench {argv[0]}: unknown game 'nope'; available: {available}" in err
    assert out == "" and "run 1/" not in err  # nothing was measured


def test_every_benchmark_module_has_the_interface() -> None:
    import importlib
    for module_name in bench.BENCHMARKS.values():
        module = importlib.import_module(module_name)
        assert callable(module.add_arguments) and callable(module.run) and module.HELP


def test_claim_situations_have_a_complete_side() -> None:
    game = registry.get("battleline")
    situations = engine_bench.claim_situations(game, seeds=2, limit=50)
    assert 0 < len(situations) <= 50
    for state, seat, flag in situations:
        side = state["flags"][flag - 1]["sides"][seat]
        assert state["flags"][flag - 1]["claimed"] is None and len(side) >= 3


def test_interleaved_game_path_plays_each_match_as_alone() -> None:
    """The interleaved game path takes each match through exactly the actions it makes when
    played alone: it starts a seeded number of actions in, and a match that ends is replaced
    by the next seed's match (a round with nothing applied for that slot)."""
    game = registry.get("battleline")
    first, second = game_path.play_one(game, 5), game_path.play_one(game, 6)
    skipped = random.Random(5).randrange(game_path.AVERAGE_ACTIONS)
    assert 0 < skipped < first
    one = game_path.interleaved(game, 1, first_seed=5)
    applied = [one() for _ in range(first - skipped + 1 + second)]
    assert applied == [1] * (first - skipped) + [0] + [1] * second
    assert sum(1 for _ in game_path.walk(game, 6)) == second

    three = game_path.interleaved(game, 3, first_seed=11)
    rounds = [three() for _ in range(200)]
    assert all(0 <= n <= 3 for n in rounds) and rounds.count(3) > 150
    assert 0 < 200 * 3 - sum(rounds) < 10  # a few matches ended and were replaced


def test_game_path_answers_an_action_space_game_with_random_plans() -> None:
    """The server bench's game path (and its load generators, through the same
    ``random_answer``) plays Boundary, whose requests carry an action space instead of legal
    actions: a whole seeded match, the same one each time."""
    game = registry.get("boundary")
    actions = game_path.play_one(game, 4)
    assert actions > 2  # both seats plan each turn, and the match lasts more than one
    assert game_path.play_one(game, 4) == actions
    last = list(game_path.steps(game, 4))[-1]
    assert any(message["type"] == "match_end" for _, message in last)


def test_help_lists_every_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["bench", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for name in bench.BENCHMARKS:
        assert name in out
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("bench ")]
    assert set(bench.BENCHMARKS) <= set(line.replace(",", " ").split())


def test_server_bench_quick_reports_baselines_and_ratios(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A tiny real run of `arena bench server` (loopback): the server and the echo, relay and
    shaped relay yardsticks are each measured, and the ratios are reported. Structure only,
    never speed."""
    assert cli.main(["bench", "server", "--quick", "--matches", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in report["results"]]
    assert names == ["battleline json, game path without sockets",
                     "battleline json, 1 matches: actions", "battleline json, 1 matches: matches",
                     "echo json, 1 clients: round trips", "relay json, 1 pairs: moves",
                     "shaped relay json, 1 matches: actions"]
    assert all(r["median"] > 0 for r in report["results"] if "matches:" not in r["name"])
    rows = report["settings"]["round_trip_ms"]
    assert [row["name"] for row in rows] == ["battleline json, 1 matches", "echo json, 1 clients",
                                            "relay json, 1 pairs", "shaped relay json, 1 matches"]
    assert all(row["errors"] == 0 and row["samples"] > 0 for row in rows)
    (ratios,) = report["settings"]["ratios"]
    assert ratios["matches"] == 1 and ratios["encoding"] == "json"
    assert ratios["p50_vs_echo"] == pytest.approx(ratios["server_p50_ms"] / ratios["echo_p50_ms"])
    assert ratios["p99_vs_echo"] == pytest.approx(ratios["server_p99_ms"] / ratios["echo_p99_ms"])
    assert ratios["rate_vs_relay"] == pytest.approx(
        ratios["server_actions_per_s"] / ratios["relay_moves_per_s"])
    assert ratios["shaped_vs_relay"] == pytest.approx(
        ratios["shaped_actions_per_s"] / ratios["relay_moves_per_s"])
    assert ratios["rate_vs_shaped"] == pytest.approx(
        ratios["server_actions_per_s"] / ratios["shaped_actions_per_s"])
    assert ratios["cpu_vs_relay"] == pytest.approx(
        ratios["server_cpu_us_per_action"] / ratios["relay_cpu_us_per_move"])
    assert all(row["window_cpu_us"] > 0 and row["client_cpu_us"] > 0 for row in rows)
    assert ratios["game_path_us_per_action"] > 0


async def _answer_first_legal(ws: ClientConnection, encoding: Encoding,
                              log: list[dict[str, Any]]) -> None:
    """Log every message up to ``match_end``, answering each request with its first legal
    action."""
    while True:
        frame = await ws.recv()
        assert isinstance(frame, str if encoding == "json" else bytes)
        message = decode(frame)
        log.append(message)
        if message["type"] == "match_end":
            return
        if message["type"] == "request":
            await ws.send(encode({"type": "action", "match_id": message["match_id"],
                                  "request_id": message["request_id"],
                                  "action": message["legal_actions"][0]}, encoding))


async def test_shaped_relay_sends_the_recorded_match_re_addressed() -> None:
    """The shaped relay answers each action with the next recorded step's messages: every
    seat gets exactly what the real runner sent it in that match, in each seat's encoding,
    with the match id and fresh request ids put in; after ``match_end`` the seats seek again
    and the next match replays (here the same recording, under new ids)."""
    game = registry.get("battleline")
    server, url = await baselines.start_shaped(game, recorded=1)
    encodings: list[Encoding] = ["json", "msgpack"]
    try:
        clients = [await connect(url, subprotocols=[SUBPROTOCOL_OF_ENCODING[e]])  # type: ignore[list-item]
                   for e in encodings]
        for ws, encoding in zip(clients, encodings, strict=True):
            await ws.send(encode({"type": "hello", "protocol": 1, "name": "t"}, encoding))
            assert decode(await ws.recv())["type"] == "welcome"
        expected: list[list[dict[str, Any]]] = [[], []]
        for step in baselines.record(game, 1):
            for seat, message in step:
                expected[seat].append(message)
        requests = sum(m["type"] == "request" for seat in expected for m in seat)
        seen_ids: set[str] = set()
        for number in range(2):
            for ws, encoding in zip(clients, encodings, strict=True):
                await ws.send(encode({"type": "seek", "game": "battleline"}, encoding))
            received: list[list[dict[str, Any]]] = [[], []]
            await asyncio.wait_for(asyncio.gather(
                *(_answer_first_legal(ws, encoding, log)
                  for ws, encoding, log in zip(clients, encodings, received, strict=True))), 30)
            request_ids = {m["request_id"] for seat in received for m in seat
                           if m["type"] == "request"}
            assert {m["match_id"] for seat in received for m in seat} == {f"shaped-{number}"}
            assert len(request_ids) == requests > 40
            assert not request_ids & seen_ids
            seen_ids |= request_ids
            for seat in range(2):
                assert [m["type"] for m in received[seat]] == [m["type"] for m in expected[seat]]
                for got, want in zip(received[seat], expected[seat], strict=True):
                    assert {k: v for k, v in got.items() if k not in ("match_id", "request_id")} \
                        == {k: v for k, v in want.items() if k not in ("match_id", "request_id")}
        for ws in clients:
            await ws.close()
    finally:
        server.close()
        await server.wait_closed()


def test_goal_lines_say_which_goal_each_level_meets() -> None:
    def level(matches: int, p50: float | None, p99: float, rate: float) -> dict[str, Any]:
        return {"encoding": "json", "matches": matches, "p50_vs_echo": p50,
                "p99_vs_echo": p99, "rate_vs_relay": rate, "shaped_vs_relay": 0.4}

    lines = server_bench.goal_lines([level(1, 1.3, 2.0, 0.45), level(10, 1.9, 2.1, 0.2),
                                     level(100, None, 1.0, 0.2), level(500, 4.8, 5.9, 0.5)])
    assert lines[1:] == [
        "  json, 1 matches: round trip met (1.30x / 2.00x)",
        "  json, 10 matches: round trip NOT met (1.90x / 2.10x)",
        "  json, 100 matches: round trip NOT met (- / 1.00x)",
        "  json, 500 matches: round trip NOT met (4.80x / 5.90x)",
        "  json, 500 matches: actions/s met (0.50x; the shaped relay, with no game: 0.40x)",
    ]
    (last,) = server_bench.goal_lines([level(500, 1.0, 1.0, 0.25)])[-1:]
    assert "actions/s NOT met (0.25x;" in last


def test_server_bench_scale_quick_runs_idle_paced_and_disconnects(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A tiny real run of the scale runs of `arena bench server` (issue #22), each server in
    its own process: idle connections to the arena and to a bare websockets server, paced
    matches, and matches with a seat cut mid-match. Structure and counts only, never speed or
    memory."""
    assert cli.main(["bench", "server", "--quick", "--idle", "50", "--paced", "4",
                     "--disconnects", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["results"]
    idle = out["idle"]
    assert idle["connections"] == 50
    (run,) = idle["runs"]
    assert run["arena"]["connections"] == run["bare"]["connections"] == 50
    assert idle["ratio"] == pytest.approx(
        run["arena"]["bytes_per_connection"] / run["bare"]["bytes_per_connection"])
    (paced,) = out["paced"]
    assert paced["matches"] == 4 and paced["samples"] > 0 and paced["errors"] == 0
    assert paced["p50_ms"] <= paced["p99_ms"] <= paced["max_ms"]
    stalls = paced["server_stalls"]  # where a tail would come from, in the counted window
    assert stalls["loop_lag_ms"]["samples"] > 0
    assert set(stalls["gc"]) == {"gen0", "gen1", "gen2"}
    cut = out["disconnects"]
    assert cut["matches"] == 5 and cut["stuck"] == 0 and cut["void"] == 0
    assert cut["cut"] == cut["cut_came_back"] + cut["cut_never_back"]
    assert cut["finished_after_resume"] + cut["forfeits"] == cut["cut"]
    assert cut["ended_before_cut"] == 5 - cut["cut"]


def test_server_scale_goal_lines_say_met_or_not() -> None:
    lines = server_scale.goal_lines({
        "idle": {"connections": 100, "arena_kib_per_connection": 30.0,
                 "bare_kib_per_connection": 16.0, "ratio": 1.875},
        "paced": [{"matches": 5000, "rate": 1.0, "actions_per_s": 5000.0, "p50_ms": 1.0,
                   "p99_ms": 4.0}],
        "slow_reader": {"readers": 2, "dropped": 2, "alone_mib": {"start": 1, "peak": 2,
                                                                  "end": 2},
                        "slow_mib": {"start": 50.0, "peak": 60.0, "end": 51.0}},
        "disconnects": {"matches": 4, "cut": 4, "cut_came_back": 2, "cut_never_back": 2,
                        "finished_after_resume": 2, "forfeits": 1, "stuck": 1, "void": 0}})
    assert "NOT met (1.88x" in lines[1]
    assert "p99 4.00 ms met" in lines[2]
    assert "2/2 dropped" in lines[3] and ": met" in lines[3]
    assert "1 stuck" in lines[4] and "NOT met" in lines[4]


def test_flood_bench_quick_reports_quiet_flooded_and_the_goal(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A tiny real run of `arena bench flood` (loopback): structure only, never speed."""
    assert cli.main(["bench", "flood", "--quick", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["benchmark"] == "flood" and report["flooders"] == 2
    for name in ("quiet", "flooded"):
        assert set(report[name]) == {"p50_ms", "p99_ms", "actions_per_s",
                                     "server_loop_lag_p99_ms"}
        assert report[name]["actions_per_s"] > 0
        assert report[name]["server_loop_lag_p99_ms"] >= 0
    got = report["flooders_got"]
    assert set(got) == {"served", "rate_limited", "other_errors", "closed", "refused"}
    assert got["served"] > 0 and got["other_errors"] == 0


def test_flood_goal_line_says_met_or_not() -> None:
    from tools.bench import flood
    assert flood.goal_line(1.15).endswith("met (1.15x)")
    assert flood.goal_line(1.35).endswith("NOT met (1.35x)")
    assert flood.goal_line(None).endswith("NOT met (-)")


def test_server_bench_nodes_quick_measures_nodes_and_the_yardstick(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A tiny real run of `arena bench server --nodes` (issue #23): one and two nodes over a
    throw-away PostgreSQL and Redis, same-node and cross-node matches, and the servers-alone
    yardstick, each a row with actions counted and CPU read from /proc. Structure only,
    never speed."""
    assert cli.main(["bench", "server", "--nodes", "1", "--nodes", "2", "--quick",
                     "--per-node", "--node-pace", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["per_node"] is True and out["pace"] == 20.0
    rows = out["rows"]
    assert [(r["nodes"], r["placement"], r["matches"]) for r in rows] == [
        (1, "same", 4), (1, "alone", 4), (2, "same", 8), (2, "cross", 8), (2, "alone", 8)]
    for row in rows:
        assert row["rate"] > 0 and row["errors"] == 0, row
        assert 0 < row["busy"] <= 1, row
        assert row["nodes_cpu_us"] > 0 and row["p50_ms"] <= row["p99_ms"]
    assert rows[0]["cpu_vs_one_node"] == 1.0 and rows[1]["cpu_vs_alone"] == 1.0
    assert rows[3]["redis_cpu_us"] >= 0 and rows[2]["cpu_vs_alone"] is not None
