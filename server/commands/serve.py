"""``arena serve``: the websocket server alone (``arena run`` adds house bots).

    arena serve [--host 127.0.0.1] [--port 8765] [--db arena.sqlite3 | postgresql://…]
                [--log-level info] [--grace 30] [--limit NAME=VALUE ...]
                [--redis URL [--nodes N | --reuse-port --node-id ID]]

``--db`` is an SQLite file, or a PostgreSQL database as a URL
(``postgresql://user[:password]@host[:port]/database``, or ``postgres://…``), which several
servers may share (:func:`server.storage.open_store` picks the backend).

With ``--redis`` the server is a node of a cluster (see :mod:`server.commands.nodes`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from server.app import ArenaServer, tune_gc
from server.cluster import ClusterConfig
from server.commands import nodes
from server.commands.arguments import limit, limits, non_negative_float, port
from server.logs import LEVELS, configure_logging
from server.storage import StoreError, open_store

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_DB = "arena.sqlite3"
DB_HELP = (f"where accounts, matches and the ladder are kept: an SQLite file (default "
           f"{DEFAULT_DB}) or a PostgreSQL URL, postgresql://user[:password]@host[:port]/db")
"""``--db`` of the commands that open it with :func:`server.storage.open_store`."""


def add_server_arguments(p: argparse.ArgumentParser, *,
                         db_help: str = f"SQLite file (default {DEFAULT_DB})") -> None:
    """The options every command that runs a server takes; ``db_help``: what its ``--db``
    accepts (:data:`DB_HELP` where the command opens it with ``open_store``)."""
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address (default {DEFAULT_HOST})")
    p.add_argument("--port", type=port, default=DEFAULT_PORT,
                   help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--db", default=DEFAULT_DB, help=db_help)
    p.add_argument("--log-level", default="info", choices=LEVELS)
    p.add_argument("--grace", type=non_negative_float, default=30.0,
                   help="seconds a disconnected seat may take to come back (default 30)")
    p.add_argument("--limit", type=limit, action="append", metavar="NAME=VALUE",
                   help="change one of the server's limits (PROTOCOL.md section 8), e.g. "
                        "--limit max_guests=4096 --limit rate_per_s=100; repeatable")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_server_arguments(p, db_help=DB_HELP)
    nodes.add_cluster_arguments(p)


async def wait_for_stop_signal() -> None:
    """Return on SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()


async def serve_until_stopped(args: argparse.Namespace) -> int:
    store = open_store(args.db)
    redis = getattr(args, "redis", None)
    cluster = None if not redis else ClusterConfig(
        redis, node_id=args.node_id, prefix=args.cluster_prefix,
        pairing=args.cluster_pairing)
    server = ArenaServer(store, grace_s=args.grace, limits=limits(args.limit),
                         cluster=cluster)
    try:
        await server.start(args.host, args.port,
                           reuse_port=bool(getattr(args, "reuse_port", False)))
        tune_gc()
        print(f"Tabletop Arena serving on {server.http_url} — {server.ws_url}", flush=True)
        await wait_for_stop_signal()
    finally:
        await server.close()
        store.close()
    return 0


def run(args: argparse.Namespace) -> int:
    if getattr(args, "redis", None) is not None or getattr(args, "nodes", 1) > 1:
        problem = nodes.cluster_problem(args)
        if problem is not None:
            print(f"arena serve: error: {problem}", file=sys.stderr)
            return 2
        if args.nodes > 1:
            return nodes.supervise(args)
    configure_logging(args.log_level)
    try:
        return asyncio.run(serve_until_stopped(args))
    except (OSError, StoreError) as exc:
        print(f"arena serve: {exc}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    """``python -m server.commands.serve``: ``arena serve`` without the ``arena`` program
    (how ``arena serve --nodes N`` starts each node)."""
    parser = argparse.ArgumentParser(prog="arena serve", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
