"""``arena bench <benchmark>``: benchmarks are programs that print figures.

Each benchmark is one module with ``HELP``, ``add_arguments(parser)`` and ``run(args)`` (see
:mod:`tools.bench`), listed in :data:`BENCHMARKS`; adding one is one line here. A module that
fails to import is reported as unavailable when chosen and does not take the others down.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from engine import registry

# name -> module; every one lives in tools/ (the composition root may import any layer).
BENCHMARKS: dict[str, str] = {
    "engine": "tools.bench.engine",
    "server": "tools.bench.server",
    "flood": "tools.bench.flood",
    "ladder": "tools.bench.ladder",
    "fuzz": "tools.bench.fuzz",
    "strength": "tools.commands.bench_strength",
    "bot": "tools.commands.bench_bot",
    "spy": "tools.bench.spy",
    "order": "tools.commands.bench_order",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    sub.required = True
    for name, module_name in BENCHMARKS.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            q = sub.add_parser(name, help="(unavailable)")
            q.set_defaults(_bench_module=module_name, _bench_error=exc)
            continue
        # argparse %-formats help strings: a literal "95%" must not break `arena bench -h`.
        q = sub.add_parser(name, help=module.HELP.replace("%", "%%"), description=module.__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        q.set_defaults(_bench_module=module_name, _bench_error=None)
        module.add_arguments(q)


def run(args: argparse.Namespace) -> int:
    if args._bench_error is not None:
        print(f"arena bench {args.benchmark}: unavailable ({args._bench_error})",
              file=sys.stderr)
        return 2
    # Every benchmark's --game (one name, or a repeatable list) is checked before anything
    # runs: some run for minutes, or start a server, before they first look a game up.
    chosen = getattr(args, "game", None)
    unknown = [name for name in (chosen if isinstance(chosen, list) else [chosen])
               if name is not None and name not in registry.names()]
    if unknown:
        print(f"arena bench {args.benchmark}: unknown game {', '.join(map(repr, unknown))}; "
              f"available: {', '.join(registry.names())}", file=sys.stderr)
        return 2
    module = importlib.import_module(args._bench_module)
    return int(module.run(args) or 0)
