"""``arena bench strength`` and ``arena bench bot`` on Chexers, tiny runs: the tables are
built from real games, every seating is played, and the statistics helpers are right."""

from __future__ import annotations

import json

import pytest

from tools.bench.tournament import percentile, play_match, seatings, wilson
from tools.cli import main
from tools.commands.bench_strength import lineups_for, parse_agent, tasks_for


def test_wilson_interval_matches_known_values() -> None:
    lo, hi = wilson(270, 300)
    assert (round(lo, 4), round(hi, 4)) == (0.8608, 0.9291)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    lo, hi = wilson(5, 10)
    assert lo < 0.5 < hi and abs((0.5 - lo) - (hi - 0.5)) < 1e-12


def test_percentile_interpolates() -> None:
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([1.0, 2.0], 0.5) == 1.5
    assert percentile(list(range(101)), 0.99) == 99


def test_lineups_and_seatings() -> None:
    agents = ["random", "greedy", "maxn", "paranoid", "mp-mix"]
    lineups = lineups_for(agents, 3)
    assert lineups[:4] == [("greedy", "random", "random"), ("maxn", "random", "random"),
                           ("paranoid", "random", "random"), ("mp-mix", "random", "random")]
    assert len(lineups) == 4 + 10 and ("mp-mix", "maxn", "paranoid") not in lineups
    assert ("maxn", "paranoid", "mp-mix") in lineups
    assert len(seatings(("a", "b", "c"))) == 6 and len(seatings(("a", "r", "r"))) == 3
    tasks = tasks_for("chexers", [("maxn", "paranoid", "mp-mix")], 300, 1, 6)
    assert len(tasks) == 300
    # Each opening is played in all six seatings.
    by_opening: dict[int, set[tuple[str, ...]]] = {}
    for t in tasks:
        by_opening.setdefault(t.opening, set()).add(t.seating)
    assert all(len(s) == 6 for s in by_opening.values()) and len(by_opening) == 50
    # A variant's line-up plays its own openings, or (paired) those of another line-up.
    variant = tasks_for("chexers", [("mp-mix:t_d=20", "maxn", "paranoid")], 300, 1, 6)
    paired = tasks_for("chexers", [("mp-mix:t_d=20", "maxn", "paranoid")], 300, 1, 6,
                       openings_of=["mp-mix", "maxn", "paranoid"])
    seeds = {t.seed for t in tasks}
    assert {t.seed for t in paired} == seeds and not {t.seed for t in variant} & seeds
    assert [t.opening for t in paired] == [t.opening for t in tasks]
    assert parse_agent("maxn:depth=4:two_player=true:variant=best4") == (
        "maxn", {"depth": 4, "two_player": True, "variant": "best4"})


def test_play_match_is_reproducible() -> None:
    from bots.chexers import GreedyBot
    from bots.random_bot import RandomBot
    from engine.chexers import GAME

    def once() -> tuple:
        r = play_match(GAME, [GreedyBot(), RandomBot(1), RandomBot(2)], seed=4, opening_plies=6)
        return r.ranks, r.reason, r.turns, [len(t) for t in r.times]
    first = once()
    assert first == once()
    assert sum(first[3]) == first[2] - 6  # every non-opening turn was a timed decision


def test_strength_bench_prints_a_table_from_real_games(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    assert main(["bench", "strength", "chexers", "-n", "6", "--lineups",
                 "greedy+random+random", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (lineup,) = data["lineups"]
    assert lineup["games"] == 6 and sum(lineup["wins_by_seat"].values()) + lineup[
        "draws"] == 6
    assert lineup["agents"]["greedy"]["wins"] + lineup["agents"]["random"]["wins"] + lineup[
        "draws"] == 6
    assert main(["bench", "strength", "chexers", "-n", "3", "--lineups",
                 "greedy+random+random"]) == 0
    out = capsys.readouterr().out
    assert "greedy+random+random" in out and "95% CI" in out and "decision time" in out
    # Paired: greedy's variant on greedy's openings plays the same games as greedy (the same
    # choices: depth=1 is greedy's default).
    assert main(["bench", "strength", "chexers", "-n", "6", "--json", "--lineups",
                 "greedy:depth=1+random+random", "--openings-of", "greedy+random+random"]) == 0
    paired = json.loads(capsys.readouterr().out)["lineups"][0]
    assert paired["wins_by_seat"] == lineup["wins_by_seat"]
    assert paired["agents"]["greedy:depth=1"]["wins"] == lineup["agents"]["greedy"]["wins"]
    assert main(["bench", "strength", "chexers", "--lineups", "greedy+random+random",
                 "--openings-of", "greedy+random"]) == 2
    assert "3 seats" in capsys.readouterr().err
    assert main(["bench", "strength", "battleline", "greedy", "random",
                 "--openings-of", "greedy+random"]) == 2
    assert "round robins" in capsys.readouterr().err


def test_bot_bench_reports_depth_and_percentiles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "bot", "greedy,maxn:depth=2", "--game", "chexers", "-n", "1",
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    assert [r["agent"] for r in rows] == ["greedy", "maxn:depth=2"]
    assert all(r["decisions"] > 10 and r["p50_ms"] <= r["p99_ms"] <= r["max_ms"]
               for r in rows)
    assert rows[1]["mean_depth"] == 2.0
    assert main(["bench", "bot", "nosuchbot", "--game", "chexers"]) == 2
