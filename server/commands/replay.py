"""``arena replay``: print a finished match step by step, or export it as JSON.

    arena replay MATCH_ID [--db arena.sqlite3]          # readable, one line per action
    arena replay MATCH_ID [--db arena.sqlite3] --json   # the replay record (no seed)

``--db`` is the server's SQLite file or its ``postgresql://`` URL, as given to ``arena serve``.

Every step is re-applied through the engine (``Game.apply`` checks it), so a record that no
longer replays under the current rules is reported rather than printed wrong. A live match is
refused: its log would reveal hidden cards.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine import registry
from engine.core import CHANCE, Outcome
from engine.match import actions_of, replay
from server.storage import MatchRow, StoreError, describe_db, open_store

DEFAULT_DB = "arena.sqlite3"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("match_id")
    p.add_argument("--db", default=DEFAULT_DB,
                   help=f"the server's store: an SQLite file (default {DEFAULT_DB}) or a "
                        "PostgreSQL URL, postgresql://user[:password]@host[:port]/db")
    p.add_argument("--json", action="store_true", help="export the record as JSON")


def export(row: MatchRow) -> dict[str, Any]:
    """The exported record: summary and replay record, never the seed."""
    return {"match": row.summary(), "record": row.record()}


def readable(row: MatchRow) -> list[str]:
    game = registry.get(row.game)
    names = [f"{s['name']} ({game.info.seat_names[s['seat']]})" for s in row.seats]
    lines = [f"{game.info.title} — match {row.id}, {row.status}",
             f"started {row.created_at}" + (f", ended {row.ended_at}" if row.ended_at else ""),
             "seats: " + "; ".join(f"{n}: {name}" for n, name in enumerate(names)),
             f"options: {json.dumps(row.options, sort_keys=True)}"]
    if row.clock:
        lines.append(f"clock: {row.clock['initial_ms']} ms + {row.clock['increment_ms']} ms")
    step = 0
    final = None
    for state, entry in replay(game, row.record()):
        if entry is None:
            final = state
            break
        for seat, action in sorted(actions_of(entry).items()):
            who = "chance" if seat == CHANCE else game.info.seat_names[seat]
            if seat != CHANCE:
                step += 1
            lines.append(f"{step:5d}  {who:>8}  {game.action_text(action)}")
    if final is not None:
        lines.append(f"final position: {game.to_notation(final)}")
    if row.outcome is not None:
        outcome = Outcome.from_json(row.outcome)
        ranked = ", ".join(f"{game.info.seat_names[s]} {r + 1}"
                           for s, r in enumerate(outcome.ranks))
        scores = f"; scores {list(outcome.scores)}" if outcome.scores is not None else ""
        lines.append(f"result: {outcome.reason} — places: {ranked}{scores}")
    return lines


def run(args: argparse.Namespace) -> int:
    try:
        store = open_store(args.db)
        try:
            row = store.get_match(args.match_id)
        finally:
            store.close()
    except StoreError as exc:
        print(f"arena replay: {exc}", file=sys.stderr)
        return 1
    if row is None:
        print(f"arena replay: no match {args.match_id!r} in {describe_db(args.db)}",
              file=sys.stderr)
        return 1
    if row.status == "live":
        print(f"arena replay: match {row.id} is still live; its record is secret until it "
              "ends", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(export(row), indent=2))
        return 0
    try:
        for line in readable(row):
            print(line)
    except Exception as exc:  # the rules changed under an old record, or it is damaged
        print(f"arena replay: match {row.id} does not replay: {exc}", file=sys.stderr)
        return 1
    return 0
