"""``arena bench server``: the whole server under load, measured from real clients.

Starts an :class:`~server.app.ArenaServer` on 127.0.0.1 (port 0, a temporary SQLite file) in
this process, with the collector tamed as ``arena serve`` does, and for each run a load
generator in a separate process (:mod:`server.bench.server_load`, so the clients do not share
the server's event loop): ``--matches`` concurrent matches of ``--game`` between guests that
seek, answer every request at once with a random legal action, and seek again when a match
ends. Everything a real deployment does happens: handshakes, seeks, per-seat rendering,
encoding, clocks off, the store written as matches go.

Figures, each the median over ``--repeat`` runs of ``--seconds``:

* actions per second the server applied (every one answered a request, was checked by the
  engine and sent events to each seat);
* matches per second completed;
* action round trip: from a client sending an action to it receiving the ``events`` that
  action caused (p50 / p90 / p99 of all samples of the median run), which includes the load
  generator's own scheduling on a shared 2-core machine;
* the server process's CPU time per action (all its threads, set-up and warm-up included):
  the figure that least depends on what else the machine is doing. Rates on a busy machine
  measure its scheduler as much as the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engine import registry
from server.app import ArenaServer, tune_gc
from server.bench.measure import Result, add_common, print_json, print_table, stderr_progress
from server.logs import configure_logging
from server.storage import SqliteStore

HELP = "actions/s and action round trips through a live server with many concurrent matches"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="battleline", help="game to play (default battleline)")
    p.add_argument("--matches", type=int, action="append", default=None,
                   help="concurrent matches (repeatable; default 1 and 50)")
    p.add_argument("--encoding", choices=("json", "msgpack"), action="append", default=None,
                   help="wire encoding (repeatable; default json and msgpack)")
    p.add_argument("--no-gc-tuning", action="store_true",
                   help="leave the cyclic collector at its defaults")
    add_common(p, repeat=3, seconds=3.0)


async def one_run(url: str, game: str, seats: int, matches: int, encoding: str,
                  seconds: float, warmup: float) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.bench.server_load", url, "--game", game,
        "--seats", str(seats), "--matches", str(matches), "--encoding", encoding,
        "--seconds", str(seconds), "--warmup", str(max(warmup, 0.3)),
        stdout=asyncio.subprocess.PIPE)
    out, _ = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"load generator failed ({process.returncode})")
    return dict(json.loads(out.decode().strip().splitlines()[-1]))


async def bench(args: argparse.Namespace) -> tuple[list[Result], list[dict[str, Any]]]:
    game = registry.get(args.game)
    seats = game.info.min_seats
    results: list[Result] = []
    latencies: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "bench.sqlite3")
        server = ArenaServer(store)
        await server.start("127.0.0.1", 0)
        if not args.no_gc_tuning:
            tune_gc()
        try:
            for encoding in args.encoding or ["json", "msgpack"]:
                for matches in args.matches or [1, 50]:
                    runs = []
                    for n in range(args.repeat):
                        cpu = time.process_time()
                        run = await one_run(server.ws_url, args.game, seats, matches,
                                            encoding, args.seconds, args.warmup)
                        # The server's own CPU (all its threads) over the whole run, warm-up
                        # and set-up included, per action counted: an upper bound that does
                        # not depend on how busy the machine's other processes are.
                        run["server_cpu_us"] = ((time.process_time() - cpu) * 1e6
                                                / max(1, run["actions"]))
                        runs.append(run)
                        stderr_progress(
                            f"{args.game} {encoding} x{matches}: run {n + 1}/{args.repeat}: "
                            f"{run['actions'] / run['elapsed']:,.0f} actions/s, "
                            f"p50 {run['latency_ms']['p50']:.2f} ms, "
                            f"p99 {run['latency_ms']['p99']:.2f} ms, "
                            f"server CPU {run['server_cpu_us']:.0f} µs/action, "
                            f"errors {run['errors']}")
                    name = f"{args.game} {encoding}, {matches} matches"
                    settings = {"game": args.game, "encoding": encoding, "matches": matches}
                    results.append(Result(f"{name}: actions", "actions/s",
                                          tuple(r["actions"] / r["elapsed"] for r in runs),
                                          settings))
                    results.append(Result(f"{name}: matches", "matches/s",
                                          tuple(r["matches"] / r["elapsed"] for r in runs),
                                          settings))
                    rates = [r["actions"] / r["elapsed"] for r in runs]
                    median_run = runs[rates.index(statistics.median_low(rates))]
                    latencies.append({"name": name, **median_run["latency_ms"],
                                      "samples": median_run["samples"],
                                      "server_cpu_us": statistics.median(
                                          r["server_cpu_us"] for r in runs),
                                      "errors": sum(r["errors"] for r in runs)})
        finally:
            await server.close()
            store.close()
    return results, latencies


def run(args: argparse.Namespace) -> int:
    configure_logging("error")
    results, latencies = asyncio.run(bench(args))
    if args.json:
        print_json("server", results, {"seconds": args.seconds, "repeat": args.repeat,
                                       "gc_tuned": not args.no_gc_tuning,
                                       "round_trip_ms": latencies})
        return 0
    print_table(results)
    print()
    width = max(len(row["name"]) for row in latencies)
    print(f"{'action round trip (median run)'.ljust(width)}  {'p50':>8}  {'p90':>8}  "
          f"{'p99':>8}  {'max':>8}  samples  server CPU/action  errors")
    for row in latencies:
        print(f"{row['name'].ljust(width)}  {row['p50']:6.2f}ms  {row['p90']:6.2f}ms  "
              f"{row['p99']:6.2f}ms  {row['max']:6.1f}ms  {row['samples']:7d}  "
              f"{row['server_cpu_us']:14.0f} µs  {row['errors']:6d}")
    return 0
