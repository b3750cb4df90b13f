"""``arena play``: play one seeded match in-process between random policies and print it."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from engine import registry
from engine.core import Action
from engine.match import Match, play, random_policy
from engine.rng import Rng


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="battleline", help="game name (default: battleline)")
    p.add_argument("--seats", type=int, default=None, help="number of seats (default: minimum)")
    p.add_argument("--seed", type=int, default=1, help="match seed (default: 1)")
    p.add_argument("--options", default="{}", help="match options as a JSON object")
    p.add_argument("--quiet", action="store_true", help="print only the result line")


def run(args: argparse.Namespace) -> int:
    try:
        game = registry.get(args.game)
    except KeyError:
        print(f"unknown game {args.game!r}; available: {', '.join(registry.names())}",
              file=sys.stderr)
        return 2
    seats = args.seats or game.info.min_seats
    policies = [random_policy(Rng(args.seed).fork(f"seat-{s}")) for s in range(seats)]
    names = game.info.seat_names

    def show(match: Match, chosen: Mapping[int, Action]) -> None:
        if args.quiet:
            return
        step = len(match.log)
        for seat, action in chosen.items():
            print(f"{step:4d}  {names[seat]:>8}  {game.action_text(action)}")

    match = play(game, policies, seed=args.seed, options=json.loads(args.options), on_step=show)
    outcome = match.outcome
    assert outcome is not None
    result: dict[str, Any] = outcome.to_json()
    print(f"{game.info.title}, seed {args.seed}: {len(match.log)} log entries; "
          f"final position: {game.to_notation(match.state)}")
    print("result:", json.dumps(result))
    return 0
