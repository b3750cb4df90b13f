"""Self-play match scoring (rules §12.4, B24), the SPSA tuner and its log (§12.5), weight
files, ``arena tune barca`` and ``arena bench strength barca``. Depth 1 and few openings keep
it fast; the real run is in bots/barca/README.md."""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import pytest

from bots.barca import DEFAULT_WEIGHTS, FEATURES, BarcaBot
from bots.barca.weights_file import WeightsError, load_weights, names, save_weights
from engine.barca.position import Position
from tools.cli import main
from tools.tune import spsa
from tools.tune.barca_match import (
    D_MAX,
    Agent,
    C,
    GamePool,
    draw_score,
    match_tasks,
    openings,
    play_game,
    play_match,
    position_after,
)

OTHER = (300, -100, 50, 80, 20, 0, -60, -90, 40, 5, -30, 10, 0, -20, 30)
SMALL = spsa.Settings(seed=3, iterations=3, depth=1, openings=1, check_openings=1,
                      check_every=2)


def test_openings_are_distinct_quiet_and_reproducible() -> None:
    first = openings(12, seed=5)
    assert first == openings(12, seed=5)
    assert first != openings(12, seed=6)
    assert len(set(first)) == 12
    for opening in first:
        assert len(opening) == 4
        pos = Position.start()
        for move in opening:
            assert move in pos.legal_moves()
            pos.apply(move)
            assert pos.result is None
            assert pos.count() == 1  # no position repeats inside an opening


def test_b24_match_score_is_antisymmetric_and_zero_against_itself() -> None:
    a, b = Agent(DEFAULT_WEIGHTS, 1), Agent(OTHER, 1)
    opening_set = openings(3, seed=1)
    m_ab, records = play_match(a, b, opening_set)
    m_ba, _ = play_match(b, a, opening_set)
    assert m_ab == -m_ba
    assert m_ab != 0  # these two agents do play differently
    m_aa, same = play_match(a, a, opening_set)
    assert m_aa == 0
    # Each opening's two games are one game with the roles swapped.
    for white_a, black_a in zip(same[::2], same[1::2], strict=True):
        assert white_a.score == -black_a.score
        assert (white_a.reason, white_a.plies) == (black_a.reason, black_a.plies)
    assert [r.task.a_side for r in records] == [0, 1] * 3


def test_game_scores_follow_the_rules() -> None:
    """Wins score ±C/L; draws D_MAX·tanh((avg_A − avg_B)/S), odd and below D_MAX."""
    a, b = Agent(DEFAULT_WEIGHTS, 1), Agent(OTHER, 1)
    records = [play_game(t) for t in match_tasks(a, b, openings(4, seed=2))]
    for r in records:
        if r.winner == "a":
            assert r.score == C / r.plies and r.reason == "holes"
        elif r.winner == "b":
            assert r.score == -C / r.plies and r.reason == "holes"
        else:
            assert r.score == draw_score(r.avg_a, r.avg_b)
    assert draw_score(250.0, 50.0) == pytest.approx(D_MAX * math.tanh(2.0))
    assert draw_score(50.0, 250.0) == -draw_score(250.0, 50.0)
    assert draw_score(7.0, 7.0) == 0.0
    assert all(abs(draw_score(x, -x)) < D_MAX for x in (1.0, 100.0, 500.0))
    assert draw_score(1e6, -1e6) == D_MAX  # tanh saturates in floating point: never above


def test_a_game_replays_from_its_opening_through_the_bots() -> None:
    """What play_game records is what BarcaBot plays from that opening."""
    task = match_tasks(Agent(DEFAULT_WEIGHTS, 1), Agent(OTHER, 1), openings(1, seed=4))[0]
    record = play_game(task)
    pos = position_after(task.opening)
    bots = {0: BarcaBot(depth=1, weights=DEFAULT_WEIGHTS), 1: BarcaBot(depth=1, weights=OTHER)}
    plies = 0
    while pos.result is None:
        move, claim = bots[pos.side].decide_move(pos)
        if move is None:
            break
        pos.apply(move)
        plies += 1
        if claim:
            break
    assert plies == record.plies


def test_gains_perturbations_and_steps() -> None:
    s = spsa.Settings()
    assert spsa.gains(0, s) == (10, pytest.approx(10 / 21 ** 0.602))
    assert spsa.gains(199, s)[0] == max(1, round(10 / 200 ** 0.101))
    delta = spsa.perturbation(7, seed=1, n=15)
    assert delta == spsa.perturbation(7, seed=1, n=15) and set(delta) <= {-1, 1}
    assert delta != spsa.perturbation(8, seed=1, n=15)
    # θ + a_k·m/(2 c_k Δ), rounded half to even, clamped to ±1000.
    assert spsa.step([0, 0, 999, 0], [1, -1, 1, 1], 5.0, 1, 1.0) == [2, -2, 1000, 2]
    assert spsa.step([0], [1], 3.0, 1, 1.0) == [2]  # 1.5 → 2
    assert spsa.step([0], [1], 1.0, 1, 1.0) == [0]  # 0.5 → 0


def _log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_same_seed_reproduces_the_log_exactly(tmp_path: Path) -> None:
    one, two, par = tmp_path / "one.jsonl", tmp_path / "two.jsonl", tmp_path / "par.jsonl"
    state = spsa.tune(SMALL, one)
    spsa.tune(SMALL, two)
    spsa.tune(SMALL, par, jobs=2)  # worker processes do not change a byte
    assert one.read_bytes() == two.read_bytes() == par.read_bytes()
    records = _log(one)
    assert records[0]["settings"] == SMALL.identity()
    iterations = [r for r in records if "k" in r]
    checks = [r for r in records if "check" in r]
    assert [r["k"] for r in iterations] == [0, 1, 2]
    assert [r["check"] for r in checks] == [1, 2]  # every 2 iterations and after the last
    theta = list(SMALL.start)
    for r in iterations:  # every logged θ follows from the previous one by the SPSA rule
        c_k, a_k = spsa.gains(r["k"], SMALL)
        assert r["delta"] == spsa.perturbation(r["k"], SMALL.seed, 15)
        theta = spsa.step(theta, r["delta"], r["m"], c_k, a_k)
        assert r["theta"] == theta
    assert state.best == checks[-1]["best"]
    other = spsa.Settings(**{**SMALL.__dict__, "seed": 4})
    spsa.tune(other, tmp_path / "other.jsonl")
    assert _log(tmp_path / "other.jsonl")[1] != records[1]


def test_a_resumed_run_writes_the_same_log_as_an_uninterrupted_one(tmp_path: Path) -> None:
    straight = tmp_path / "straight.jsonl"
    spsa.tune(SMALL, straight)
    resumed = tmp_path / "resumed.jsonl"
    spsa.tune(spsa.Settings(**{**SMALL.__dict__, "iterations": 1}), resumed)
    lines = resumed.read_text().splitlines(keepends=True)
    # The first run made iteration 0 and a final check; a run with K=3 does not repeat them
    # but its checks come every 2 iterations: remove the check a K=1 run added and tear the
    # last line as a kill -9 would.
    assert '"check":0' in lines[-1]
    resumed.write_text("".join(lines[:-1]) + lines[-1][:17])
    state = spsa.tune(SMALL, resumed)
    assert resumed.read_bytes() == straight.read_bytes()
    assert state.k == 3


def test_a_log_with_other_settings_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    spsa.tune(spsa.Settings(**{**SMALL.__dict__, "iterations": 1}), log)
    with pytest.raises(spsa.LogMismatch, match="other settings"):
        spsa.tune(spsa.Settings(**{**SMALL.__dict__, "depth": 2}), log)
    (tmp_path / "x.jsonl").write_text('{"hello": 1}\n')
    with pytest.raises(spsa.LogMismatch, match="not an `arena tune barca` log"):
        spsa.tune(SMALL, tmp_path / "x.jsonl")


def test_game_pool_results_do_not_depend_on_workers() -> None:
    tasks = match_tasks(Agent(DEFAULT_WEIGHTS, 1), Agent(OTHER, 1), openings(2, seed=9))
    with GamePool(2) as pool:
        parallel = sorted(pool.play(tasks), key=lambda r: r.task.index)
    assert parallel == [play_game(t) for t in tasks]


def test_weights_files_by_name_and_path(tmp_path: Path) -> None:
    assert {"start", "tuned"} <= set(names())
    assert load_weights("start") == DEFAULT_WEIGHTS
    path = tmp_path / "w.json"
    save_weights(path, OTHER, {"note": "test"})
    assert load_weights(str(path)) == OTHER
    assert BarcaBot(weights=str(path)).weights == OTHER
    assert BarcaBot(weights="start").weights == DEFAULT_WEIGHTS
    bad = {
        "missing": ("nope", "no weights named 'nope'"),
        "short": ({"weights": [1, 2, 3]}, "15 integers"),
        "floats": ({"weights": [1.5] * 15}, "15 integers"),
        "features": ({"features": list(reversed(FEATURES)), "weights": [1] * 15},
                     "not this agent's"),
    }
    for name, (content, message) in bad.items():
        if isinstance(content, str):
            spec = content
        else:
            spec = str(tmp_path / f"{name}.json")
            Path(spec).write_text(json.dumps(content))
        with pytest.raises(WeightsError, match=message):
            load_weights(spec)
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(WeightsError, match="not a readable JSON"):
        load_weights(str(tmp_path / "broken.json"))


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit:  # argparse refusing a value
            code = int(exit.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_arena_tune_barca_writes_a_weights_file_the_bot_loads(tmp_path: Path) -> None:
    log, out = tmp_path / "log.jsonl", tmp_path / "w.json"
    argv = ["tune", "barca", "-K", "2", "--depth", "1", "--openings", "1",
            "--check-openings", "1", "--seed", "3", "--log", str(log), "--out", str(out)]
    code, stdout, stderr = _run(*argv)
    assert code == 0, stderr
    assert "tune barca (seed 3) [" in stderr  # the progress bar
    weights = load_weights(str(out))
    assert f"arena bot barca --weights {out}" in stdout
    assert json.loads(out.read_text())["source"]["log"] == str(log)
    best = [r for r in _log(log) if "check" in r][-1]["best"]
    assert list(weights) == best
    # The same command again resumes a finished run: nothing new is played or logged.
    before = log.read_bytes()
    assert _run(*argv)[0] == 0
    assert log.read_bytes() == before
    code, _, stderr = _run(*argv[:-4], "--depth", "2", "--log", str(log), "--out", str(out))
    assert code == 2 and "other settings" in stderr
    code, _, stderr = _run("tune", "barca", "--start", "nope")
    assert code == 2 and "no weights named 'nope'" in stderr
    code, _, stderr = _run("tune", "barca", "-K", "0")
    assert code == 2 and "--iterations/-K: must be at least 1" in stderr
    code, _, stderr = _run(*argv[:-2], "--out", str(tmp_path / "missing" / "w.json"))
    assert code == 2 and "--out: no directory" in stderr
    assert log.read_bytes() == before  # refused before touching the log


def test_arena_bot_refuses_bad_weights_and_options_before_connecting() -> None:
    code, _, stderr = _run("bot", "barca", "--game", "barca", "--weights", "nope",
                           "--server", "ws://127.0.0.1:9/ws")
    assert code == 2 and "no weights named 'nope'" in stderr
    code, _, stderr = _run("bot", "barca", "--game", "barca", "--option", "colour=red",
                           "--server", "ws://127.0.0.1:9/ws")
    assert code == 2 and "does not take these options" in stderr
    code, _, stderr = _run("bot", "barca", "--game", "barca", "--option", "depth",
                           "--server", "ws://127.0.0.1:9/ws")
    assert code == 2 and "is not key=value" in stderr


def test_arena_bench_strength_barca_plays_each_opening_in_both_colours() -> None:
    a, b = "barca:depth=1:weights=start", "greedy:weights=start"  # one agent, two names
    code, stdout, stderr = _run("bench", "strength", "barca", a, b, "-n", "6", "--json")
    assert code == 0, stderr
    result = json.loads(stdout)["result"]
    assert result["games"] == 6 and result["pairs"] == 3
    assert result["illegal_actions"] == {a: 0, b: 0}
    # Identical agents: each opening's two games mirror each other, so every pair splits.
    assert result["score"] == 0.5
    assert result["pairs_split"] == 3
    assert set(result["decision_ms"]) == {a, b}


SHIPPED_LOGS = sorted((Path(__file__).resolve().parents[3] / "bots" / "barca" / "weights"
                       / "logs").glob("stage*.jsonl"))


def _settings_of(header: dict, iterations: int) -> spsa.Settings:
    """The settings a log's header records, with ``iterations``."""
    raw = dict(header["settings"])
    raw["start"] = tuple(raw["start"])
    return spsa.Settings(iterations=iterations, **raw)


def test_the_shipped_tuned_weights_come_from_the_shipped_logs() -> None:
    """The tuning stages chain (each starts from the previous stage's best, the first from
    the rule book's weights), ``tuned`` is the last stage's best, and every stage's first
    iterations replay exactly from its logged settings."""
    assert len(SHIPPED_LOGS) >= 1
    start = list(DEFAULT_WEIGHTS)
    for log in SHIPPED_LOGS:
        records = _log(log)
        assert records[0]["settings"]["start"] == start, log.name
        checks = [r for r in records if "check" in r]
        start = checks[-1]["best"]
    assert list(load_weights("tuned")) == start


@pytest.mark.parametrize("log", SHIPPED_LOGS, ids=lambda p: p.name)
def test_a_shipped_tuning_log_replays_exactly(log: Path) -> None:
    """Iteration 0 of every shipped stage, replayed from its logged settings with the tuner's
    own steps, gives the logged Δ, m and θ number for number."""
    records = _log(log)
    settings = _settings_of(records[0], iterations=1)
    first = records[1]
    c_k, a_k = spsa.gains(0, settings)
    delta = spsa.perturbation(0, settings.seed, len(FEATURES))
    theta = list(settings.start)
    plus = Agent(tuple(t + c_k * d for t, d in zip(theta, delta, strict=True)), settings.depth)
    minus = Agent(tuple(t - c_k * d for t, d in zip(theta, delta, strict=True)), settings.depth)
    with GamePool(2) as pool:
        m, _ = play_match(plus, minus, openings(settings.openings, settings.seed), pool)
    assert (first["k"], first["c_k"], first["a_k"], first["delta"], first["m"]) == (
        0, c_k, a_k, delta, m)
    assert first["theta"] == spsa.step(theta, delta, m, c_k, a_k)
