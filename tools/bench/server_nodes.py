"""``arena bench server --nodes N …``: server CPU per action with 1, 2, 3… nodes over
PostgreSQL and Redis, for matches whose seats are on one node and on different nodes.

For each ``N`` of ``--nodes`` (a list, run side by side in one invocation) the bench starts
``N`` ``arena serve --redis`` processes (each on its own port, so the bench decides where
each client lands; a deployment shares one port) over one PostgreSQL database and one Redis
(``--db``/``--redis``, or throw-away servers of :mod:`tools.services`), and one load
generator (:mod:`tools.bench.server_load`) per node, ``--matches`` matches split evenly over
them. Two placements:

* **same node**: the nodes pair seeks of their own clients first (``--cluster-pairing
  local``): every match is hosted where both its seats are connected;
* **cross node** (``N`` ≥ 2): the nodes pair seeks with other nodes' first (``spread``):
  every match has a seat whose frames and actions cross Redis.
* **alone**, the yardstick: ``N`` independent servers (on the same PostgreSQL database, no
  Redis, no cluster) under the same load, split the same way: what ``N`` busy processes and
  the store cost on this machine by themselves (on 2 cores, ``N`` nodes and ``N`` load
  generators contend for them).

On a machine with a core for each node and load generator, the unpaced run compares the
nodes at full load. With fewer cores (2 here), ``N`` nodes share them, each gets a third of
the load, and CPU per action rises with the smaller batches of a less busy event loop, not
with anything the cluster does: ``--per-node --node-pace R`` gives every node the same load
whatever ``N`` (``--node-matches`` matches each, ``R`` actions per second per match), which
compares the nodes at equal load as long as the machine is not saturated (the bench prints
the total CPU used, so that you can check).

Figures per configuration, medians over ``--repeat`` runs of ``--seconds``: actions/s,
round trip p50/p99 (the load generators' merged samples), and CPU per action over the
counted window — of the nodes summed, and separately of PostgreSQL (the server process and
its backends) and Redis — read from ``/proc/PID/stat``. The ratios the issue asks for are
each configuration's node CPU per action ÷ that of one node.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tools.bench.measure import stderr_progress
from tools.services import PostgresServer, RedisServer, free_port

TICKS = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parents[2]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` (all its threads) so far; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def machine_times() -> tuple[float, float]:
    """(busy, total) jiffies of every core so far, from ``/proc/stat``."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return float(sum(fields) - idle), float(sum(fields))


def children_of(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry.name))
    return out


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def postmaster_of(dsn: str) -> int | None:
    """The pid of the PostgreSQL server behind ``dsn`` if it runs on this machine: the
    parent of a backend (``pg_backend_pid``)."""
    import asyncpg

    async def backend() -> int:
        conn = await asyncpg.connect(dsn)
        try:
            return int(await conn.fetchval("SELECT pg_backend_pid()"))
        finally:
            await conn.close()
    try:
        return parent_of(asyncio.run(backend()))
    except (OSError, ValueError):
        return None


def postgres_pids(postmaster: int | None) -> list[int]:
    """The postmaster and its backends (read at each run: backends come and go)."""
    return [] if postmaster is None else [postmaster, *children_of(postmaster)]


def redis_pids(port: int) -> list[int]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                cmd = (entry / "cmdline").read_bytes()
                if b"redis-server" in cmd and f":{port}".encode() in cmd:
                    return [int(entry.name)]
    return []


LOAD_LIMIT_OPTIONS = [
    option for name, value in (
        ("max_connections_per_address", 1 << 20), ("max_guests", 1 << 20),
        ("address_rate_per_s", 1e9), ("address_burst", 1 << 30),
        ("guests_rate_per_s", 1e9), ("guests_burst", 1 << 30))
    for option in ("--limit", f"{name}={value:g}" if isinstance(value, float)
                   else f"{name}={value}")]
"""The load generators' guests all come from 127.0.0.1: as :data:`LOAD_LIMITS` of
:mod:`tools.bench.server_host`, no cap or shared budget may stop them."""


class Nodes:
    """``count`` node processes, each on its own port."""

    def __init__(self, count: int, dsn: str, redis_url: str, pairing: str, log_dir: Path
                 ) -> None:
        prefix = f"bench{secrets.token_hex(3)}:"
        self.ports = [free_port() for _ in range(count)]
        self.logs = [log_dir / f"node{i}.log" for i in range(count)]
        def cluster(i: int) -> list[str]:
            if pairing == "alone":  # a server of its own: the same database, no Redis
                return ["--db", dsn]
            return ["--db", dsn, "--redis", redis_url, "--cluster-prefix", prefix,
                    "--node-id", f"n{i}", "--cluster-pairing", pairing]

        self.procs = [subprocess.Popen(
            [sys.executable, "-m", "tools.cli", "serve", "--port", str(port), *cluster(i),
             "--log-level", "warning", *LOAD_LIMIT_OPTIONS],
            cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
            for i, (port, log) in enumerate(zip(self.ports, self.logs, strict=True))]

    async def ready(self) -> None:
        for _ in range(600):
            if all("serving on" in log.read_text() for log in self.logs):
                return
            for proc, log in zip(self.procs, self.logs, strict=True):
                if proc.poll() is not None:
                    raise RuntimeError(f"a node exited: {log.read_text()[-2000:]}")
            await asyncio.sleep(0.1)
        raise RuntimeError("the nodes did not start within 60 s")

    def urls(self) -> list[str]:
        return [f"ws://127.0.0.1:{port}/ws" for port in self.ports]

    def stop(self) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()


async def generate(urls: list[str], game: str, matches: int, seconds: float, warmup: float,
                   encoding: str, pids: dict[str, list[int]], pace: float = 0.0
                   ) -> dict[str, Any]:
    """One run: a load generator per node URL (``matches`` split over them; ``pace``: each
    match's actions per second, 0 as fast as it goes); CPU of every process group over the
    first generator's counted window."""
    share = [matches // len(urls) + (1 if i < matches % len(urls) else 0)
             for i in range(len(urls))]
    paced = ["--pace", str(pace)] if pace > 0 else []
    procs = [await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.bench.server_load", url, "--game", game,
        "--matches", str(n), "--seconds", str(seconds), "--warmup", str(max(warmup, 0.5)),
        "--encoding", encoding, "--samples", *paced, stdout=asyncio.subprocess.PIPE,
        limit=1 << 26)  # (one JSON line with every round trip)
        for url, n in zip(urls, share, strict=True) if n > 0]
    before: dict[str, float] = {}
    after: dict[str, float] = {}

    def read() -> dict[str, float]:
        busy, total = machine_times()
        return {"busy": busy, "total": total,
                **{name: sum(cpu_seconds(p) for p in group) for name, group in pids.items()}}

    async def follow(index: int, proc: asyncio.subprocess.Process) -> dict[str, Any]:
        assert proc.stdout is not None
        last = ""
        async for raw in proc.stdout:
            line = raw.decode().strip()
            if index == 0 and line == "counting":
                before.update(read())
            elif index == 0 and line == "counted":
                after.update(read())
            elif line:
                last = line
        await proc.wait()
        if proc.returncode != 0 or not last:
            raise RuntimeError(f"load generator failed ({proc.returncode})")
        return dict(json.loads(last))

    runs = await asyncio.wait_for(
        asyncio.gather(*(follow(i, p) for i, p in enumerate(procs))), 300 + seconds)
    actions = sum(r["actions"] for r in runs)
    samples = sorted(x for r in runs for x in r["latencies_ms"])

    def pct(p: float) -> float:
        return samples[min(len(samples) - 1, int(p * len(samples)))] if samples else \
            float("nan")

    elapsed = statistics.median(r["elapsed"] for r in runs)
    return {"actions": actions, "elapsed": elapsed, "rate": actions / elapsed,
            "p50": pct(0.5), "p99": pct(0.99), "errors": sum(r["errors"] for r in runs),
            "cpu_us": {name: (after[name] - before[name]) * 1e6 / max(1, actions)
                       for name in pids},
            "busy": (after["busy"] - before["busy"]) / max(1.0, after["total"] - before["total"])}


async def bench(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        dsn, redis_url = args.db, args.redis
        if not dsn or not str(dsn).startswith(("postgresql://", "postgres://")):
            stderr_progress("starting a throw-away PostgreSQL (--db postgresql://… to use "
                            "yours)")
            pg = stack.enter_context(PostgresServer())
            dsn = pg.create_database("bench")
        if not redis_url:
            stderr_progress("starting a throw-away Redis (--redis URL to use yours)")
            redis_url = stack.enter_context(RedisServer()).url
        from server.storage.postgres import PostgresStore
        PostgresStore(dsn).close()  # the schema, before several nodes open the database
        postmaster = await asyncio.to_thread(postmaster_of, dsn)
        redis_port = int(redis_url.rsplit(":", 1)[1].split("/", 1)[0])
        log_dir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        for count in args.nodes:
            placements = [("same", "local")]
            if count > 1:
                placements.append(("cross", "spread"))
            placements.append(("alone", "alone"))
            for placement in placements:
                name = (f"{count} server{'s' if count > 1 else ''} alone"
                        if placement[0] == "alone" else
                        f"{count} node{'s' if count > 1 else ''}, {placement[0]} node")
                matches = args.node_matches * (count if args.per_node else 1)
                nodes = Nodes(count, dsn, redis_url, placement[1], log_dir)
                try:
                    await nodes.ready()
                    pids = {"nodes": [p.pid for p in nodes.procs],
                            "postgres": postgres_pids(postmaster),
                            "redis": redis_pids(redis_port)}
                    runs = []
                    for n in range(args.repeat):
                        run = await generate(nodes.urls(), args.game, matches,
                                             args.seconds, args.warmup, "json", pids,
                                             args.node_pace)
                        runs.append(run)
                        stderr_progress(
                            f"{name}: run {n + 1}/{args.repeat}: {run['rate']:,.0f} actions/s,"
                            f" p50 {run['p50']:.2f} ms, p99 {run['p99']:.2f} ms, CPU/action "
                            f"nodes {run['cpu_us']['nodes']:.0f} µs, postgres "
                            f"{run['cpu_us']['postgres']:.0f} µs, redis "
                            f"{run['cpu_us']['redis']:.0f} µs, machine busy "
                            f"{run['busy']:.0%}, errors {run['errors']}")
                        time.sleep(0.5)
                finally:
                    nodes.stop()
                    if os.environ.get("ARENA_BENCH_KEEP_LOGS"):
                        for log in nodes.logs:
                            print(log.read_text()[-20000:], file=sys.stderr)
                rows.append({
                    "name": name, "nodes": count, "placement": placement[0],
                    "matches": matches,
                    "rate": statistics.median(r["rate"] for r in runs),
                    "p50_ms": statistics.median(r["p50"] for r in runs),
                    "p99_ms": statistics.median(r["p99"] for r in runs),
                    **{f"{k}_cpu_us": statistics.median(r["cpu_us"][k] for r in runs)
                       for k in ("nodes", "postgres", "redis")},
                    "busy": statistics.median(r["busy"] for r in runs),
                    "errors": sum(r["errors"] for r in runs)})
    one = next((r["nodes_cpu_us"] for r in rows if r["nodes"] == 1), None)
    alone = {r["nodes"]: r["nodes_cpu_us"] for r in rows if r["placement"] == "alone"}
    for row in rows:
        row["cpu_vs_one_node"] = row["nodes_cpu_us"] / one if one else None
        row["cpu_vs_alone"] = (row["nodes_cpu_us"] / alone[row["nodes"]]
                               if row["nodes"] in alone else None)
    return rows


def run(args: argparse.Namespace) -> int:
    rows = asyncio.run(bench(args))
    if args.json:
        print(json.dumps({"bench": "server --nodes", "seconds": args.seconds,
                          "per_node": args.per_node, "pace": args.node_pace,
                          "repeat": args.repeat, "rows": rows}, indent=2))
        return 0
    print(f"{'configuration':<24} {'actions/s':>10} {'p50':>8} {'p99':>8} "
          f"{'CPU/action: nodes':>17} {'postgres':>9} {'redis':>7} {'÷ 1 node':>8} "
          f"{'÷ alone':>7} {'busy':>5} {'errors':>6}")
    for r in rows:
        ratio = "-" if r["cpu_vs_one_node"] is None else f"{r['cpu_vs_one_node']:.2f}x"
        alone = "-" if r["cpu_vs_alone"] is None else f"{r['cpu_vs_alone']:.2f}x"
        print(f"{r['name']:<24} {r['rate']:>10,.0f} {r['p50_ms']:>6.2f}ms {r['p99_ms']:>6.2f}ms "
              f"{r['nodes_cpu_us']:>14.0f} µs {r['postgres_cpu_us']:>6.0f} µs "
              f"{r['redis_cpu_us']:>4.0f} µs {ratio:>8} {alone:>7} {r['busy']:>5.0%} "
              f"{r['errors']:>6}")
    load = (f"{args.node_matches} matches per node" if args.per_node else
            f"{args.node_matches} matches in all, split over the nodes")
    if args.node_pace > 0:
        load += f", each making about {args.node_pace:g} actions/s"
    print(f"\n{load}; medians of "
          f"{args.repeat} runs of {args.seconds:g} s. Goals (issue #23): 3 nodes ≤ 1.2x one "
          "node's CPU per action for same-node matches, ≤ 1.6x for cross-node.\n'N servers "
          "alone': as many independent servers (the same database, no Redis), the same load "
          "split the same way: what running N processes costs on this machine by itself; "
          "'÷ alone' is what being a cluster adds to that. 'busy': the share of all this "
          "machine's cores in use during the counted window (near 100%: saturated, the "
          "figures then measure contention too).")
    return 0
