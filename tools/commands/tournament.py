"""``arena tournament``: create, join, start and show tournaments on a running server.

::

    arena tournament create --game battleline --format swiss --rounds 5 [--name NAME]
                            [--seats N] [--options JSON] [--clock JSON|null]
                            [--enter house-random-1,house-greedy-1,…] [--start] [--wait]
    arena tournament join ID [--account BOT]
    arena tournament leave ID [--account BOT]
    arena tournament start ID [--wait]
    arena tournament show ID [--json] [--wait]
    arena tournament list [--status open|running|over]

Each talks to the server over the protocol (``--server``, default
``ws://127.0.0.1:8765/ws``) as the account of ``--token`` / ``--token-file`` /
``$ARENA_TOKEN`` (``show`` and ``list`` work as a guest too). ``show`` prints the standings
and the crosstable; ``--json`` prints the whole tournament as JSON instead (the export:
entrants, every pairing with its result, standings, crosstable). ``--wait`` keeps watching
until the tournament is over (each round's standings as it ends), then prints as ``show``.

A server operator runs one with the house bots of ``arena run`` (connected with autoplay
offers) from an admin account (``arena account create root --kind admin``)::

    ARENA_TOKEN=… arena tournament create --game battleline --format swiss --rounds 5 \\
        --enter house-random-1,house-random-2,house-greedy-1,house-deep-barca-1 --start --wait

Exit status: 0; 1 when the server refuses (its error code and ``details.reason`` on
stderr) or cannot be reached.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from clients.connection import NO_RECONNECT, ArenaError, Connection, connect
from server.commands.arguments import json_object, json_value, positive_int
from tools.commands.bot import TOKEN_ENV, token_of

ACTIONS = ("create", "join", "leave", "start", "show", "list")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=ACTIONS)
    p.add_argument("tournament_id", nargs="?", help="the tournament (all but create, list)")
    p.add_argument("--server", default="ws://127.0.0.1:8765/ws", help="websocket URL")
    p.add_argument("--token", default=None,
                   help=f"the account's bearer token (prefer --token-file or {TOKEN_ENV})")
    p.add_argument("--token-file", default=None, metavar="FILE",
                   help="read the token from FILE (mode 0600)")
    p.add_argument("--game", help="create: the game")
    p.add_argument("--format", choices=("swiss", "round_robin"), help="create: the format")
    p.add_argument("--rounds", type=positive_int, help="create: a Swiss's rounds")
    p.add_argument("--seats", type=positive_int, help="create: seats per game (round robin)")
    p.add_argument("--name", help="create: the tournament's name")
    p.add_argument("--options", type=json_object, help="create: game options as JSON")
    p.add_argument("--clock", type=json_value, default=argparse.SUPPRESS,
                   help='create: the matches\' clock as JSON, e.g. {"initial_ms": 60000, '
                        '"increment_ms": 1000}, or null (untimed); default 5 min + 3 s')
    p.add_argument("--enter", default="",
                   help="create: comma-separated bot accounts to enter (connected with an "
                        "autoplay offer for the game; creator or admin)")
    p.add_argument("--account", help="join/leave: a bot account instead of yourself")
    p.add_argument("--start", action="store_true", help="create: start it at once")
    p.add_argument("--wait", action="store_true",
                   help="create/start/show: watch until it is over, then show it")
    p.add_argument("--json", action="store_true", help="show: the whole tournament as JSON")
    p.add_argument("--status", choices=("open", "running", "over"), help="list: filter")


def points_text(value: float) -> str:
    whole = int(value)
    half = value - whole
    if half == 0:
        return str(whole)
    return ("" if whole == 0 else str(whole)) + ("½" if abs(half - 0.5) < 1e-9 else
                                                 f"{value:.2f}"[len(str(whole)):])


def standings_text(state: dict[str, Any]) -> str:
    """The standings as a table."""
    lines = [f"{state['name']} — {state['game']}, {state['format'].replace('_', ' ')}, "
             f"round {state['round']} of {state['rounds']}, {state['status']}",
             f"{'#':>3}  {'name':<24} {'pts':>5} {'games':>5}  {'W-D-L':<8} {'byes':>4} "
             f"{'Buchholz':>8} {'S-B':>7}"]
    for s in state["standings"]:
        lines.append(f"{s['rank']:>3}  {s['name'][:24]:<24} {points_text(s['points']):>5} "
                     f"{s['games']:>5}  {s['wins']}-{s['draws']}-{s['losses']:<4} "
                     f"{s['byes']:>4} {s['buchholz']:>8g} {s['sonneborn_berger']:>7g}")
    return "\n".join(lines)


def crosstable_text(state: dict[str, Any]) -> str:
    """The crosstable: row entrant's results against each column entrant (numbered as in the
    standings)."""
    cross = state["crosstable"]
    names = cross["names"]
    width = max(3, *(len(" ".join(points_text(r) for r in cell)) for row in cross["cells"]
                     for cell in row if cell))
    lines = [f"{'':>3}  {'':<24} " + " ".join(f"{n:>{width}}" for n in
                                              range(1, len(names) + 1))]
    for i, (name, row) in enumerate(zip(names, cross["cells"], strict=True), 1):
        cells = ["·" if cell is None else " ".join(points_text(r) for r in cell) or "-"
                 for cell in row]
        lines.append(f"{i:>3}  {name[:24]:<24} " + " ".join(f"{c:>{width}}" for c in cells))
    return "\n".join(lines)


def show_text(state: dict[str, Any]) -> str:
    return standings_text(state) + "\n\n" + crosstable_text(state)


async def request_as_is(conn: Connection, type: str, fields: dict[str, Any]
                        ) -> dict[str, Any]:
    """:meth:`Connection.request`, but a field given as ``None`` is sent as ``null`` (a
    ``clock`` of ``null`` means untimed; left out, the server's default)."""
    if not any(value is None for key, value in fields.items() if key == "clock"):
        return await conn.request(type, **fields)
    message_id = f"cli-{type}"
    await conn.send({"type": type, "id": message_id,
                     **{k: v for k, v in fields.items() if v is not None or k == "clock"}})
    while True:
        reply = await conn.next_message(timeout=30.0)
        if reply.get("ref") == message_id:
            if reply.get("type") == "error":
                raise ArenaError(reply)
            return reply


async def watch_until_over(conn: Connection, state: dict[str, Any]) -> dict[str, Any]:
    """Follow the pushed states until the tournament is over; each finished round's
    standings printed on the way."""
    shown_round = 0
    while state["status"] != "over":
        message = await conn.next_message()
        if message.get("type") != "tournament" or \
                message.get("tournament_id") != state["tournament_id"]:
            continue
        state = message
        done = [p for p in state["pairings"] if p["round"] == state["round"]
                and p["status"] in ("over", "void", "forfeit", "bye")]
        current = [p for p in state["pairings"] if p["round"] == state["round"]]
        if state["round"] > shown_round and len(done) == len(current) and current:
            shown_round = state["round"]
            print(standings_text(state) + "\n", flush=True)
    return state


async def run_action(args: argparse.Namespace) -> int:
    """The command, on the running loop: its exit status (a refusal: 1, one line on
    stderr)."""
    try:
        return await _run_action(args)
    except ArenaError as exc:
        reason = exc.details.get("reason")
        print(f"arena tournament {args.action}: {exc.code}"
              f"{f' ({reason})' if reason else ''}: {exc.message}", file=sys.stderr)
        return 1
    except (OSError, TimeoutError) as exc:
        print(f"arena tournament: cannot reach {args.server}: {exc}", file=sys.stderr)
        return 1


async def _run_action(args: argparse.Namespace) -> int:
    needs_id = args.action not in ("create", "list")
    if needs_id and not args.tournament_id:
        print(f"arena tournament {args.action}: name the tournament", file=sys.stderr)
        return 2
    if args.action == "create" and (not args.game or not args.format):
        print("arena tournament create: --game and --format are needed", file=sys.stderr)
        return 2
    async with await connect(args.server, token_of(args), name="arena-cli",
                             reconnect=NO_RECONNECT) as conn:
        tid = args.tournament_id
        if args.action == "list":
            listed = await conn.request("list_tournaments", status=args.status)
            for t in listed["tournaments"]:
                print(f"{t['tournament_id']}  {t['status']:<8} {t['game']:<11} "
                      f"{t['format']:<12} {t['entrant_count']:>3} entrants  "
                      f"round {t['round']}/{t['rounds']}  {t['name']}")
            return 0
        if args.action == "create":
            fields: dict[str, Any] = {"game": args.game, "format": args.format,
                                      "rounds": args.rounds, "seats": args.seats,
                                      "name": args.name, "options": args.options}
            if hasattr(args, "clock"):  # (null: untimed; absent: the server's default)
                fields["clock"] = args.clock
            made = await request_as_is(conn, "tournament_create", fields)
            tid = made["tournament_id"]
            print(f"tournament {tid} created", flush=True)
            for bot in [b.strip() for b in args.enter.split(",") if b.strip()]:
                await conn.request("tournament_join", tournament_id=tid, account=bot)
            if not args.start:
                print(show_text(await conn.request("tournament_show", tournament_id=tid)))
                return 0
        if args.action in ("join", "leave"):
            reply = await conn.request(f"tournament_{args.action}", tournament_id=tid,
                                       account=args.account)
            if reply["type"] == "tournament":
                print(show_text(reply))
            return 0
        if args.action in ("create", "start"):
            state = await conn.request("tournament_start", tournament_id=tid)
        else:
            state = await conn.request("tournament_show", tournament_id=tid)
        if args.wait:
            state = await watch_until_over(conn, state)
        state = {k: v for k, v in state.items() if k not in ("type", "ref")}
        print(json.dumps(state, indent=2) if args.json else show_text(state))
        return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(run_action(args))
