"""The scale runs of ``arena bench server`` (issue #22): one machine, many connections.

Each run starts its server in a process of its own (:mod:`tools.bench.server_host`), so that
the server's resident memory and CPU are its own, and drives it with load-generator
processes (:mod:`tools.bench.server_load`):

* ``--idle N``: N connections that said ``hello`` to the arena and then stay idle, and as
  many to a bare ``websockets`` echo (the same websockets settings, compression off) that
  each sent one frame and read it back. The servers' resident memory (VmRSS, after a full
  collection) before and after; the arena's growth per connection ÷ the bare server's
  (goal ≤ 1.5).
* ``--paced M``: M live matches at about ``--rate`` actions per second each (the clients
  wait before each answer), the arena tuned as ``arena serve`` tunes it. The action round
  trip's p50 / p99 over every load-generator process's samples (goal: p99 ≤ 5 ms). The
  clients' own scheduling is inside the round trip.
* ``--slow-reader K``: a background of matches playing at once; K clients, one after the
  other, spectate up to 20 of them and never read. Each must be dropped by the server, and
  the server's RSS, sampled every 0.25 s, must stay flat (start / peak / end, against the
  background alone just before).
* ``--disconnects D``: D matches in which one random seat's connection is aborted mid-match;
  half come back with their session's resume token within the grace (``--grace``), half
  never do. Every match must end by a normal finish or the documented forfeit (0 stuck,
  0 void).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

from tools.bench.server_host import FD_SPARE, rss_bytes
from tools.bench.stalls import describe

IDLE_GOAL = 1.5
"""The arena's memory per idle connection at most this many times the bare server's."""
PACED_P99_GOAL_MS = 5.0
SLOW_READER_FLAT_MIB = 8.0
"""The server's RSS after the slow readers at most this far above where it started."""
START_TIMEOUT_S = 30.0
MIB = 1 << 20


@dataclass
class Host:
    process: asyncio.subprocess.Process
    url: str
    pid: int

    def rss(self) -> int:
        return rss_bytes(self.pid)

    def cpu_s(self) -> float:
        """User and system CPU time of the server process so far."""
        fields = open(f"/proc/{self.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / 100.0  # clock ticks (USER_HZ 100)

    async def command(self, line: str) -> str:
        """Send the server process one command line; its one-line answer."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()
        return (await self.process.stdout.readline()).decode().strip()

    async def collect(self) -> None:
        """A full collection in the server (so both servers are read alike)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(b"gc\n")
        await self.process.stdin.drain()
        await self.process.stdout.readline()

    async def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 15)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


async def start_host(kind: str, connections: int = 1000, grace: float = 30.0) -> Host:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.bench.server_host", kind, "--grace", str(grace),
        "--connections", str(connections),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT_S)
    if not line:
        raise RuntimeError(f"the {kind} server did not start")
    started = json.loads(line)
    return Host(process, started["url"], started["pid"])


async def load_process(url: str, mode: str, count: int, *extra: str
                       ) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.bench.server_load", url, "--mode", mode,
        "--matches", str(count), *extra,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)


async def last_json(process: asyncio.subprocess.Process, timeout: float) -> dict[str, Any]:
    """The JSON object a load generator prints last (killed after ``timeout`` s)."""
    assert process.stdout is not None
    try:
        out, _ = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise RuntimeError("a load generator timed out") from None
    lines = [x for x in out.decode().splitlines() if x.startswith("{")]
    if process.returncode != 0 or not lines:
        raise RuntimeError(f"a load generator failed ({process.returncode})")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def split(total: int, parts: int) -> list[int]:
    parts = max(1, min(parts, total))
    return [total // parts + (n < total % parts) for n in range(parts)]


# ---- idle connections ---------------------------------------------------------------------

def fd_room(wanted: int) -> int:
    """The connections one process may hold here (its hard open-file limit less spares);
    says so when that is less than ``wanted``."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY or hard >= wanted + FD_SPARE:
        return wanted
    room = hard - FD_SPARE
    print(f"note: the hard open-file limit here is {hard} (ulimit -Hn): one server process "
          f"can hold {room} connections, not {wanted}; measuring {room}. Raise it "
          f"(limits.conf, or `ulimit -Hn` as root) to measure {wanted}.", file=sys.stderr)
    return room


async def idle_growth(kind: str, connections: int, processes: int) -> dict[str, Any]:
    """One server of ``kind``: its RSS growth per idle connection."""
    host = await start_host(kind, connections)
    try:
        await host.collect()
        before = host.rss()
        loads = [await load_process(host.url, "idle", n, *(["--bare"] if kind == "bare" else []))
                 for n in split(connections, processes)]
        held = 0
        for load in loads:
            assert load.stdout is not None
            line = await asyncio.wait_for(load.stdout.readline(), 120 + connections / 50)
            held += int(line.split()[1]) if line.startswith(b"idle ") else 0
        await asyncio.sleep(1.0)  # the last handshakes' tasks finish
        await host.collect()
        after = host.rss()
        for load in loads:
            assert load.stdin is not None
            load.stdin.close()
        for load in loads:
            await last_json(load, 60)
    finally:
        await host.stop()
    return {"server": kind, "connections": held, "rss_before": before, "rss_after": after,
            "bytes_per_connection": (after - before) / max(1, held)}


async def idle(args: argparse.Namespace) -> dict[str, Any]:
    connections = fd_room(args.idle)
    runs = []
    for n in range(args.repeat):
        arena = await idle_growth("arena", connections, args.load_processes)
        bare = await idle_growth("bare", connections, args.load_processes)
        ratio = arena["bytes_per_connection"] / max(1.0, bare["bytes_per_connection"])
        progress(f"idle x{connections}: run {n + 1}/{args.repeat}: arena "
                 f"{arena['bytes_per_connection'] / 1024:.1f} KiB/connection "
                 f"({arena['connections']} held), bare "
                 f"{bare['bytes_per_connection'] / 1024:.1f} KiB ({bare['connections']} held), "
                 f"ratio {ratio:.2f}")
        runs.append({"arena": arena, "bare": bare, "ratio": ratio})
    return {"connections": connections, "runs": runs,
            "arena_kib_per_connection": statistics.median(
                r["arena"]["bytes_per_connection"] / 1024 for r in runs),
            "bare_kib_per_connection": statistics.median(
                r["bare"]["bytes_per_connection"] / 1024 for r in runs),
            "ratio": statistics.median(r["ratio"] for r in runs)}


# ---- paced live matches -------------------------------------------------------------------

async def paced_run(matches: int, args: argparse.Namespace) -> dict[str, Any]:
    host = await start_host("arena", matches * 2)
    warmup = max(args.warmup, 2.0 / args.rate)
    try:
        cpu = host.cpu_s()
        started = time.perf_counter()
        loads = [await load_process(host.url, "arena", n, "--pace", str(args.rate), "--samples",
                                    "--seconds", str(args.seconds), "--warmup", str(warmup),
                                    "--game", args.game)
                 for n in split(matches, args.load_processes)]
        for load in loads:  # every match under way and warmed up: the counted window opens
            assert load.stdout is not None
            await asyncio.wait_for(load.stdout.readline(), 180 + matches / 20)
        await host.command("stalls start")
        for load in loads:  # the counted window closes (before the clients hang up)
            assert load.stdout is not None
            while (await asyncio.wait_for(load.stdout.readline(), 60 + args.seconds)
                   ).strip() not in (b"counted", b""):
                pass
        server_stalls = json.loads(await host.command("stalls"))
        results = [await last_json(load, 180 + matches / 20 + args.seconds) for load in loads]
        cpu = host.cpu_s() - cpu
        wall = time.perf_counter() - started
        rss = host.rss()
    finally:
        await host.stop()
    samples = sorted(x for r in results for x in r["latencies_ms"])

    def pct(p: float) -> float:
        return samples[min(len(samples) - 1, int(p * len(samples)))] if samples else float("nan")

    actions = sum(r["actions"] for r in results)
    elapsed = statistics.median(r["elapsed"] for r in results)
    return {"matches": matches, "rate": args.rate, "actions_per_s": actions / elapsed,
            "p50_ms": pct(0.5), "p90_ms": pct(0.9), "p99_ms": pct(0.99), "max_ms": pct(1.0),
            "samples": len(samples), "errors": sum(r["errors"] for r in results),
            # The server's share of a core over the whole run (set-up included), and the
            # load generators' CPU per action in their counted windows.
            "server_core_share": cpu / wall, "server_rss_mib": rss / MIB,
            "client_cpu_us": statistics.median(r["client_cpu_us"] for r in results),
            # Where a tail comes from: the server's event-loop lag and collector pauses in
            # the counted window, and the worst load generator's.
            "server_stalls": server_stalls,
            "client_loop_lag_p99_ms": max(r["stalls"]["loop_lag_ms"]["p99"] for r in results),
            "client_gc_max_ms": max(max(g["max_ms"] for g in r["stalls"]["gc"].values())
                                    for r in results)}


def stall_line(run: dict[str, Any]) -> str:
    """Where the tail comes from, in one line: the server's stalls and the clients'."""
    return (f"server {describe(run['server_stalls'])}; clients' loop lag p99 "
            f"{run['client_loop_lag_p99_ms']:.2f} ms, gc max {run['client_gc_max_ms']:.1f} ms")


async def paced(args: argparse.Namespace) -> list[dict[str, Any]]:
    levels = []
    for matches in args.paced:
        runs = []
        for n in range(args.repeat):
            run = await paced_run(matches, args)
            progress(f"paced x{matches} at {args.rate:g}/s: run {n + 1}/{args.repeat}: "
                     f"{run['actions_per_s']:,.0f} actions/s, p50 {run['p50_ms']:.2f} ms, "
                     f"p99 {run['p99_ms']:.2f} ms, server {run['server_core_share']:.0%} of "
                     f"a core, clients {run['client_cpu_us']:.0f} µs/action, "
                     f"errors {run['errors']}; {stall_line(run)}")
            runs.append(run)
        runs.sort(key=lambda r: r["p99_ms"])
        levels.append({**runs[(len(runs) - 1) // 2], "runs": runs})  # the median run by p99
    return levels


# ---- a slow reader ------------------------------------------------------------------------

async def slow_readers(args: argparse.Namespace) -> dict[str, Any]:
    host = await start_host("arena", args.slow_matches * 2 + 100)
    samples: list[tuple[float, int]] = []
    start = time.perf_counter()

    async def sample() -> None:
        while True:
            samples.append((time.perf_counter() - start, host.rss()))
            await asyncio.sleep(0.25)

    background = await load_process(host.url, "arena", args.slow_matches, "--seconds", "3600",
                                    "--game", args.game)
    sampler = asyncio.get_running_loop().create_task(sample())
    drops: list[float | None] = []
    try:
        assert background.stdout is not None
        await asyncio.wait_for(background.stdout.readline(), 120)  # "counting": all playing
        await asyncio.sleep(args.slow_baseline)  # the background alone
        alone_end = len(samples)
        for n in range(args.slow_reader):
            result = await last_json(await load_process(
                host.url, "slow", 20, "--seconds", str(args.slow_timeout)),
                args.slow_timeout + 60)
            drops.append(result["dropped_after_s"])
            progress(f"slow reader {n + 1}/{args.slow_reader}: watched {result['watched']}, "
                     + ("NOT dropped" if result["dropped_after_s"] is None else
                        f"dropped after {result['dropped_after_s']:.1f} s")
                     + f"; server RSS {host.rss() / MIB:.1f} MiB")
        await asyncio.sleep(1.0)
    finally:
        sampler.cancel()
        background.kill()
        await background.wait()
        await host.stop()
    alone = [rss for _, rss in samples[:alone_end]] or [0]
    slow = [rss for _, rss in samples[alone_end:]] or [0]
    return {"readers": args.slow_reader, "dropped": sum(d is not None for d in drops),
            "drop_after_s": drops,
            "alone_mib": {"start": alone[0] / MIB, "peak": max(alone) / MIB,
                          "end": alone[-1] / MIB},
            "slow_mib": {"start": slow[0] / MIB, "peak": max(slow) / MIB, "end": slow[-1] / MIB}}


# ---- random disconnects -------------------------------------------------------------------

async def disconnects(args: argparse.Namespace) -> dict[str, Any]:
    host = await start_host("arena", args.disconnects * 2 + 100, args.grace)
    try:
        load = await load_process(host.url, "disconnect", args.disconnects,
                                  "--grace", str(args.grace), "--seconds", "30")
        result = await last_json(load, args.grace + 120 + args.disconnects)
    finally:
        await host.stop()
    return result


# ---- the whole --------------------------------------------------------------------------

def progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if args.idle:
        out["idle"] = await idle(args)
    if args.paced:
        out["paced"] = await paced(args)
    if args.slow_reader:
        out["slow_reader"] = await slow_readers(args)
    if args.disconnects:
        out["disconnects"] = await disconnects(args)
    return out


def goal_lines(out: dict[str, Any]) -> list[str]:
    lines = ["goals (issue #22, scale on one machine):"]
    if "idle" in out:
        r = out["idle"]
        lines.append(f"  {r['connections']} idle connections: {r['arena_kib_per_connection']:.1f} "
                     f"KiB each against the bare websockets' {r['bare_kib_per_connection']:.1f}: "
                     f"{verdict(r['ratio'] <= IDLE_GOAL)} ({r['ratio']:.2f}x; "
                     f"goal <= {IDLE_GOAL:g}x)")
    for r in out.get("paced", []):
        lines.append(f"  {r['matches']} live matches at ~{r['rate']:g} action/s each "
                     f"({r['actions_per_s']:,.0f} actions/s): p99 {r['p99_ms']:.2f} ms "
                     f"{verdict(r['p99_ms'] <= PACED_P99_GOAL_MS)} (goal <= "
                     f"{PACED_P99_GOAL_MS:g} ms; p50 {r['p50_ms']:.2f} ms)")
    if "slow_reader" in out:
        r = out["slow_reader"]
        growth = r["slow_mib"]["end"] - r["slow_mib"]["start"]
        ok = r["dropped"] == r["readers"] and growth <= SLOW_READER_FLAT_MIB
        lines.append(f"  slow readers: {r['dropped']}/{r['readers']} dropped; server RSS "
                     f"{r['slow_mib']['start']:.1f} -> peak {r['slow_mib']['peak']:.1f} -> "
                     f"{r['slow_mib']['end']:.1f} MiB (the background alone: "
                     f"{r['alone_mib']['start']:.1f} -> {r['alone_mib']['peak']:.1f} -> "
                     f"{r['alone_mib']['end']:.1f}): {verdict(ok)} (goal: every one dropped, "
                     f"end <= start + {SLOW_READER_FLAT_MIB:g} MiB)")
    if "disconnects" in out:
        r = out["disconnects"]
        ended = r["finished_after_resume"] + r["forfeits"]
        ok = r["stuck"] == 0 and r["void"] == 0 and ended == r["cut"]
        lines.append(f"  {r['matches']} matches, {r['cut']} cut mid-match "
                     f"({r['cut_came_back']} came back, {r['cut_never_back']} never did): "
                     f"{r['finished_after_resume']} finished after resuming, {r['forfeits']} "
                     f"forfeited, {r['stuck']} stuck, {r['void']} void: {verdict(ok)}")
    return lines


def run(args: argparse.Namespace) -> int:
    out = asyncio.run(bench(args))
    if args.json:
        print(json.dumps({"benchmark": "server scale", "results": out}, indent=2))
    else:
        print("\n".join(goal_lines(out)))
    return 0
