"""``arena ladder``: run the bot ladder with the house bots, show it, recompute it.

::

    arena ladder run --house-bots [--db arena.sqlite3] [--port 8765] [--duration 600]
    arena ladder show battleline [--db arena.sqlite3] [--json]
    arena ladder rerate [--db arena.sqlite3]

``run`` starts the server (its ladder scheduler runs inside it, as in ``arena serve`` and
``arena run``) and, with ``--house-bots``, puts the house bots on the ladders as ordinary
clients: one process per game and bot (``arena bot NAME --ladder GAME``), each with its own
``bot`` account ``house-<game>-<bot>`` (a fresh token at each start; tokens are stored
hashed). Until Ctrl-C or ``--duration`` seconds; then it prints each leaderboard. The ladders
of ``--duplicate`` (default: Battle Line, the noisiest) play duplicate pairs: each pairing is
two matches of one deal with the seats swapped, rated once (``server/pairs.py``); a pair
takes two of each bot's ``--bot-matches``.

``show`` prints a leaderboard from the SQLite file (the server may be running).

``rerate`` recomputes every rating from the raw results kept for each ladder match (entities,
ranks, void flags) in rating order, rewrites the ratings and rating history, and prints how
far the stored ratings were from the recomputed ones (0 when nothing was lost or changed).
Run it while no server uses the file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import structlog

from server.app import ArenaServer, tune_gc
from server.commands.arguments import (
    clock,
    limits,
    names,
    non_negative_int,
    positive_float,
    positive_int,
)
from server.commands.serve import DEFAULT_DB, add_server_arguments, wait_for_stop_signal
from server.games import available_names
from server.ladder import DEFAULT_CLOCK, LadderSettings
from server.ladder_book import DEFAULT_MIN_GAMES, LadderBook
from server.logs import configure_logging
from server.storage import SqliteStore
from tools.commands.bot_options import option_args
from tools.commands.run import HouseBot, ensure_accounts, keep_running, stop_bot

log = structlog.get_logger("arena.ladder")


def house_lineup() -> dict[str, list[tuple[str, str]]]:
    """Per game: (ladder name, ``arena bot`` name) of each house bot. ``arena bot`` picks a
    name's bot for the game it plays (``greedy`` is Battle Line's greedy baseline there)."""
    return {
        "battleline": [("random", "random"), ("greedy", "greedy"),
                       ("deep-barca", "deep-barca"), ("ismcts", "ismcts")],
        "chexers": [("random", "random"), ("greedy", "greedy"), ("maxn", "maxn"),
                    ("paranoid", "paranoid"), ("mp-mix", "mp-mix")],
        "barca": [("random", "random"), ("greedy", "greedy"), ("barca", "barca")],
        "boundary": [("random", "random"), ("greedy-treasure", "greedy-treasure"),
                     ("greedy-capture", "greedy-capture"),
                     ("defensive-capture", "defensive-capture"), ("adaptive", "adaptive")],
    }


#: Keyword arguments of ladder house bots (``arena bot --option``): the Barca agent searches
#: at most 1 s a move, so a whole game fits the ladder clock (60 s + 1 s a move).
LADDER_BOT_OPTIONS: dict[str, dict[str, Any]] = {"barca": {"time_budget_s": 1.0}}


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="ladder_command", metavar="COMMAND")
    sub.required = True
    run_p = sub.add_parser("run", help="a server with its ladder, optionally the house bots",
                           description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_arguments(run_p)
    run_p.add_argument("--house-bots", action="store_true",
                       help="put the house bots on the ladders (random, greedy, Deep Barca, "
                            "the Chexers agents, the Barca agent, Boundary's strategies and "
                            "adaptive agent)")
    run_p.add_argument("--games", default="battleline,chexers,barca,boundary",
                       type=names(available_names, "game"),
                       help="ladders the house bots join (default "
                            "battleline,chexers,barca,boundary)")
    run_p.add_argument("--bot-matches", type=positive_int, default=2,
                       help="ladder matches each house bot plays at once (default 2)")
    run_p.add_argument("--clock", type=clock, default=DEFAULT_CLOCK,
                       help="ladder clock as JSON (default "
                            f"{json.dumps(DEFAULT_CLOCK.to_json())})")
    run_p.add_argument("--duration", type=positive_float, default=None,
                       help="stop after this many seconds (default: until Ctrl-C)")
    run_p.add_argument("--pair-cap", type=positive_int, default=12,
                       help="matches any two bots may start together per hour (default 12)")
    run_p.add_argument("--duplicate", default="battleline",
                       type=names(available_names, "game"),
                       help="ladders that play duplicate pairs, one deal twice with the seats "
                            "swapped, rated once (default battleline; \"\" for none)")
    show_p = sub.add_parser("show", help="print a game's leaderboard")
    show_p.add_argument("game")
    show_p.add_argument("--db", default=DEFAULT_DB)
    show_p.add_argument("--min-games", type=non_negative_int, default=DEFAULT_MIN_GAMES)
    show_p.add_argument("--json", action="store_true")
    rerate_p = sub.add_parser("rerate", help="recompute every rating from the raw results")
    rerate_p.add_argument("--db", default=DEFAULT_DB)


def run(args: argparse.Namespace) -> int:
    if args.ladder_command == "show":
        return show(args)
    if args.ladder_command == "rerate":
        return rerate(args)
    configure_logging(args.log_level)
    try:
        return asyncio.run(run_ladder(args))
    except OSError as exc:
        print(f"arena ladder run: {exc}", file=sys.stderr)
        return 1


# ---- show / rerate ---------------------------------------------------------------------------


def print_leaderboard(game: str, entries: list[dict[str, Any]]) -> None:
    print(f"{game} ladder")
    header = ("rank", "bot", "version", "account", "ordinal", "mu", "sigma", "games", "w-d-l")
    rows = [header] + [
        (f"{e['rank']}{'?' if e['provisional'] else ''}", e["bot"], e["version"], e["account"],
         f"{e['ordinal']:.2f}", f"{e['mu']:.2f}", f"{e['sigma']:.2f}", str(e["games"]),
         f"{e['wins']}-{e['draws']}-{e['losses']}") for e in entries]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for n, row in enumerate(rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    print("(? = provisional: fewer rated matches than the minimum)")


def show(args: argparse.Namespace) -> int:
    store = SqliteStore(args.db)
    try:
        book = store.ladder().load_book()
    finally:
        store.close()
    entries = book.leaderboard(args.game, args.min_games)
    if args.json:
        print(json.dumps({"game": args.game, "min_games": args.min_games, "entries": entries},
                         indent=2))
    elif not entries:
        print(f"no bot on the {args.game} ladder in {args.db}")
    else:
        print_leaderboard(args.game, entries)
    return 0


def rerate(args: argparse.Namespace) -> int:
    store = SqliteStore(args.db)
    try:
        ladder_store = store.ladder()
        stored = ladder_store.load_book()
        book, results = ladder_store.rerate()
        statuses = [m.status for m in ladder_store.matches()]
    finally:
        store.close()
    mu, sigma = max_drift(stored, book)
    print(f"rerated {len(results)} results ({statuses.count('void')} void matches left "
          f"unrated, {statuses.count('live')} live) for {len(book.entities)} bot versions; "
          f"largest change of a stored rating: mu {mu:.3g}, sigma {sigma:.3g}")
    return 0


def max_drift(before: LadderBook, after: LadderBook) -> tuple[float, float]:
    mu = sigma = 0.0
    for entity_id, standing in after.standings.items():
        old = before.standings.get(entity_id)
        if old is None:
            continue
        mu = max(mu, abs(old.rating.mu - standing.rating.mu))
        sigma = max(sigma, abs(old.rating.sigma - standing.rating.sigma))
    return mu, sigma


# ---- run -------------------------------------------------------------------------------------


def ladder_bots(games: list[str]) -> list[tuple[str, HouseBot]]:
    lineup = house_lineup()
    out = []
    for game in games:
        for name, bot in lineup.get(game, []):
            out.append((game, HouseBot(bot, f"house-{game}-{name}")))
    return out


async def start_ladder_bot(game: str, bot: HouseBot, ws_url: str, matches: int,
                           log_level: str) -> None:
    name = bot.account.removeprefix(f"house-{game}-")
    options = LADDER_BOT_OPTIONS.get(bot.bot, {})
    bot.process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.cli", "bot", bot.bot, "--ladder", game,
        *option_args(options),
        "--bot-name", name, "--version", "1", "--max-matches", str(matches),
        f"--token={bot.token}", "--server", ws_url,  # a token may start with "-"
        "--log-level", "warning" if log_level == "info" else log_level,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=None,
        start_new_session=True)
    log.info("ladder_bot_started", account=bot.account, game=game, pid=bot.process.pid)


async def supervise(game: str, bot: HouseBot, ws_url: str, matches: int,
                    log_level: str) -> None:
    """Keep one house bot on the ladder: restart it (with a growing delay) if it exits."""
    await keep_running(bot, lambda: start_ladder_bot(game, bot, ws_url, matches, log_level),
                       "ladder_bot_exited")


async def run_ladder(args: argparse.Namespace) -> int:
    known = available_names()
    games = [g for g in args.games.split(",") if g in known]
    settings = LadderSettings(clock=args.clock, pair_cap_per_hour=args.pair_cap,
                              duplicate=frozenset(g.strip() for g in args.duplicate.split(",")
                                                  if g.strip()))
    store = SqliteStore(args.db)
    server = ArenaServer(store, grace_s=args.grace, ladder=settings,
                         limits=limits(args.limit))
    house = ladder_bots(games) if args.house_bots else []
    supervisors: list[asyncio.Task[None]] = []
    try:
        await asyncio.to_thread(ensure_accounts, store, [b for _, b in house])
        await server.start(args.host, args.port)
        for game, bot in house:
            supervisors.append(asyncio.create_task(
                supervise(game, bot, server.ws_url, args.bot_matches, args.log_level)))
        tune_gc()
        print(f"Tabletop Arena ladder serving on {server.http_url} — {server.ws_url}",
              flush=True)
        print(f"house bots: {', '.join(b.account for _, b in house) or 'none'}; "
              f"leaderboards at {server.http_url}/api/ladder/<game>; Ctrl-C stops", flush=True)
        stop = asyncio.ensure_future(wait_for_stop_signal())
        await asyncio.wait([stop], timeout=args.duration)
        stop.cancel()
        print("stopping…", flush=True)
    finally:
        for task in supervisors:
            task.cancel()
        await asyncio.gather(*supervisors, return_exceptions=True)
        await asyncio.gather(*(stop_bot(b) for _, b in house))
        ladder = server.ladder
        await server.close()
        store.close()
    print(f"ladder matches: {ladder.started_matches} started, {ladder.rated_matches} rated, "
          f"{ladder.void_matches} void")
    for game in games:
        entries = ladder.leaderboard(game)
        if entries:
            print_leaderboard(game, entries)
    return 0
