"""``arena bench strength GAME``: round robins between bots, with 95% confidence intervals.

::

    arena bench strength chexers --agents random,greedy,maxn,paranoid,mp-mix -n 300 --jobs 2
    arena bench strength chexers --lineups mp-mix+maxn+paranoid,maxn+random+random -n 300
    arena bench strength chexers --agents maxn,maxn:two_player=true,paranoid:depth=3 -n 60
    arena bench strength battleline deep-barca greedy -n 1000 --jobs 2   # duplicate pairs
    arena bench strength chexers --lineups mp-mix:t_d=20+maxn+paranoid \
        --openings-of mp-mix+maxn+paranoid -n 300   # a paired comparison
    arena bench strength boundary -n 100 --jobs 2     # the seven bots, beside the thesis

**Boundary** (no bots named): the round robin of its seven bots — the six basic strategies and
the adaptive agent — as a win matrix, every pair on the same starts, each start twice with the
seats swapped (``-n`` games a pairing, default 100), printed beside the thesis's Tables 4
and 5, with the adaptive agent's score and 95% interval against each basic strategy
(``tools/bench/boundary_reference.py``). ``--agents`` plays another set the same way.

Line-ups: every set of distinct agents that fills the game's seats, plus each agent against
``random`` in every other seat (or exactly ``--lineups``, ``+``-separated). Each line-up is
played in **every seat permutation** on the same seeded random openings (``--opening-plies``
uniformly random actions first, so deterministic bots meet varied positions and no seat keeps
an opening advantage): ``-n`` games per line-up, rounded up to a whole number of openings ×
permutations. An agent is a bot name from the registry (``arena bot``'s names) with options
as ``NAME:key=value:key=value`` (values read as JSON when they parse, e.g. ``depth=4``,
``two_player=true``).

A line-up's openings (its games' seeds) follow from ``--seed`` and the line-up's own text, so
two variants of an agent meet different openings. ``--openings-of LINEUP`` plays every
line-up on LINEUP's openings instead: with deterministic bots, a variant then differs from
the original only where its own choices differ (a paired comparison, far less noisy than
comparing two independent runs).

Printed: per line-up and agent the share of games it won and the share drawn, each with a
Wilson 95% interval (an agent in two seats wins a game when either seat does); game length
and the reasons games ended; then every agent's decision time (p50/p90/p99/max) over all its
decisions. Progress goes to stderr. Bots run in-process through ``choose(request)``, exactly the
requests the server sends (views and legal actions from the engine), without clocks.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import multiprocessing
import os
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from bots import registry as bots
from engine import registry
from server.commands.arguments import non_negative_int, positive_int
from tools.bench import strength as duplicate
from tools.bench.tournament import (
    Progress,
    derive_seed,
    format_table,
    percentile,
    play_match,
    seatings,
    wilson,
)
from tools.commands.bot_options import parse_options

HELP = "round robins between bots over all seatings: win/draw shares with 95% CIs"

#: Per game: the default agents and opening plies.
DEFAULTS: dict[str, dict[str, Any]] = {
    "chexers": {"agents": "random,greedy,maxn,paranoid,mp-mix", "opening_plies": 6},
}
FALLBACK_DEFAULTS: dict[str, Any] = {"agents": "random", "opening_plies": 2}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="game name (e.g. chexers)")
    p.add_argument("bots", nargs="*", metavar="BOT",
                   help="two bots for a duplicate-pair match instead of a round robin: every "
                        "deal played twice, seats swapped (tools/bench/strength.py), e.g. "
                        "'battleline deep-barca greedy -n 1000'")
    p.add_argument("--agents", default=None,
                   help="comma-separated agents (default for chexers: "
                        f"{DEFAULTS['chexers']['agents']})")
    p.add_argument("--lineups", default=None,
                   help="comma-separated line-ups of '+'-joined agents (instead of --agents)")
    p.add_argument("-n", "--games", type=positive_int, default=None,
                   help="games per line-up, at least (default 300; Boundary: 100 a pairing)")
    p.add_argument("--jobs", type=positive_int, default=1, help="worker processes (default 1)")
    p.add_argument("--opening-plies", type=non_negative_int, default=None,
                   help="random actions before the bots take over (chexers default 6)")
    p.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    p.add_argument("--openings-of", default=None, metavar="LINEUP",
                   help="play every line-up on the openings of this '+'-joined line-up "
                        "(paired comparisons of agent variants)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


# ---- agents and line-ups --------------------------------------------------------------------


def parse_agent(spec: str) -> tuple[str, dict[str, Any]]:
    """``"maxn:depth=4:prune=false"`` → ``("maxn", {"depth": 4, "prune": False})``."""
    name, *pairs = spec.split(":")
    return name, parse_options(pairs, spec)


def make_bot(spec: str, seed: int, game: str | None = None) -> Any:
    name, options = parse_agent(spec)
    return bots.create(name, seed=seed, game=game, **options)


def _make_for(spec: str, seed: int, game: str) -> Any:
    return make_bot(spec, seed, game)


def lineups_for(agents: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """Each agent against ``random`` in every other seat, then every set of ``seats``
    distinct agents (in the order given)."""
    out: list[tuple[str, ...]] = []
    for agent in agents:
        if agent != "random":
            out.append((agent,) + ("random",) * (seats - 1))
    for combo in itertools.combinations(agents, seats):
        if combo not in out:
            out.append(combo)
    return out


@dataclass(frozen=True)
class Task:
    game: str
    lineup: tuple[str, ...]
    seating: tuple[str, ...]
    opening: int
    seed: int
    opening_plies: int


def tasks_for(game: str, lineups: Sequence[tuple[str, ...]], games: int, seed: int,
              opening_plies: int, openings_of: Sequence[str] | None = None) -> list[Task]:
    """Every seating of each line-up on ``ceil(games / seatings)`` openings, whose seeds
    come from ``seed`` and the line-up's text (or ``openings_of``'s, for paired runs)."""
    out: list[Task] = []
    for lineup in lineups:
        perms = seatings(lineup)
        openings = math.ceil(games / len(perms))
        key = "+".join(sorted(openings_of if openings_of is not None else lineup))
        for k in range(openings):
            match_seed = derive_seed(seed, key, k)
            out.extend(Task(game, lineup, s, k, match_seed, opening_plies) for s in perms)
    return out


def run_task(task: Task) -> tuple[Task, dict[str, Any]]:
    """Play one game (in a worker process or here)."""
    game = registry.get(task.game)
    players = [make_bot(spec, derive_seed(task.seed, seat, spec), task.game)
               for seat, spec in enumerate(task.seating)]
    result = play_match(game, players, seed=task.seed, opening_plies=task.opening_plies)
    return task, {"ranks": list(result.ranks), "reason": result.reason, "turns": result.turns,
                  "times": result.times, "cpu_times": result.cpu_times}


def _results(tasks: Sequence[Task], jobs: int) -> Iterator[tuple[Task, dict[str, Any]]]:
    if jobs <= 1:
        for task in tasks:
            yield run_task(task)
        return
    ctx = multiprocessing.get_context("fork" if "fork" in
                                      multiprocessing.get_all_start_methods() else "spawn")
    with ctx.Pool(jobs) as pool:
        yield from pool.imap_unordered(run_task, tasks, chunksize=1)


# ---- aggregation ----------------------------------------------------------------------------


@dataclass
class LineupStats:
    lineup: tuple[str, ...]
    games: int = 0
    draws: int = 0
    turns: int = 0
    wins: Counter[str] | None = None
    seat_wins: Counter[int] | None = None
    reasons: Counter[str] | None = None

    def __post_init__(self) -> None:
        self.wins = Counter()
        self.seat_wins = Counter()
        self.reasons = Counter()

    def add(self, task: Task, game: dict[str, Any]) -> None:
        assert self.wins is not None and self.seat_wins is not None and self.reasons is not None
        ranks = game["ranks"]
        self.games += 1
        self.turns += game["turns"]
        self.reasons[game["reason"]] += 1
        if all(r == 0 for r in ranks):
            self.draws += 1
            return
        winners = {task.seating[s] for s, r in enumerate(ranks) if r == 0}
        for agent in winners:
            self.wins[agent] += 1
        for s, r in enumerate(ranks):
            if r == 0:
                self.seat_wins[s] += 1

    def to_json(self) -> dict[str, Any]:
        assert self.wins is not None and self.seat_wins is not None and self.reasons is not None
        agents = {}
        for agent in dict.fromkeys(self.lineup):
            lo, hi = wilson(self.wins[agent], self.games)
            agents[agent] = {"wins": self.wins[agent],
                             "win_share": self.wins[agent] / max(self.games, 1),
                             "win_ci95": [lo, hi]}
        lo, hi = wilson(self.draws, self.games)
        return {"lineup": list(self.lineup), "games": self.games, "agents": agents,
                "draws": self.draws, "draw_share": self.draws / max(self.games, 1),
                "draw_ci95": [lo, hi], "mean_turns": self.turns / max(self.games, 1),
                "reasons": dict(self.reasons), "wins_by_seat": dict(self.seat_wins)}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci(lo: float, hi: float) -> str:
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def render(stats: Sequence[LineupStats], times: dict[str, list[float]],
           cpu_times: dict[str, list[float]]) -> str:
    rows = [("line-up", "agent", "games", "wins", "95% CI", "draws", "95% CI", "turns",
             "ended by")]
    for s in stats:
        data = s.to_json()
        first = True
        for agent, a in data["agents"].items():
            reasons = ", ".join(f"{k} {v}" for k, v in sorted(data["reasons"].items()))
            rows.append((
                "+".join(s.lineup) if first else "", agent, str(s.games) if first else "",
                _pct(a["win_share"]), _ci(*a["win_ci95"]),
                _pct(data["draw_share"]) if first else "",
                _ci(*data["draw_ci95"]) if first else "",
                f"{data['mean_turns']:.0f}" if first else "", reasons if first else ""))
            first = False
    table = format_table(rows, [False, False, True, True, False, True, False, True, False])
    trows: list[tuple[str, ...]] = [("agent", "decisions", "p50 ms", "p90 ms", "p99 ms",
                                     "max ms", "mean ms", "cpu p50", "cpu p99")]
    for agent, values in times.items():
        cpu = cpu_times[agent]
        trows.append((agent, str(len(values)), *(f"{1000 * percentile(values, q):.2f}"
                                                 for q in (0.5, 0.9, 0.99, 1.0)),
                      f"{1000 * statistics.fmean(values):.2f}" if values else "-",
                      f"{1000 * percentile(cpu, 0.5):.2f}", f"{1000 * percentile(cpu, 0.99):.2f}"))
    return table + "\n\ndecision time over these games (wall ms; cpu = deciding thread)\n" + \
        format_table(trows, [False] + [True] * 8)


def _boundary_matrix(args: argparse.Namespace) -> int:
    """The Boundary round robin as a win matrix beside the thesis's tables."""
    from tools.bench import boundary_reference as ref
    from tools.bench.matrix import Matrix, games_for, play

    agents = [a for a in args.agents.split(",") if a] if args.agents else list(ref.AGENTS)
    for spec in agents:
        try:
            make_bot(spec, 0, "boundary")
        except (bots.UnknownBot, ValueError, TypeError) as exc:
            print(f"arena bench strength: bad agent {spec!r}: {exc}", file=sys.stderr)
            return 2
    games = args.games if args.games is not None else 100
    jobs = max(1, min(args.jobs, os.cpu_count() or 1))
    tasks = games_for("boundary", agents, games, args.seed)
    matrix = Matrix(agents)
    progress = Progress(len(tasks), "strength boundary")
    for result in play(tasks, functools.partial(_make_for, game="boundary"), jobs):
        matrix.add(result)
        progress.advance(note=f"{ref.LABELS.get(result.game.a, result.game.a)} vs "
                              f"{ref.LABELS.get(result.game.b, result.game.b)}")
    settings = {"game": "boundary", "games_per_pairing": games, "seed": args.seed,
                "jobs": jobs}
    if args.json:
        _, adaptive = ref.adaptive_rows(matrix)
        print(json.dumps({"benchmark": "strength-matrix", "settings": settings,
                          "matrix": matrix.to_json(), "adaptive": adaptive,
                          "thesis": {"table_4": ref.TABLE_4, "table_5": ref.TABLE_5}},
                         indent=2))
    else:
        print(ref.report(matrix, settings))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.games is None and (args.game != "boundary" or args.bots or args.lineups):
        args.games = 300   # the Boundary matrix's default is its own (100 a pairing)
    try:
        game = registry.get(args.game)
    except KeyError:
        print(f"arena bench strength: unknown game {args.game!r}; games: "
              f"{', '.join(registry.names())}", file=sys.stderr)
        return 2
    if args.bots and args.openings_of:
        print("arena bench strength: --openings-of is for round robins; a duplicate-pair "
              "match already plays every deal in both seatings", file=sys.stderr)
        return 2
    if args.bots:
        return duplicate.run_cli(game, args.bots, args.games, args.seed,
                                 max(1, min(args.jobs, os.cpu_count() or 1)),
                                 functools.partial(_make_for, game=args.game), args.json)
    if args.game == "boundary" and not args.lineups:
        return _boundary_matrix(args)
    defaults = DEFAULTS.get(args.game, FALLBACK_DEFAULTS)
    seats = game.info.min_seats
    if args.lineups:
        lineups = [tuple(x.split("+")) for x in args.lineups.split(",") if x]
    else:
        agents = [a for a in (args.agents or defaults["agents"]).split(",") if a]
        lineups = lineups_for(agents, seats)
    for lineup in lineups:
        if not game.info.min_seats <= len(lineup) <= game.info.max_seats:
            print(f"arena bench strength: {'+'.join(lineup)} does not fill {args.game}'s "
                  f"seats", file=sys.stderr)
            return 2
        for spec in lineup:
            try:
                make_bot(spec, 0)
            except (bots.UnknownBot, ValueError, TypeError) as exc:
                print(f"arena bench strength: bad agent {spec!r}: {exc}", file=sys.stderr)
                return 2
    openings_of = None
    if args.openings_of:
        openings_of = args.openings_of.split("+")
        if len(openings_of) != seats or any(len(lineup) != seats for lineup in lineups):
            print(f"arena bench strength: --openings-of needs line-ups of {seats} seats, "
                  f"as {args.game}'s are", file=sys.stderr)
            return 2
    plies = args.opening_plies if args.opening_plies is not None else defaults["opening_plies"]
    tasks = tasks_for(args.game, lineups, args.games, args.seed, plies, openings_of)
    jobs = max(1, min(args.jobs, os.cpu_count() or 1))
    stats = {lineup: LineupStats(lineup) for lineup in lineups}
    times: dict[str, list[float]] = defaultdict(list)
    cpu_times: dict[str, list[float]] = defaultdict(list)
    progress = Progress(len(tasks), f"strength {args.game}")
    for task, result in _results(tasks, jobs):
        stats[task.lineup].add(task, result)
        for seat, spent in enumerate(result["times"]):
            times[task.seating[seat]].extend(spent)
            cpu_times[task.seating[seat]].extend(result["cpu_times"][seat])
        progress.advance()
    ordered = [stats[lineup] for lineup in lineups]
    settings = {"game": args.game, "games_per_lineup": args.games, "jobs": jobs,
                "opening_plies": plies, "seed": args.seed, "openings_of": args.openings_of}
    if args.json:
        print(json.dumps({"benchmark": "strength", "settings": settings,
                          "lineups": [s.to_json() for s in ordered],
                          "decision_ms": {a: {"n": len(v),
                                              "p50": 1000 * percentile(v, 0.5),
                                              "p99": 1000 * percentile(v, 0.99),
                                              "cpu_p50": 1000 * percentile(cpu_times[a], 0.5),
                                              "cpu_p99": 1000 * percentile(cpu_times[a], 0.99)}
                                          for a, v in times.items()}}, indent=2))
    else:
        of = f" (the openings of {args.openings_of})" if args.openings_of else ""
        print(f"arena bench strength {args.game}: {len(tasks)} games, "
              f"{plies} random opening plies{of}, seed {args.seed}, every seating of each "
              "line-up")
        print(render(ordered, times, cpu_times))
    return 0
