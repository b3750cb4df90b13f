r"""``arena check-bot``: run a bot through scripted situations and print what passed.

::

    arena check-bot --game battleline -- node clients/js/examples/random-bot.js
    arena check-bot --game chexers -- \
        arena bot random --game {game} --server {server} --token {token}
    arena check-bot --game boundary -- arena bot adaptive --game {game} \
        --server {server} --token {token}

The command after ``--`` starts the bot. It gets ``ARENA_SERVER`` (websocket URL),
``ARENA_TOKEN`` (a bot account's token) and ``ARENA_GAME`` in its environment, and
``{server}``, ``{token}``, ``{game}`` in its arguments are replaced by the same values. The
bot must connect and offer itself with ``autoplay`` for the game. A local server is started
in-process; nothing else is needed. Exit status 0 only if every check passed (see
:mod:`tools.checkbot` for the checks).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from engine import registry
from server.commands.arguments import non_negative_int, positive_float, positive_int
from server.logs import configure_logging
from tools.checkbot import CheckSettings, check_bot


def add_arguments(p: argparse.ArgumentParser) -> None:
    defaults = CheckSettings()
    p.add_argument("--game", default=defaults.game, help=f"game to check (default "
                                                         f"{defaults.game})")
    p.add_argument("--answer-timeout", type=positive_float, default=defaults.answer_timeout,
                   help="seconds the bot may take per request in untimed checks "
                        f"(default {defaults.answer_timeout:g})")
    p.add_argument("--connect-timeout", type=positive_float, default=defaults.connect_timeout,
                   help=f"seconds to connect and offer autoplay (default "
                        f"{defaults.connect_timeout:g})")
    p.add_argument("--reconnect-timeout", type=positive_float, default=defaults.reconnect_timeout,
                   help=f"seconds to come back after a dropped connection (default "
                        f"{defaults.reconnect_timeout:g})")
    p.add_argument("--low-clock-ms", type=positive_int, default=defaults.low_clock_ms,
                   help=f"time bank in the low-clock match (default {defaults.low_clock_ms})")
    p.add_argument("--low-clock-increment-ms", type=non_negative_int,
                   default=defaults.low_clock_increment_ms,
                   help="increment in the low-clock match (default "
                        f"{defaults.low_clock_increment_ms})")
    p.add_argument("--seed", type=int, default=None, help="seed of the scripted opponents")
    p.add_argument("--workdir", default=None,
                   help="keep the server database and the bot's output in this directory")
    p.add_argument("--log-level", default="error", choices=("debug", "info", "warning",
                                                             "error"),
                   help="server log level (stderr; default error)")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="-- then the command that starts the bot")


def run(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print("arena check-bot: give the bot's command after --, e.g. "
              "arena check-bot --game battleline -- python my_bot.py", file=sys.stderr)
        return 2
    if args.game not in registry.names():
        print(f"arena check-bot: no game {args.game!r}; games: {', '.join(registry.names())}",
              file=sys.stderr)
        return 2
    configure_logging(args.log_level)
    settings = CheckSettings(
        game=args.game, connect_timeout=args.connect_timeout,
        answer_timeout=args.answer_timeout, reconnect_timeout=args.reconnect_timeout,
        low_clock_ms=args.low_clock_ms, low_clock_increment_ms=args.low_clock_increment_ms,
        seed=args.seed)
    workdir = None
    if args.workdir:
        workdir = Path(args.workdir)
        workdir.mkdir(parents=True, exist_ok=True)
    report = asyncio.run(check_bot(command, settings, workdir))
    print(report.text(), flush=True)
    return 0 if report.passed else 1
