"""A server in a process of its own, for the scale runs of ``arena bench server``.

    python -m tools.bench.server_host arena --grace 3
    python -m tools.bench.server_host bare

``arena`` starts an :class:`~server.app.ArenaServer` as ``arena serve`` does (a temporary
SQLite file, the collector tamed after start-up); ``bare`` starts the bench's bare
``websockets`` echo (:func:`tools.bench.baselines.start_echo`: the same websockets settings,
compression off). Either prints one JSON line, ``{"url": ..., "pid": ...}``, and serves until
its stdin closes. Its own process, so that its resident memory (``/proc/PID/status``) is the
server's alone and its CPU is not shared with the bench's event loop.

A line ``gc`` on stdin runs a full collection and answers ``gc done``: the memory readings
of the idle run are taken after it, in both servers alike. ``stalls start`` starts recording
the event loop's lag and the collector's pauses (:class:`tools.bench.stalls.Stalls`), and
``stalls`` answers one JSON line with what was recorded since.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import sys
import tempfile
from pathlib import Path

from protocol import Limits
from tools.bench.stalls import Stalls

FD_SPARE = 64
"""File descriptors a process needs besides its connections (stdio, the listening socket,
SQLite, the event loop's own)."""


LOAD_LIMITS = Limits(max_connections_per_address=1 << 20, max_guests=1 << 20,
                     address_rate_per_s=1e9, address_burst=1 << 30,
                     guests_rate_per_s=1e9, guests_burst=1 << 30)
"""The load generators' thousands of guests come from one address: no cap or shared budget
may stop them (these benches measure the server's speed and memory, not its limits;
``arena bench flood`` measures those)."""


def raise_fd_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted + FD_SPARE`` (up to the hard
    limit); the connections it may then hold."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted + FD_SPARE if hard == resource.RLIM_INFINITY else \
        min(hard, wanted + FD_SPARE)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return max(0, soft - FD_SPARE)


def rss_bytes(pid: int) -> int:
    """Resident memory of a process (VmRSS), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


async def serve(kind: str, grace: float, connections: int) -> None:
    raise_fd_limit(connections)
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    with tempfile.TemporaryDirectory() as tmp:
        if kind == "arena":
            from server.app import ArenaServer, tune_gc
            from server.logs import configure_logging
            from server.storage import SqliteStore

            configure_logging("error")
            store = SqliteStore(Path(tmp) / "bench.sqlite3")
            arena = ArenaServer(store, grace_s=grace, limits=LOAD_LIMITS)
            await arena.start("127.0.0.1", 0)
            tune_gc()
            url = arena.ws_url
        else:
            from tools.bench.baselines import start_echo

            bare, url = await start_echo()
        print(json.dumps({"url": url, "pid": os.getpid()}), flush=True)
        try:
            async def read_lines() -> None:
                while line := await reader.readline():
                    await lines.put(line.decode().strip())
                await lines.put("")

            reading = loop.create_task(read_lines())
            stalls = Stalls()
            while command := await lines.get():
                if command == "gc":
                    gc.collect()
                    print("gc done", flush=True)
                elif command == "stalls start":
                    stalls.start()
                    print("stalls started", flush=True)
                elif command == "stalls":
                    print(json.dumps(stalls.report()), flush=True)
            stalls.stop()
            reading.cancel()
        finally:
            if kind == "arena":
                await arena.close()
                store.close()
            else:
                bare.close()
                await bare.wait_closed()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.bench.server_host")
    p.add_argument("kind", choices=("arena", "bare"))
    p.add_argument("--grace", type=float, default=30.0,
                   help="the arena's disconnect grace in seconds (default 30)")
    p.add_argument("--connections", type=int, default=1000,
                   help="connections to make room for (raises the open-file limit)")
    args = p.parse_args(argv)
    asyncio.run(serve(args.kind, args.grace, args.connections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
