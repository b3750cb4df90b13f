"""``arena serve --nodes N``: N server processes on one port, over PostgreSQL and Redis.

    arena serve --nodes 4 --port 8765 --db postgresql://arena@127.0.0.1/arena \\
                --redis redis://127.0.0.1:6379/0

Each node is an ordinary ``arena serve`` process with ``--redis`` and ``--reuse-port``: the
kernel spreads new connections over the nodes listening on the port (SO_REUSEPORT), and the
nodes coordinate through Redis (:mod:`server.cluster`). This command is their supervisor: it
starts them, passes SIGINT/SIGTERM on to them, and starts a new node in place of one that
dies (its matches are taken over by the others meanwhile). An operator may as well start
the nodes one by one, on one machine or several (``arena serve --redis … --reuse-port``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time

from server.commands.arguments import positive_int

RESTART_DELAY_S = 1.0


def add_cluster_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--redis", metavar="URL",
                   help="run as a node of a cluster coordinated through this Redis "
                        "(redis://HOST:PORT/DB); needs a postgresql:// --db")
    p.add_argument("--node-id", help="this node's name in the cluster (default: host, pid "
                                     "and a random suffix)")
    p.add_argument("--cluster-prefix", default="arena:",
                   help="prefix of the cluster's Redis keys (default arena:)")
    p.add_argument("--cluster-pairing", choices=("local", "spread"), default="local",
                   help="seeks pair with seekers on the same node first (local, the default) "
                        "or on other nodes first (spread: to test cross-node matches)")
    p.add_argument("--reuse-port", action="store_true",
                   help="share the port with other processes (SO_REUSEPORT)")
    p.add_argument("--nodes", type=positive_int, default=1,
                   help="run N nodes on this port, one process each (needs --redis and a "
                        "postgresql:// --db; default 1)")


def cluster_problem(args: argparse.Namespace) -> str | None:
    """Why these options cannot make a cluster (``None``: they can)."""
    postgres = str(args.db).startswith(("postgresql://", "postgres://"))
    if args.nodes > 1 and not args.redis:
        return "--nodes needs --redis URL (the nodes coordinate through it)"
    if not postgres:
        return "the nodes of a cluster share their matches through PostgreSQL: " \
               "give --db postgresql://…"
    return None


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def node_command(args: argparse.Namespace, port: int, node_id: str) -> list[str]:
    command = [sys.executable, "-m", "server.commands.serve", "--host", args.host,
               "--port", str(port), "--db", args.db, "--redis", args.redis,
               "--cluster-prefix", args.cluster_prefix, "--reuse-port",
               "--cluster-pairing", args.cluster_pairing,
               "--node-id", node_id, "--log-level", args.log_level, "--grace", str(args.grace)]
    for name, value in args.limit or []:
        command += ["--limit", f"{name}={value}"]
    return command


def supervise(args: argparse.Namespace) -> int:
    """Run ``args.nodes`` node processes until SIGINT/SIGTERM; replace any that dies."""
    port = args.port or free_port(args.host)
    base = args.node_id or f"{socket.gethostname()}-{os.getpid()}"
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    generation = [0] * args.nodes
    procs: list[subprocess.Popen[bytes]] = []

    def launch(i: int) -> subprocess.Popen[bytes]:
        node_id = f"{base}-{i}" + (f".{generation[i]}" if generation[i] else "")
        return subprocess.Popen(node_command(args, port, node_id), start_new_session=True)

    procs = [launch(i) for i in range(args.nodes)]
    print(f"arena serve: {args.nodes} nodes on ws://{args.host}:{port}/ws "
          f"(pids {' '.join(str(p.pid) for p in procs)})", flush=True)
    try:
        while not stopping:
            time.sleep(0.2)
            for i, proc in enumerate(procs):
                code = proc.poll()
                if code is not None and not stopping:
                    print(f"arena serve: node {i} (pid {proc.pid}) exited with {code}; "
                          f"starting a new one in {RESTART_DELAY_S:g} s", file=sys.stderr,
                          flush=True)
                    time.sleep(RESTART_DELAY_S)
                    generation[i] += 1
                    procs[i] = launch(i)
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for proc in procs:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
    return 0
