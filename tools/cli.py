"""The ``arena`` program: one entry point, one module per subcommand.

This is the composition root (DESIGN.md): the one place that wires every layer together.
Subcommands that compose layers (``run`` starts house bots, ``bench``, ``check-bot``,
``golden``, ``bot``, ``ladder``, ``tournament``) live in ``tools/commands/``; the server's own
commands, which need nothing but ``server/`` and ``engine/`` (``serve``, ``account``,
``replay``, ``play``), live in ``server/commands/``.

A subcommand module that fails to import is reported as unavailable when chosen; it does not
take the other subcommands down.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("tools.commands.run", "the main job: a server with house bots (make run)"),
    "play": ("server.commands.play", "play one seeded match in-process and print it"),
    "golden": ("tools.commands.golden", "regenerate or check the golden playthroughs"),
    "bench": ("tools.commands.bench",
              "engine,server,flood,ladder,fuzz,spy,strength,bot,order benchmarks"),
    "serve": ("server.commands.serve", "run the websocket server alone"),
    "replay": ("server.commands.replay", "print or export a finished match"),
    "account": ("server.commands.account", "create or list accounts (bearer tokens)"),
    "bot": ("tools.commands.bot", "connect a bot (random, …) to a server and play"),
    "ladder": ("tools.commands.ladder", "the bot ladder: run with house bots, show, rerate"),
    "tournament": ("tools.commands.tournament",
                   "tournaments on a running server: create, join, start, show, list"),
    "tune": ("tools.commands.tune", "tune a bot by self-play (barca: SPSA weights; boundary: "
                                     "the adaptive agent's counter table)"),
    "check-bot": ("tools.commands.check_bot",
                  "run a bot through scripted situations on a local server and report"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena", description="Tabletop Arena: a game server for strategy-game AIs.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:  # pragma: no cover - a subsystem not built yet
            p.set_defaults(_import_error=exc)
            continue
        module.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "_import_error", None) is not None:
        print(f"arena {args.command}: unavailable ({args._import_error})", file=sys.stderr)
        return 2
    module = importlib.import_module(args._module)
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
