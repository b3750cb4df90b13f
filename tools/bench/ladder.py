"""``arena bench ladder``: what the bot ladder costs.

* **rating update**: one OpenSkill Plackett-Luce update of a finished match
  (:func:`server.ratings.rate`), two seats and three seats, and the same through the ladder's
  books (:meth:`server.ladder_book.LadderBook.rate`: ratings plus win/draw/loss counts), in
  updates per second;
* **pairing**: one scheduler round (:func:`server.scheduler.plan`) over ``--bots`` available
  bots with one free slot each (every bot gets paired), in rounds per second;
* **matches per minute** (skip with ``--no-server``): a real server with its ladder on a fresh
  SQLite file, and ``--bots`` quick bots (random legal actions, answered at once) in a second
  process (:mod:`tools.bench.ladder_bots`), each on ``--game``'s ladder with
  ``--max-matches`` at once; after ``--warmup`` seconds, rated ladder matches are counted over
  ``--repeat`` consecutive windows of ``--server-seconds`` each.

Micro-benchmarks report the median of ``--repeat`` runs of ``--seconds`` each; every run does
the same work from the same seeds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from engine import registry
from server.clocks import Clock
from server.commands.arguments import positive_float, positive_int
from server.ladder import GameLadder, LadderSettings
from server.ladder_book import LadderBook
from server.ratings import Rating, rate
from server.scheduler import Candidate, PairLog, Policy, plan
from tools.bench.measure import (
    Operation,
    Result,
    Workload,
    add_common,
    measure,
    print_json,
    print_table,
    stderr_progress,
)

HELP = "ladder: rating update cost, pairing rounds, matches per minute with quick bots"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bots", type=positive_int, default=20, help="quick bots (default 20)")
    p.add_argument("--game", default="battleline", help="their ladder (default battleline)")
    p.add_argument("--max-matches", type=positive_int, default=1,
                   help="ladder matches each quick bot plays at once (default 1)")
    p.add_argument("--server-seconds", type=positive_float, default=20.0,
                   help="seconds per counting window on the server (default 20)")
    p.add_argument("--no-server", action="store_true",
                   help="micro-benchmarks only (no server, no bots)")
    add_common(p, repeat=3, seconds=1.0)


# ---- micro-benchmarks ------------------------------------------------------------------------


def _ratings(rng: random.Random, n: int) -> list[Rating]:
    return [Rating(rng.uniform(15, 35), rng.uniform(1, 8)) for _ in range(n)]


def rate_workload(seats: int) -> Workload:
    def make() -> Operation:
        rng = random.Random(seats)
        cases = [(_ratings(rng, seats), [rng.randrange(seats) for _ in range(seats)])
                 for _ in range(64)]

        def op() -> int:
            for ratings, ranks in cases:
                rate(ratings, ranks)
            return len(cases)
        return op
    return Workload(f"rating update, {seats} seats", "updates/s", make)


def book_workload(seats: int) -> Workload:
    def make() -> Operation:
        rng = random.Random(seats)
        book = LadderBook()
        ids = [book.add_entity("g", f"a{i}", "bot", "1").id for i in range(20)]
        cases = [(rng.sample(ids, seats), [rng.randrange(seats) for _ in range(seats)])
                 for _ in range(64)]

        def op() -> int:
            for seated, ranks in cases:
                book.rate("m", seated, ranks)
            return len(cases)
        return op
    return Workload(f"ladder book rate, {seats} seats", "updates/s", make)


def plan_workload(bots: int, seats: int) -> Workload:
    def make() -> Operation:
        rng = random.Random(bots)
        candidates = [Candidate(i, f"acct{i}", 1, games=rng.randrange(50),
                                ordinal=rng.uniform(-5, 30), last_played=rng.uniform(0, 100),
                                seat_counts=tuple(rng.randrange(20) for _ in range(seats)))
                      for i in range(bots)]
        policy = Policy(seats, window=3, pair_cap_per_hour=1_000_000)

        def op() -> int:
            plan(candidates, policy, PairLog(), 1000.0, rng)
            return 1
        return op
    return Workload(f"pairing round, {bots} bots, {seats} seats", "rounds/s", make)


# ---- the server --------------------------------------------------------------------------------


async def matches_per_minute(args: argparse.Namespace) -> Result:
    # Imported here: the micro-benchmarks need no server.
    from server.app import ArenaServer
    from server.logs import configure_logging
    from server.storage import SqliteStore

    configure_logging("warning")
    with tempfile.TemporaryDirectory(prefix="arena-bench-ladder-") as tmp:
        store = SqliteStore(Path(tmp) / "ladder.sqlite3")
        seats = registry.get(args.game).info.min_seats
        settings = LadderSettings(
            games={args.game: GameLadder(args.game, seats, Clock(60_000, 1_000),
                                         pair_cap_per_hour=1_000_000)},
            interval_s=1.0)
        server = ArenaServer(store, ladder=settings)
        await server.start("127.0.0.1", 0)
        tokens = [await asyncio.to_thread(store.create_account, f"quick-{n}", "bot")
                  for n in range(args.bots)]
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tools.bench.ladder_bots", server.ws_url,
            "--game", args.game, "--max-matches", str(args.max_matches),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(tokens).encode())
        process.stdin.close()
        try:
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            if line.strip() != b"ready":
                raise RuntimeError("the quick bots did not start")
            ladder = server.ladder
            await asyncio.sleep(max(2.0, args.warmup))  # the first matches under way
            rates = []
            for n in range(args.repeat):
                start, counted = time.perf_counter(), ladder.rated_matches
                await asyncio.sleep(args.server_seconds)
                elapsed = time.perf_counter() - start
                rates.append((ladder.rated_matches - counted) / elapsed * 60)
                stderr_progress(f"matches per minute: run {n + 1}/{args.repeat}: "
                                f"{rates[-1]:,.1f}")
            details = {"bots": args.bots, "game": args.game, "max_matches": args.max_matches,
                       "started": ladder.started_matches, "rated": ladder.rated_matches,
                       "void": ladder.void_matches}
        finally:
            process.kill()
            await process.wait()
            await server.close()
            store.close()
    return Result(f"ladder matches, {args.bots} quick bots, {args.game}", "matches/min",
                  tuple(rates), details)


def run(args: argparse.Namespace) -> int:
    workloads = [rate_workload(2), rate_workload(3), book_workload(2), book_workload(3),
                 plan_workload(args.bots, 2), plan_workload(args.bots, 3)]
    results = []
    for n, workload in enumerate(workloads, 1):
        stderr_progress(f"[{n}/{len(workloads)}] {workload.name} "
                        f"({args.repeat} × {args.seconds:g} s)")
        results.append(measure(workload, args.repeat, args.seconds, args.warmup,
                               stderr_progress))
    if not args.no_server:
        stderr_progress(f"server: {args.bots} quick bots on the {args.game} ladder "
                        f"({args.repeat} × {args.server_seconds:g} s)")
        results.append(asyncio.run(matches_per_minute(args)))
    if args.json:
        print_json("ladder", results, {k: v for k, v in vars(args).items()
                                       if not k.startswith("_") and k != "func"})
    else:
        print_table(results)
    return 0
