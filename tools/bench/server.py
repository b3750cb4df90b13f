"""``arena bench server``: the whole server under load, measured from real clients.

Starts an :class:`~server.app.ArenaServer` on 127.0.0.1 (port 0, a temporary SQLite file) in
this process, with the collector tamed as ``arena serve`` does, and for each run a load
generator in a separate process (:mod:`tools.bench.server_load`, so the clients do not share
the server's event loop): ``--matches`` concurrent matches of ``--game`` between guests that
seek, answer every request at once with a random legal action (or plan), and seek again when a match
ends. Everything a real deployment does happens: handshakes, seeks, per-seat rendering,
encoding, clocks off, the store written as matches go.

Figures, each the median over ``--repeat`` runs of ``--seconds``:

* actions per second the server applied (every one answered a request, was checked by the
  engine and sent events to each seat);
* matches per second completed;
* action round trip: from a client sending an action to it receiving the ``events`` that
  action caused (p50 / p90 / p99 of all samples of the median run), which includes the load
  generator's own scheduling on a shared 2-core machine; with ``--lean`` (the bots ask for
  lean delivery, ``hello.lean``: no events frames, the events ride in the requests) from an
  action to the next ``request`` (or ``match_end``) of its match, whoever's it is: what
  the action leads to (the yardsticks' clients are not lean);
* the server process's CPU time per action (all its threads) over the counted window only
  (the load generator marks its start and end on its stdout), and over the whole run with
  set-up and warm-up: the figures that least depend on what else the machine is doing. Rates
  on a busy machine measure its scheduler as much as the server;
* the load generator's own CPU time per action over the counted window: the clients share
  the machine's cores with the server, so a rate is bounded by both.

Measured in the same run, by the same load generator, at every level of ``--matches``
(:mod:`tools.bench.baselines`): a bare ``websockets`` **echo** (round trip of a move-sized
frame, one client per match), a bare **relay** (pairs of clients whose moves a server
decodes and forwards to the other seat, no game logic) and a **shaped relay** (the same
bots as against the arena, answered with the arena's own recorded messages, no game logic:
what this protocol's traffic alone allows on this machine). The figures the issue asks for
are the ratios: server round trip p50/p99 ÷ echo p50/p99 (goal ≤ 2) and server actions/s ÷
relay moves/s (goal ≥ 0.5 with 500 matches); shaped relay ÷ relay is the most any server
speaking this protocol could show there, and server ÷ shaped relay what the game leaves of
it. ``--quick`` is a tiny configuration for tests.

Where the time goes: at every level, the **game path** (:mod:`tools.bench.game_path`) —
the runner, rendering and encoding of as many random matches in-process, interleaved one
action at a time, no sockets — is timed too. The last table splits the server's CPU per
action into that game path and the rest (the protocol session, websocket framing, the event
loop, system calls, the store's writer thread), next to the relay's CPU per move and both
load generators' CPU per unit.
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
from server.commands.arguments import (
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
)
from server.logs import configure_logging
from server.storage import SqliteStore
from tools.bench import game_path, server_scale
from tools.bench.baselines import start_echo, start_relay, start_shaped
from tools.bench.measure import (
    Result,
    add_common,
    measure,
    print_json,
    print_table,
    stderr_progress,
)
from tools.bench.server_host import LOAD_LIMITS
from tools.bench.stalls import Stalls

HELP = "actions/s and action round trips through a live server with many concurrent matches"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="battleline", help="game to play (default battleline)")
    p.add_argument("--matches", type=positive_int, action="append", default=None,
                   help="concurrent matches (repeatable; default 1, 10, 100 and 500)")
    p.add_argument("--encoding", choices=("json", "msgpack"), action="append", default=None,
                   help="wire encoding (repeatable; default json)")
    p.add_argument("--no-baselines", action="store_true",
                   help="skip the echo, relay and shaped relay yardsticks (and the ratios)")
    p.add_argument("--quick", action="store_true",
                   help="a tiny run for tests: 1 and 2 matches, 1 repeat of 0.3 s, json")
    p.add_argument("--no-gc-tuning", action="store_true",
                   help="leave the cyclic collector at its defaults")
    p.add_argument("--lean", action="store_true",
                   help="the arena's bots ask for lean delivery (hello.lean: their events "
                        "ride in their requests, one frame per decision); the round trip is "
                        "then an action to the next request of its match")
    scale = p.add_argument_group(
        "scale runs (issue #22; any of these runs them instead of the levels above, each "
        "server in a process of its own: tools.bench.server_scale)")
    scale.add_argument("--idle", type=non_negative_int, nargs="?", const=20_000, default=0,
                       metavar="N",
                       help="N idle connections to the arena and to a bare websockets server: "
                            "memory per connection (default N 20000)")
    scale.add_argument("--paced", type=positive_int, nargs="?", action="append", const=5_000,
                       default=None, metavar="M",
                       help="M live matches at --rate actions/s each: action round trip "
                            "p50/p99 (repeatable; default M 5000)")
    scale.add_argument("--rate", type=positive_float, default=1.0,
                       help="actions per second per match in --paced (default 1)")
    scale.add_argument("--load-processes", type=positive_int, default=2,
                       help="load-generator processes for --idle and --paced (default 2)")
    scale.add_argument("--slow-reader", type=non_negative_int, nargs="?", const=5, default=0,
                       metavar="K",
                       help="K clients, one after another, that watch matches and never "
                            "read: each dropped, the server's RSS flat (default K 5)")
    scale.add_argument("--slow-matches", type=positive_int, default=100,
                       help="matches playing at once behind --slow-reader (default 100)")
    scale.add_argument("--slow-timeout", type=positive_float, default=60.0,
                       help="seconds a slow reader waits to be dropped (default 60)")
    scale.add_argument("--slow-baseline", type=non_negative_float, default=5.0,
                       help="seconds of the background alone before the slow readers "
                            "(default 5)")
    scale.add_argument("--disconnects", type=non_negative_int, nargs="?", const=100, default=0,
                       metavar="D", help="D matches with one seat cut mid-match, half of "
                                         "them resuming: how each ends (default D 100)")
    scale.add_argument("--grace", type=positive_float, default=3.0,
                       help="the server's disconnect grace in --disconnects (default 3 s)")
    nodes = p.add_argument_group(
        "nodes (issue #23)", "server CPU per action with N nodes over PostgreSQL and Redis "
        "(tools/bench/server_nodes.py)")
    nodes.add_argument("--nodes", type=positive_int, action="append", default=None,
                       metavar="N", help="measure N nodes (repeat: --nodes 1 --nodes 3)")
    nodes.add_argument("--db", help="nodes: PostgreSQL URL (default: a throw-away server)")
    nodes.add_argument("--redis", help="nodes: Redis URL (default: a throw-away server)")
    nodes.add_argument("--node-matches", type=positive_int, default=120,
                       help="nodes: live matches in all, split over the nodes (default 120)")
    nodes.add_argument("--per-node", action="store_true",
                       help="nodes: --node-matches is per node (N nodes play N times as many): "
                            "each node carries the same load whatever N")
    nodes.add_argument("--node-pace", type=non_negative_float, default=0.0, metavar="R",
                       help="nodes: each match makes about R actions per second (default 0: "
                            "as fast as the clients can); with --per-node, every node sees "
                            "the same rate of actions, so CPU per action compares nodes at "
                            "equal load on a machine with fewer cores than nodes and load "
                            "generators")
    add_common(p, repeat=3, seconds=3.0)


DEFAULT_MATCHES = (1, 10, 100, 500)
RUN_TIMEOUT_S = 180.0
"""A load generator that has not finished by then (set-up included) is killed."""


async def one_run(url: str, game: str, seats: int, matches: int, encoding: str,
                  seconds: float, warmup: float, mode: str = "arena", pace: float = 0.0,
                  spread: bool = False, stalls: Stalls | None = None,
                  lean: bool = False) -> dict[str, Any]:
    """One load generator's run against ``url``; with ``stalls`` (the server runs in this
    process), also this process's stalls over the counted window (``server_stalls``);
    ``lean``: its bots ask for lean delivery."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.bench.server_load", url, "--game", game,
        "--seats", str(seats), "--matches", str(matches), "--encoding", encoding,
        "--seconds", str(seconds), "--warmup", str(max(warmup, 0.3)), "--mode", mode,
        "--pace", str(pace), *(["--spread"] if spread else []), *(["--lean"] if lean else []),
        stdout=asyncio.subprocess.PIPE)
    assert process.stdout is not None
    lines: list[str] = []
    window = [0.0, 0.0]  # this process's CPU time at the "counting" and "counted" markers
    try:
        async with asyncio.timeout(RUN_TIMEOUT_S + seconds):
            async for raw in process.stdout:
                line = raw.decode().strip()
                if line == "counting":
                    window[0] = time.process_time()
                    if stalls is not None:
                        stalls.start()
                elif line == "counted":
                    window[1] = time.process_time()
                    if stalls is not None:
                        stalls.stop()
                elif line:
                    lines.append(line)
            await process.wait()
    except TimeoutError:
        process.kill()
        await process.wait()
        raise RuntimeError(f"load generator ({mode}, {matches} matches) timed out") from None
    if process.returncode != 0 or not lines:
        raise RuntimeError(f"load generator failed ({process.returncode})")
    run = dict(json.loads(lines[-1]))
    # CPU of this process (server or yardstick, and the bench's own idle loop) per unit,
    # over exactly the counted window.
    run["window_cpu_us"] = (window[1] - window[0]) * 1e6 / max(1, run["actions"])
    if stalls is not None:
        run["server_stalls"] = stalls.report()
    return run


async def end_leftovers(server: ArenaServer) -> None:
    """End (void) the matches a finished run left live: its clients are gone, and each would
    otherwise forfeit at the end of its grace period, all at once, in the middle of a later
    run (of this server or of a yardstick in this process)."""
    for live in list(server.live.values()):
        live.abort("bench", "the run is over")
    await asyncio.to_thread(server.store.flush)


def ratio(a: float, b: float) -> float | None:
    return a / b if b > 0 and a == a and b == b else None  # a == a: not NaN


async def measured_runs(args: argparse.Namespace, url: str, seats: int, matches: int,
                        encoding: str, mode: str, label: str = "",
                        server: ArenaServer | None = None,
                        lean: bool = False) -> list[dict[str, Any]]:
    """``--repeat`` runs of one configuration, each with this process's CPU per unit
    (``label`` names the server in the progress lines; default: the mode). ``server``: the
    arena at ``url``, whose left-over matches end after each run. ``lean``: the bots ask for
    lean delivery."""
    runs = []
    for n in range(args.repeat):
        cpu = time.process_time()
        run = await one_run(url, args.game, seats, matches, encoding, args.seconds,
                            args.warmup, mode, lean=lean)
        if server is not None:
            await end_leftovers(server)
        # This process's CPU (all its threads) over the whole run, warm-up and set-up
        # included, per action counted: an upper bound that does not depend on how busy
        # the machine's other processes are.
        run["server_cpu_us"] = ((time.process_time() - cpu) * 1e6 / max(1, run["actions"]))
        runs.append(run)
        stderr_progress(
            f"{label or mode} {encoding} x{matches}: run {n + 1}/{args.repeat}: "
            f"{run['actions'] / run['elapsed']:,.0f} /s, "
            f"p50 {run['latency_ms']['p50']:.3f} ms, "
            f"p99 {run['latency_ms']['p99']:.3f} ms, "
            f"CPU {run['window_cpu_us']:.0f} µs/unit (whole run {run['server_cpu_us']:.0f}), "
            f"errors {run['errors']}")
    return runs


def per_second(runs: list[dict[str, Any]], key: str = "actions") -> tuple[float, ...]:
    """Each run's ``key`` count (actions, or matches) per second."""
    return tuple(r[key] / r["elapsed"] for r in runs)


def summary(name: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median rate and median p50/p99 over runs; the latency percentiles of the median run."""
    rates = list(per_second(runs))
    median_run = runs[rates.index(statistics.median_low(rates))]
    return {"name": name, "rate": statistics.median(rates), **median_run["latency_ms"],
            "p50_median": statistics.median(r["latency_ms"]["p50"] for r in runs),
            "p99_median": statistics.median(r["latency_ms"]["p99"] for r in runs),
            "samples": median_run["samples"],
            "server_cpu_us": statistics.median(r["server_cpu_us"] for r in runs),
            "window_cpu_us": statistics.median(r["window_cpu_us"] for r in runs),
            "client_cpu_us": statistics.median(r.get("client_cpu_us", float("nan"))
                                               for r in runs),
            "errors": sum(r["errors"] for r in runs)}


async def bench(args: argparse.Namespace
                ) -> tuple[list[Result], list[dict[str, Any]], list[dict[str, Any]]]:
    """Results (rates), round-trip rows, and one ratio row per encoding and level."""
    game = registry.get(args.game)
    seats = game.info.min_seats
    results: list[Result] = []
    latencies: list[dict[str, Any]] = []
    ratios: list[dict[str, Any]] = []
    levels = args.matches or list(DEFAULT_MATCHES)
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "bench.sqlite3")
        server = ArenaServer(store, limits=LOAD_LIMITS)
        await server.start("127.0.0.1", 0)
        echo, echo_url = await start_echo()
        relay, relay_url = await start_relay()
        shaped, shaped_url = await start_shaped(game)
        if not args.no_gc_tuning:
            tune_gc()
        try:
            for encoding in args.encoding or ["json"]:
                for matches in levels:
                    # The floor: the same per-action work with as many live matches, without
                    # sockets, event loop or store. (Interleaved matches start spread over a
                    # match's length: that set-up is their warm-up.)
                    path = measure(game_path.workload(game, encoding, matches), args.repeat,
                                   min(args.seconds, 2.0), 0.2 if matches == 1 else 0.0,
                                   stderr_progress)
                    results.append(path)
                    path_us = 1e6 / path.median if path.median > 0 else float("nan")
                    settings = {"game": args.game, "encoding": encoding, "matches": matches,
                                **({"lean": True} if args.lean else {})}
                    name = f"{args.game} {encoding}{' lean' if args.lean else ''}, " \
                           f"{matches} matches"
                    runs = await measured_runs(args, server.ws_url, seats, matches, encoding,
                                               "arena", "arena lean" if args.lean else "",
                                               server=server, lean=args.lean)
                    results.append(Result(f"{name}: actions", "actions/s", per_second(runs),
                                          settings))
                    results.append(Result(f"{name}: matches", "matches/s",
                                          per_second(runs, "matches"), settings))
                    row = summary(name, runs)
                    latencies.append(row)
                    if args.no_baselines:
                        continue
                    echo_runs = await measured_runs(args, echo_url, 1, matches, encoding,
                                                    "echo")
                    relay_runs = await measured_runs(args, relay_url, 2, matches, encoding,
                                                     "relay")
                    shaped_runs = await measured_runs(args, shaped_url, seats, matches,
                                                      encoding, "arena", "shaped relay")
                    base = {**settings, "baseline": True}
                    results.append(Result(f"echo {encoding}, {matches} clients: round trips",
                                          "round trips/s", per_second(echo_runs), base))
                    results.append(Result(f"relay {encoding}, {matches} pairs: moves",
                                          "moves/s", per_second(relay_runs), base))
                    results.append(Result(f"shaped relay {encoding}, {matches} matches: actions",
                                          "actions/s", per_second(shaped_runs), base))
                    echo_row = summary(f"echo {encoding}, {matches} clients", echo_runs)
                    relay_row = summary(f"relay {encoding}, {matches} pairs", relay_runs)
                    shaped_row = summary(f"shaped relay {encoding}, {matches} matches",
                                         shaped_runs)
                    latencies.extend([echo_row, relay_row, shaped_row])
                    ratios.append({
                        "encoding": encoding, "matches": matches,
                        "server_p50_ms": row["p50_median"], "echo_p50_ms": echo_row["p50_median"],
                        "server_p99_ms": row["p99_median"], "echo_p99_ms": echo_row["p99_median"],
                        "p50_vs_echo": ratio(row["p50_median"], echo_row["p50_median"]),
                        "p99_vs_echo": ratio(row["p99_median"], echo_row["p99_median"]),
                        "server_actions_per_s": row["rate"],
                        "relay_moves_per_s": relay_row["rate"],
                        "rate_vs_relay": ratio(row["rate"], relay_row["rate"]),
                        "shaped_actions_per_s": shaped_row["rate"],
                        "shaped_vs_relay": ratio(shaped_row["rate"], relay_row["rate"]),
                        "rate_vs_shaped": ratio(row["rate"], shaped_row["rate"]),
                        "shaped_cpu_us_per_action": shaped_row["window_cpu_us"],
                        "shaped_client_cpu_us_per_action": shaped_row["client_cpu_us"],
                        "server_cpu_us_per_action": row["window_cpu_us"],
                        "relay_cpu_us_per_move": relay_row["window_cpu_us"],
                        "echo_cpu_us_per_round_trip": echo_row["window_cpu_us"],
                        "game_path_us_per_action": path_us,
                        "client_cpu_us_per_action": row["client_cpu_us"],
                        "relay_client_cpu_us_per_move": relay_row["client_cpu_us"],
                        "cpu_vs_relay": ratio(row["window_cpu_us"],
                                              relay_row["window_cpu_us"])})
        finally:
            for yardstick in (echo, relay, shaped):
                yardstick.close()
                await yardstick.wait_closed()
            await server.close()
            store.close()
    return results, latencies, ratios


def _fmt_ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


ROUND_TRIP_GOAL = 2.0
"""A round trip's p50 and p99 at most this many times the echo's."""
THROUGHPUT_GOAL = 0.5
"""Actions per second with :data:`THROUGHPUT_MATCHES` matches at least this share of the
relay's moves per second."""
THROUGHPUT_MATCHES = 500


def goal_lines(ratios: list[dict[str, Any]]) -> list[str]:
    """One line per measured level and goal: the ratio against its goal, met or not."""

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    lines = [f"goals: round trip p50 and p99 at most {ROUND_TRIP_GOAL:g}x the echo's; "
             f"actions/s with {THROUGHPUT_MATCHES} matches at least {THROUGHPUT_GOAL:g}x "
             f"the relay's moves/s"]
    for r in ratios:
        label = f"{r['encoding']}, {r['matches']} matches"
        p50, p99 = r["p50_vs_echo"], r["p99_vs_echo"]
        ok = p50 is not None and p99 is not None and max(p50, p99) <= ROUND_TRIP_GOAL
        lines.append(f"  {label}: round trip {verdict(ok)} "
                     f"({_fmt_ratio(p50)} / {_fmt_ratio(p99)})")
        if r["matches"] == THROUGHPUT_MATCHES:
            rate = r["rate_vs_relay"]
            ok = rate is not None and rate >= THROUGHPUT_GOAL
            lines.append(f"  {label}: actions/s {verdict(ok)} ({_fmt_ratio(rate)}; the shaped "
                         f"relay, with no game: {_fmt_ratio(r['shaped_vs_relay'])})")
    return lines


def scale_run(args: argparse.Namespace) -> bool:
    """Whether a scale run (issue #22) was asked for."""
    return bool(args.idle or args.paced or args.slow_reader or args.disconnects)


def run(args: argparse.Namespace) -> int:
    if args.nodes:
        if args.quick:
            args.repeat, args.seconds, args.warmup, args.node_matches = 1, 1.0, 0.3, 4
        from tools.bench import server_nodes
        return server_nodes.run(args)
    if scale_run(args):
        if args.quick:
            args.repeat, args.seconds, args.warmup = 1, 1.0, 0.1
            args.slow_matches, args.slow_timeout, args.slow_baseline = 10, 30.0, 1.0
            args.grace = 1.0
        return server_scale.run(args)
    if args.quick:
        args.matches = args.matches or [1, 2]
        args.encoding = args.encoding or ["json"]
        args.repeat, args.seconds, args.warmup = 1, 0.3, 0.1
    configure_logging("error")
    results, latencies, ratios = asyncio.run(bench(args))
    if args.json:
        print_json("server", results, {"seconds": args.seconds, "repeat": args.repeat,
                                       "gc_tuned": not args.no_gc_tuning,
                                       "round_trip_ms": latencies, "ratios": ratios})
        return 0
    print_table(results)
    print()
    width = max(len(row["name"]) for row in latencies)
    print(f"{'round trip (median run)'.ljust(width)}  {'p50':>8}  {'p90':>8}  "
          f"{'p99':>8}  {'max':>8}  samples  CPU/unit counted  CPU/unit whole run  "
          f"clients' CPU/unit  errors")
    for row in latencies:
        print(f"{row['name'].ljust(width)}  {row['p50']:6.3f}ms  {row['p90']:6.3f}ms  "
              f"{row['p99']:6.3f}ms  {row['max']:6.1f}ms  {row['samples']:7d}  "
              f"{row['window_cpu_us']:13.0f} µs  {row['server_cpu_us']:15.0f} µs  "
              f"{row['client_cpu_us']:14.0f} µs  {row['errors']:6d}")
    if ratios:
        print()
        print("ratios (medians over runs)  p50 server/echo  p99 server/echo  "
              "actions/s server/relay  shaped/relay  server/shaped")
        for r in ratios:
            label = f"{r['encoding']}, {r['matches']} matches"
            print(f"{label:<27}  {_fmt_ratio(r['p50_vs_echo']):>15}  "
                  f"{_fmt_ratio(r['p99_vs_echo']):>15}  {_fmt_ratio(r['rate_vs_relay']):>22}  "
                  f"{_fmt_ratio(r['shaped_vs_relay']):>12}  {_fmt_ratio(r['rate_vs_shaped']):>13}")
        print()
        print("where the time goes, CPU µs per action (counted window; relay: per move)")
        print(f"{'':<27}  {'server':>7}  {'game path':>9}  {'sockets+loop+store':>18}  "
              f"{'shaped':>6}  {'relay':>6}  {'clients':>8}  {'shaped clients':>14}  "
              f"{'relay clients':>13}")
        for r in ratios:
            label = f"{r['encoding']}, {r['matches']} matches"
            server_us, path_us = r["server_cpu_us_per_action"], r["game_path_us_per_action"]
            print(f"{label:<27}  {server_us:7.0f}  {path_us:9.0f}  {server_us - path_us:18.0f}  "
                  f"{r['shaped_cpu_us_per_action']:6.0f}  {r['relay_cpu_us_per_move']:6.0f}  "
                  f"{r['client_cpu_us_per_action']:8.0f}  "
                  f"{r['shaped_client_cpu_us_per_action']:14.0f}  "
                  f"{r['relay_client_cpu_us_per_move']:13.0f}")
        print()
        print("\n".join(goal_lines(ratios)))
    return 0
