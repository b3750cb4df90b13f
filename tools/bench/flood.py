"""``arena bench flood``: do the server's limits protect the matches of everyone else?

Starts an :class:`~server.app.ArenaServer` on 127.0.0.1 (port 0, a temporary SQLite file)
with its default limits, in this process. Each run, a load generator process
(:mod:`tools.bench.server_load` with ``--pace``) plays ``--matches`` live matches of
``--game`` between guests, each from its own loopback address (127.1.x.y), each seat
answering a request ``1/--pace`` s after it arrives (a steady, modest rate), and measures
the round trip of every action (from sending it to receiving its ``events``).

Runs alternate: **quiet** (the matches alone) and **flooded**, where a second process
(:mod:`tools.bench.flood_load`) runs ``--flooders`` guest connections, each from its own
loopback address, sending the most expensive messages the server accepts (``list_matches``
of 200, ``get_replay``) as fast as it can and reconnecting whenever it is closed, from
before the matches start until they are counted.

Printed: the median over ``--repeat`` runs of the action round trip's p50 and p99, quiet
and flooded, their ratio, what the flooders got (replies served, ``rate_limited``, closes,
refused handshakes), and the goal of issue #22 — p99 moves by at most 20%: met or NOT met.
``--quick`` is a tiny configuration for tests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from engine import registry
from server.app import ArenaServer, tune_gc
from server.logs import configure_logging
from server.storage import SqliteStore
from tools.bench.measure import add_common, stderr_progress
from tools.bench.server import end_leftovers, one_run, ratio
from tools.bench.stalls import Stalls, describe

HELP = "p99 action round trip of live matches, quiet and while flooders hit the server"

GOAL = 1.2
"""Flooded p99 at most this many times the quiet p99."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="battleline", help="game to play (default battleline)")
    p.add_argument("--matches", type=int, default=100, help="live matches (default 100)")
    p.add_argument("--pace", type=float, default=5.0,
                   help="actions per second of each match (default 5)")
    p.add_argument("--flooders", type=int, default=20,
                   help="flooding connections (default 20)")
    p.add_argument("--quick", action="store_true",
                   help="a tiny run for tests: 4 matches, 2 flooders, 1 repeat of 0.5 s")
    add_common(p, repeat=5, seconds=5.0)


async def flooded_run(args: argparse.Namespace, url: str, seats: int
                      ) -> tuple[dict[str, Any], dict[str, Any]]:
    flood = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.bench.flood_load", url, "--flooders", str(args.flooders),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert flood.stdin is not None and flood.stdout is not None
    try:
        await flood.stdout.readline()  # "flooding"
        run = await one_run(url, args.game, seats, args.matches, "json", args.seconds,
                            args.warmup, pace=args.pace, spread=True, stalls=Stalls())
    finally:
        flood.stdin.close()
        out, _ = await asyncio.wait_for(flood.communicate(), 60)
    lines = [line for line in out.decode().splitlines() if line.strip()]
    return run, json.loads(lines[-1]) if lines else {}


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    seats = registry.get(args.game).info.min_seats
    quiet: list[dict[str, Any]] = []
    flooded: list[dict[str, Any]] = []
    floods: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "bench.sqlite3")
        server = ArenaServer(store)  # the default limits: what a deployment runs with
        await server.start("127.0.0.1", 0)
        tune_gc()
        try:
            for n in range(args.repeat):
                # With the server's own stalls in the counted window: whether a worse round
                # trip is the server's doing or the machine's cores.
                quiet.append(await one_run(server.ws_url, args.game, seats, args.matches,
                                           "json", args.seconds, args.warmup,
                                           pace=args.pace, spread=True, stalls=Stalls()))
                await end_leftovers(server)
                run, flood = await flooded_run(args, server.ws_url, seats)
                await end_leftovers(server)
                flooded.append(run)
                floods.append(flood)
                stderr_progress(
                    f"run {n + 1}/{args.repeat}: p99 quiet "
                    f"{quiet[-1]['latency_ms']['p99']:.2f} ms, flooded "
                    f"{run['latency_ms']['p99']:.2f} ms; server: quiet "
                    f"{describe(quiet[-1]['server_stalls'])}, flooded "
                    f"{describe(run['server_stalls'])}; flooders {flood}")
        finally:
            await server.close()
            store.close()

    def median(runs: list[dict[str, Any]], key: str) -> float:
        return statistics.median(r["latency_ms"][key] for r in runs)

    def lag(runs: list[dict[str, Any]]) -> float:
        return statistics.median(r["server_stalls"]["loop_lag_ms"]["p99"] for r in runs)

    def rate(runs: list[dict[str, Any]]) -> float:
        return statistics.median(r["actions"] / r["elapsed"] for r in runs)

    p99_quiet, p99_flooded = median(quiet, "p99"), median(flooded, "p99")
    return {"matches": args.matches, "pace": args.pace, "flooders": args.flooders,
            "repeat": args.repeat, "seconds": args.seconds,
            "quiet": {"p50_ms": median(quiet, "p50"), "p99_ms": p99_quiet,
                      "actions_per_s": rate(quiet),
                      "server_loop_lag_p99_ms": lag(quiet)},
            "flooded": {"p50_ms": median(flooded, "p50"), "p99_ms": p99_flooded,
                        "actions_per_s": rate(flooded),
                        "server_loop_lag_p99_ms": lag(flooded)},
            "p99_ratio": ratio(p99_flooded, p99_quiet),
            "flooders_got": {key: sum(f.get(key, 0) for f in floods)
                             for key in ("served", "rate_limited", "other_errors", "closed",
                                         "refused")}}


def goal_line(ratio_: float | None) -> str:
    met = ratio_ is not None and ratio_ <= GOAL
    shown = "-" if ratio_ is None else f"{ratio_:.2f}x"
    return (f"goal: p99 moves by <= {GOAL - 1:.0%} under flood: "
            f"{'met' if met else 'NOT met'} ({shown})")


def run(args: argparse.Namespace) -> int:
    if args.quick:
        args.matches, args.flooders, args.pace = 4, 2, 20.0
        args.repeat, args.seconds, args.warmup = 1, 0.5, 0.1
    configure_logging("error")
    report = asyncio.run(bench(args))
    if args.json:
        print(json.dumps({"benchmark": "flood", **report}, indent=2))
        return 0
    print(f"{report['matches']} live matches at {report['pace']:g} actions/s each; "
          f"{report['flooders']} flooders; median of {report['repeat']} runs of "
          f"{report['seconds']:g} s")
    print(f"{'':<9}  {'p50':>9}  {'p99':>9}  {'actions/s':>9}  {'server loop lag p99':>19}")
    for name in ("quiet", "flooded"):
        row = report[name]
        print(f"{name:<9}  {row['p50_ms']:7.2f}ms  {row['p99_ms']:7.2f}ms  "
              f"{row['actions_per_s']:9.0f}  {row['server_loop_lag_p99_ms']:17.2f}ms")
    got = report["flooders_got"]
    print(f"flooders got: {got['served']} replies, {got['rate_limited']} rate_limited, "
          f"{got['closed']} closes, {got['refused']} refused handshakes, "
          f"{got['other_errors']} other errors")
    print(goal_line(report["p99_ratio"]))
    return 0
