"""``arena run``: the main job — the server on SQLite plus house bots, until Ctrl-C.

    arena run [--host 127.0.0.1] [--port 8765] [--db arena.sqlite3] [--log-level info]
              [--house-bots random,random,maxn,…] [--bot-matches 8] [--ladder-matches 2]

What it does: opens the store, starts the websocket server, makes sure every house bot has a
``bot`` account (giving it a fresh token each start: tokens are stored hashed, so an old one
cannot be read back), starts each house bot as a separate client process
(``arena bot NAME --autoplay --games ...``, its token in the environment variable
``ARENA_TOKEN``: a command line is readable by every local user, a process's environment only
by its owner) that connects over the socket like any third-party bot, prints the address,
and runs until SIGINT/SIGTERM. Each house bot process also joins the ladders of its games
(``--ladder-matches`` ladder matches at once, of its ``--bot-matches`` slots), so the ladder
has rated matches from the first minute. Then it stops the bots (SIGTERM, then SIGKILL after
a few seconds), closes the server and flushes the store.
A house bot process that exits unexpectedly is restarted (with a growing delay). A bot whose
class declares ``games`` (the Chexers search bots: ``games = ("chexers",)``) is offered only
for those. A name that means a different bot per game (``greedy``: each game's greedy
baseline, ``bots.registry``) runs one process per bot, all under the one account, so
``house-greedy-1`` plays Battle Line, Chexers and Barca. :data:`HOUSE_BOT_OPTIONS` holds the
keyword arguments a house bot is started with (``--option``): the Barca agent searches
3 plies within a 2 s budget per move.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import structlog

from bots import registry as bot_registry
from server.app import ArenaServer, tune_gc
from server.commands.arguments import limits, names, non_negative_int, positive_int
from server.commands.serve import DB_HELP, add_server_arguments, wait_for_stop_signal
from server.games import available_names
from server.logs import configure_logging
from server.storage import Store, open_store
from tools.commands.bot import TOKEN_ENV
from tools.commands.bot_options import option_args

log = structlog.get_logger("arena.run")

HOUSE_GAMES = ("battleline", "chexers", "barca", "boundary")
#: Two random bots (so a three-seat Chexers match against the house has distinct bots), each
#: game's greedy baseline, the Chexers search agents of the seed report and ``brs`` (our
#: stronger Chexers bot, best-reply search), Deep Barca and the ISMCTS bot built on it (Battle
#: Line), the Barca agent (the evaluation vector, Barca), and Boundary's adaptive agent with
#: the thesis's other basic strategies (its greedy baseline is Greedy Treasure).
DEFAULT_HOUSE_BOTS = ("random,random,greedy,maxn,random-maxn,paranoid,offensive,mp-mix,brs,"
                      "deep-barca,ismcts,barca,adaptive,best-treasure,greedy-capture,"
                      "hybrid-capture,defensive-treasure,defensive-capture")
#: Keyword arguments for house bots by name. The Barca agent's depth-3 search takes seconds
#: in busy positions, and one bot process thinks for all its matches in turn: a budget per
#: move (iterative deepening, up to its default depth) keeps a person's wait short.
HOUSE_BOT_OPTIONS: dict[str, dict[str, Any]] = {"barca": {"time_budget_s": 2.0}}


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_server_arguments(p, db_help=DB_HELP)
    p.add_argument("--house-bots", default=DEFAULT_HOUSE_BOTS,
                   type=names(bot_registry.names, "bot"),
                   help="house bots to start, comma-separated bot names; each becomes an "
                        f"account house-<name>-<n> (default: {DEFAULT_HOUSE_BOTS})")
    p.add_argument("--bot-matches", type=positive_int, default=8,
                   help="matches each house bot plays at once (default 8)")
    p.add_argument("--ladder-matches", type=non_negative_int, default=2,
                   help="ladder matches each house bot process plays at once besides its "
                        "autoplay (rated from the first minute; 0 keeps the house bots off "
                        "the ladders; default 2)")
    p.add_argument("--bot-games", default=",".join(HOUSE_GAMES),
                   type=names(available_names, "game"),
                   help=f"games the house bots play (default {','.join(HOUSE_GAMES)})")


@dataclass
class HouseBot:
    bot: str          # the bot's name for ``arena bot``
    account: str      # its account name
    token: str = ""
    process: asyncio.subprocess.Process | None = None
    restarts: int = 0
    games: tuple[str, ...] = ()   # what its process plays (``arena run``)


def house_bots(spec: str) -> list[HouseBot]:
    names = [n.strip() for n in spec.split(",") if n.strip()]
    counts: dict[str, int] = {}
    out = []
    for name in names:
        counts[name] = counts.get(name, 0) + 1
        out.append(HouseBot(name, f"house-{name}-{counts[name]}"))
    return out


def ensure_accounts(store: Store, bots: list[HouseBot]) -> None:
    """Create missing house bot accounts; give every house bot a fresh token."""
    for bot in bots:
        account = store.get_account(bot.account)
        if account is None:
            bot.token = store.create_account(bot.account, "bot", house=True)
        else:
            bot.token = store.rotate_token(bot.account)


def game_groups(bot: str, games: list[str]) -> list[list[str]]:
    """The games of ``games`` that bot ``bot`` plays, grouped by the bot its name means for
    each (``greedy`` is one bot for Chexers, another for Barca): one process per group. A
    game is left out when that bot's factory declares ``games`` without it; an unknown name
    keeps every game (its process reports the name and is restarted like any failure)."""
    groups: dict[Any, list[str]] = {}
    for game in games:
        try:
            factory: Any = bot_registry.get(bot, game)
        except bot_registry.UnknownBot:
            factory = None
        supported = getattr(factory, "games", None)
        if supported is None or game in supported:
            groups.setdefault(factory, []).append(game)
    return list(groups.values())


def house_processes(bots: list[HouseBot], games: list[str]) -> list[HouseBot]:
    """One :class:`HouseBot` per process to start: each of ``bots`` (with its token) once per
    group of :func:`game_groups`, with that group's ``games``."""
    return [replace(bot, games=tuple(group))
            for bot in bots for group in game_groups(bot.bot, games)]


async def start_bot(bot: HouseBot, ws_url: str, matches: int, log_level: str,
                    ladder_matches: int = 0) -> None:
    """Start ``bot``'s process; its token goes in its environment (``ARENA_TOKEN``), never
    on its command line."""
    options = HOUSE_BOT_OPTIONS.get(bot.bot)
    bot.process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.cli", "bot", bot.bot, "--autoplay",
        "--games", ",".join(bot.games), "--max-matches", str(matches),
        "--ladder-matches", str(ladder_matches),
        "--server", ws_url, "--log-level", "warning" if log_level == "info" else log_level,
        *option_args(options),
        env={**os.environ, TOKEN_ENV: bot.token},
        stdin=asyncio.subprocess.DEVNULL,
        # The bot's own JSON logs go to our stderr, one line per event.
        stdout=asyncio.subprocess.DEVNULL, stderr=None,
        start_new_session=True)  # Ctrl-C reaches us; we stop the bots ourselves
    log.info("house_bot_started", account=bot.account, bot=bot.bot, games=list(bot.games),
             pid=bot.process.pid)


async def keep_running(bot: HouseBot, start: Callable[[], Awaitable[None]], event: str
                       ) -> None:
    """Start ``bot`` with ``start()`` and restart it whenever it exits, after a delay that
    doubles with each restart (0.5 s up to 30 s); ``event`` names the exit in the log."""
    while True:
        await start()
        assert bot.process is not None
        code = await bot.process.wait()
        bot.restarts += 1
        delay = min(30.0, 0.5 * 2 ** min(bot.restarts, 6))
        log.warning(event, account=bot.account, code=code, restart_in_s=delay)
        await asyncio.sleep(delay)


async def supervise(bot: HouseBot, ws_url: str, matches: int, log_level: str,
                    ladder_matches: int = 0) -> None:
    """Keep one house bot process running: restart it if it exits."""
    await keep_running(bot, lambda: start_bot(bot, ws_url, matches, log_level, ladder_matches),
                       "house_bot_exited")


async def stop_bot(bot: HouseBot, timeout: float = 5.0) -> None:
    process = bot.process
    if process is None or process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


async def run_main_job(args: argparse.Namespace) -> int:
    store = open_store(args.db)
    server = ArenaServer(store, grace_s=args.grace, limits=limits(args.limit))
    bots = house_bots(args.house_bots)
    known = available_names()
    games = [g for g in args.bot_games.split(",") if g in known]
    supervisors: list[asyncio.Task[None]] = []
    processes: list[HouseBot] = []
    try:
        await asyncio.to_thread(ensure_accounts, store, bots)
        await server.start(args.host, args.port)
        processes = house_processes(bots, games)
        for process in processes:
            supervisors.append(asyncio.create_task(
                supervise(process, server.ws_url, args.bot_matches, args.log_level,
                          args.ladder_matches)))
        tune_gc()
        print(f"Tabletop Arena serving on {server.http_url} — {server.ws_url}", flush=True)
        print(f"house bots: {', '.join(b.account for b in bots) or 'none'} "
              f"(games: {', '.join(games) or 'none'}); Ctrl-C stops", flush=True)
        await wait_for_stop_signal()
        print("stopping…", flush=True)
    finally:
        for task in supervisors:
            task.cancel()
        await asyncio.gather(*supervisors, return_exceptions=True)
        await asyncio.gather(*(stop_bot(b) for b in processes))
        await server.close()
        store.close()
    return 0


def run(args: argparse.Namespace) -> int:
    configure_logging(args.log_level)
    # Keep the bot subprocesses importing this checkout even when started from elsewhere.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p)
    try:
        return asyncio.run(run_main_job(args))
    except OSError as exc:
        print(f"arena run: {exc}", file=sys.stderr)
        return 1
