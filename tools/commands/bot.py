"""``arena bot NAME``: connect a bot to a server and play.

::

    ARENA_TOKEN=TOKEN arena bot random --game battleline --server ws://127.0.0.1:8765/ws
    arena bot random --games battleline,chexers --encoding msgpack --max-matches 4 --seek
    arena bot deep-barca --ladder battleline --version 2 --seed-from 1 --token-file bot.token
    arena bot barca --game barca --option time_budget_s=2 --weights tuned --token TOKEN

The account's token comes from ``--token``, ``--token-file`` (a file only its owner may read:
mode 0600 or stricter) or the environment variable ``ARENA_TOKEN``, in that order; without
one the bot plays as a guest (guests may seek but not autoplay). ``--token`` works, but a
command line is visible to every local user (``ps``, ``/proc/PID/cmdline``): prefer the
environment or a file on a shared machine.

NAME is a registered bot (``bots.registry.names()``) or ``module:attribute``;
``--option KEY=VALUE`` (repeatable) passes a keyword argument to its factory, ``--weights``
names the weights of a bot that takes them (a bad one is reported, not guessed at). The bot is
offered for autoplay (the server seats it) unless ``--seek`` is given. Logs are structlog
JSON lines on stderr, one per event (connected, match_start, match_end, errors, …).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import stat
import sys

from websockets.exceptions import InvalidHandshake

from bots import registry as bots
from clients.connection import DEFAULT_RECONNECT, NO_RECONNECT, ArenaError
from clients.runner import BotRunner
from server.commands.arguments import json_object, non_negative_int, positive_int
from server.logs import configure_logging
from tools.commands.bot_options import parse_options

TOKEN_ENV = "ARENA_TOKEN"
"""The environment variable a bot's account token may come in (``arena run`` uses it)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help=f"bot name ({', '.join(bots.names())}) or module:attribute")
    p.add_argument("--server", default="ws://127.0.0.1:8765/ws", help="websocket URL")
    p.add_argument("--token", default=None,
                   help="the bot account's bearer token (visible to other local users in "
                        f"the process list: prefer --token-file or {TOKEN_ENV})")
    p.add_argument("--token-file", default=None, metavar="FILE",
                   help="read the token from FILE (mode 0600: only its owner may read it)")
    p.add_argument("--game", default=None, help="one game to play")
    p.add_argument("--games", default=None, help="comma-separated games to play")
    p.add_argument("--encoding", choices=("json", "msgpack"), default="json")
    p.add_argument("--max-matches", type=positive_int, default=1,
                   help="matches at once (default 1)")
    p.add_argument("--matches", type=positive_int, default=None,
                   help="stop after this many finished matches (default: run forever)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--autoplay", dest="mode", action="store_const", const="autoplay",
                     help="let the server seat the bot (default)")
    how.add_argument("--seek", dest="mode", action="store_const", const="seek",
                     help="seek matches instead")
    how.add_argument("--ladder", metavar="GAME[,GAME]", default=None,
                     help="join these games' ladders (rated matches; needs --token)")
    p.add_argument("--ladder-matches", type=non_negative_int, default=0, metavar="N",
                   help="autoplay: also join the ladders of the games played, N ladder "
                        "matches at once (default 0: no)")
    p.add_argument("--version", default="1",
                   help="the bot's version on the ladder and in list_bots (default 1)")
    p.add_argument("--seed-from", default=None, metavar="VERSION",
                   help="ladder: a new version starts from this version's rating")
    p.add_argument("--bot-name", default=None,
                   help="the bot's name on the leaderboard and in list_bots (default: NAME)")
    p.set_defaults(mode="autoplay")
    p.add_argument("--seats", type=positive_int, default=None, help="seats per sought match")
    p.add_argument("--clock", type=json_object, default=None,
                   help='seek clock as JSON, e.g. \'{"initial_ms":60000,"increment_ms":1000}\'')
    p.add_argument("--options", type=json_object, default=None,
                   help="seek options as a JSON object")
    p.add_argument("--seed", type=int, default=None, help="the bot's seed")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a constructor option of the bot, value read as JSON when it parses "
                        "(repeatable), e.g. --option depth=2 --option time_budget_s=1.5")
    p.add_argument("--weights", default=None, metavar="NAME|FILE",
                   help="weights for a bot that takes them (barca: a shipped name such as "
                        "tuned or start, or a file written by `arena tune barca`)")
    p.add_argument("--name-as", dest="display_name", default=None,
                   help="guest display name (without --token)")
    p.add_argument("--no-reconnect", action="store_true", help="stop when the connection drops")
    p.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))


def games_of(args: argparse.Namespace) -> list[str]:
    games = [g for g in (args.games or "").split(",") if g]
    if args.game:
        games.insert(0, args.game)
    return games


def token_of(args: argparse.Namespace) -> str | None:
    """The account token: ``--token``, else ``--token-file``, else ``$ARENA_TOKEN`` (taken out
    of the environment, so that nothing this process starts inherits it). Raises
    ``SystemExit`` for a token file others may read or that cannot be read."""
    from_env = os.environ.pop(TOKEN_ENV, None)
    if args.token:
        return str(args.token)
    if args.token_file:
        try:
            mode = os.stat(args.token_file).st_mode
            if mode & (stat.S_IRWXG | stat.S_IRWXO):
                raise SystemExit(f"arena bot: {args.token_file} may be read by others "
                                 f"(mode {stat.S_IMODE(mode):o}): chmod 600 it")
            with open(args.token_file, encoding="utf-8") as f:
                return f.read().strip() or None
        except OSError as exc:
            raise SystemExit(f"arena bot: cannot read the token file: {exc}") from None
    return from_env or None


def run(args: argparse.Namespace) -> int:
    configure_logging(args.log_level)  # the server's set-up: JSON lines on stderr
    token = token_of(args)
    if args.ladder:
        args.mode = "ladder"
        args.games = ",".join(filter(None, [args.games, args.ladder]))
    games = games_of(args)
    if not games:
        print("arena bot: name at least one game with --game or --games", file=sys.stderr)
        return 2
    try:
        options = parse_options(args.option)
        if args.weights is not None:
            options["weights"] = args.weights
        # One game named: a bot name may mean that game's own bot (Battle Line's greedy).
        bot = bots.create(args.name, seed=args.seed,
                          game=games[0] if len(games) == 1 else None, **options)
    except bots.UnknownBot:
        print(f"arena bot: unknown bot {args.name!r}; available: {', '.join(bots.names())}",
              file=sys.stderr)
        return 2
    except TypeError as exc:  # an option the bot's constructor does not take
        print(f"arena bot: {args.name} does not take these options: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # a malformed option, bad weights, a bad depth…
        print(f"arena bot: {exc}", file=sys.stderr)
        return 2
    runner = BotRunner(
        bot, args.server, games=games, token=token,
        name=args.display_name or (None if token else args.name),
        encoding=args.encoding, mode=args.mode, max_matches=args.max_matches,
        matches=args.matches, options=args.options,
        clock=args.clock, seats=args.seats, seed=args.seed,
        reconnect=NO_RECONNECT if args.no_reconnect else DEFAULT_RECONNECT,
        ladder_bot=args.bot_name or args.name, ladder_version=args.version,
        seed_from_version=args.seed_from, ladder_matches=args.ladder_matches)
    try:
        stats = asyncio.run(runner.run())
    except ArenaError as exc:
        print(f"arena bot: the server refused: {exc}", file=sys.stderr)
        return 1
    except (OSError, InvalidHandshake, TimeoutError) as exc:
        print(f"arena bot: cannot connect to {args.server}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"matches": stats.matches_finished, "actions": stats.actions,
                      "errors": stats.errors, "ranks": stats.ranks()}))
    return 0
