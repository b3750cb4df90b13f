"""``arena bench bot AGENTS --game GAME``: how long a bot takes to decide.

::

    arena bench bot maxn --game chexers
    arena bench bot maxn:depth=2,maxn,maxn:depth=4,paranoid,mp-mix --game chexers -n 20

For each agent (a registry name with ``:key=value`` options, as in ``arena bench strength``)
seeded games are played with the agent in every seat (``--opponents self``, the default) or
against ``random`` seats (``--opponents random``), each after ``--opening-plies`` random
actions; every decision of the agent is timed around ``choose(request)`` (the request the
server would send: view and legal actions, no clock, so the bot searches to its full depth).
Printed per agent: decisions, p50/p90/p99/max/mean wall-clock milliseconds, p50/p99/max of
the deciding thread's CPU time (immune to other load on a shared machine) and, for bots that record
their searches (``bot.last`` with ``nodes``/``leaves``, as the Chexers search bots do), the
mean search depth completed and the positions scored per second. The games and openings are
the same for every agent with the same options (same seeds), so rows compare like with like.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any

from bots import registry as bots
from engine import registry
from server.commands.arguments import non_negative_int, positive_int
from tools.bench.tournament import (
    Progress,
    derive_seed,
    format_table,
    percentile,
    play_match,
)
from tools.commands.bench_strength import make_bot, parse_agent

HELP = "decision time of bots (p50/p90/p99) over seeded games"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("agents", help="comma-separated agents, e.g. maxn,maxn:depth=4,paranoid")
    p.add_argument("--game", default=None,
                   help="game name (e.g. chexers); default: the game of a bot that plays one "
                        "(deep-barca: battleline)")
    p.add_argument("-n", "--games", type=positive_int, default=10,
                   help="games per agent (default 10)")
    p.add_argument("--opponents", choices=("self", "random"), default="self",
                   help="who fills the other seats (default: the agent itself)")
    p.add_argument("--opening-plies", type=non_negative_int, default=6,
                   help="random actions before the bots take over (default 6)")
    p.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def bench_agent(game_name: str, spec: str, games: int, opponents: str, plies: int, seed: int,
                progress: Progress) -> dict[str, Any]:
    game = registry.get(game_name)
    seats = game.info.min_seats
    times: list[float] = []
    cpu_times: list[float] = []
    depths: list[int] = []
    scored = 0
    search_time = 0.0

    def on_decision(seat: int, bot: Any, spent: float, cpu: float) -> None:
        nonlocal scored, search_time
        if opponents == "random" and seat != 0:
            return
        times.append(spent)
        cpu_times.append(cpu)
        last = getattr(bot, "last", None)
        if last is not None and hasattr(last, "nodes") and getattr(last, "mode", "") != "forced":
            depths.append(int(getattr(last, "depth", 0)))
            scored += int(last.nodes) + int(getattr(last, "leaves", 0))
            search_time += cpu

    for k in range(games):
        match_seed = derive_seed(seed, game_name, "bot-bench", k)
        players = [make_bot(spec if (opponents == "self" or s == 0) else "random",
                            derive_seed(match_seed, s), game_name) for s in range(seats)]
        play_match(game, players, seed=match_seed, opening_plies=plies,
                   on_decision=on_decision)
        progress.advance(note=spec)
    return {
        "agent": spec, "decisions": len(times),
        "p50_ms": 1000 * percentile(times, 0.5), "p90_ms": 1000 * percentile(times, 0.9),
        "p99_ms": 1000 * percentile(times, 0.99), "max_ms": 1000 * max(times, default=0.0),
        "mean_ms": 1000 * statistics.fmean(times) if times else float("nan"),
        "cpu_p50_ms": 1000 * percentile(cpu_times, 0.5),
        "cpu_p99_ms": 1000 * percentile(cpu_times, 0.99),
        "cpu_max_ms": 1000 * max(cpu_times, default=0.0),
        "mean_depth": statistics.fmean(depths) if depths else None,
        "positions_per_s": scored / search_time if search_time > 0 else None,
    }


def _only_game(specs: list[str]) -> str | None:
    """The one game every agent's class declares it plays (``games``), if there is one."""
    found = set()
    for spec in specs:
        name, _ = parse_agent(spec)
        try:
            games = getattr(bots.get(name), "games", None)
        except bots.UnknownBot:
            return None
        if games is None or len(games) != 1:
            return None
        found.add(games[0])
    return found.pop() if len(found) == 1 else None


def run(args: argparse.Namespace) -> int:
    if args.game is None:
        args.game = _only_game([s for s in args.agents.split(",") if s])
        if args.game is None:
            print("arena bench bot: name the game with --game", file=sys.stderr)
            return 2
    try:
        registry.get(args.game)
    except KeyError:
        print(f"arena bench bot: unknown game {args.game!r}", file=sys.stderr)
        return 2
    specs = [s for s in args.agents.split(",") if s]
    for spec in specs:
        try:
            make_bot(spec, 0, args.game)
        except Exception as exc:  # noqa: BLE001 - any bad name or option is reported alike
            print(f"arena bench bot: bad agent {spec!r}: {exc}", file=sys.stderr)
            return 2
    progress = Progress(len(specs) * args.games, f"bench bot {args.game}")
    rows = [bench_agent(args.game, spec, args.games, args.opponents, args.opening_plies,
                        args.seed, progress) for spec in specs]
    if args.json:
        print(json.dumps({"benchmark": "bot", "game": args.game, "games": args.games,
                          "opponents": args.opponents, "results": rows}, indent=2))
        return 0
    print(f"arena bench bot --game {args.game}: {args.games} games per agent, opponents "
          f"{args.opponents}, {args.opening_plies} random opening plies, seed {args.seed}")
    table = [("agent", "decisions", "p50 ms", "p90 ms", "p99 ms", "max ms", "mean ms",
              "cpu p50", "cpu p99", "cpu max", "depth", "positions/s")]
    for r in rows:
        table.append((r["agent"], str(r["decisions"]), *(f"{r[k]:.2f}" for k in (
            "p50_ms", "p90_ms", "p99_ms", "max_ms", "mean_ms", "cpu_p50_ms", "cpu_p99_ms",
            "cpu_max_ms")),
            "-" if r["mean_depth"] is None else f"{r['mean_depth']:.2f}",
            "-" if r["positions_per_s"] is None else f"{r['positions_per_s']:,.0f}"))
    print(format_table(table, [False] + [True] * 11))
    print("(ms of wall-clock time around choose(); cpu = the deciding thread's CPU time; "
          "positions/s = searched nodes and scored leaves per CPU second)")
    return 0
