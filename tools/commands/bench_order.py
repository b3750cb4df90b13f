"""``arena bench order GAME BOT BOT [BOT …]``: how many games order these bots correctly 95% of
the time, with single games and with duplicate pairs (``tools/bench/order.py``).

::

    arena bench order battleline random greedy deep-barca:top_formations=4 deep-barca \\
        --deals 200 --jobs 2 --record order.jsonl       # play, record, simulate
    arena bench order battleline --from order.jsonl     # simulate the record again
    arena bench order battleline greedy deep-barca --from order.jsonl --trials 5000

Playing: a round robin of duplicate pairs (``arena bench strength GAME A B``'s games): every
pairing plays the same ``--deals`` deals, each in both seatings. ``--record FILE`` writes
every game as a JSON line as it ends (deal index and seed, the bot in each seat, ranks,
reason, length, illegal actions). ``--from FILE`` simulates a record instead of playing
(the named bots only, when bots are named).

Simulating: ``--trials`` resamplings per size ``N`` (games per pairing) of the record, as
single games and as duplicate pairs; printed: the record's order with head-to-head scores,
which bots the record separates, the probability of the correct order per size, and the
smallest ``N`` reaching 95% per mode with their ratio. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import sys
from contextlib import nullcontext
from typing import Any, TextIO

from engine import registry
from server.commands.arguments import positive_int
from tools.bench import order
from tools.bench import strength as duplicate
from tools.bench.tournament import Progress
from tools.commands.bench_strength import _make_for

HELP = ("how many games order bots correctly 95% of the time: single games vs duplicate "
        "pairs, by simulation over a recorded round robin")


def _sizes(text: str) -> tuple[int, ...]:
    """``"2,4,8"``: even sizes (games per pairing), at least 2."""
    try:
        sizes = tuple(sorted({int(x) for x in text.split(",") if x.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of "
                                         "whole numbers") from None
    if not sizes or any(n < 2 or n % 2 for n in sizes):
        raise argparse.ArgumentTypeError("sizes are even numbers of games, at least 2 "
                                         "(a duplicate pair is two games)")
    return sizes


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="a two-seat game (e.g. battleline)")
    p.add_argument("bots", nargs="*", metavar="BOT",
                   help="the bots (NAME or NAME:key=value…), two or more; with --from, the "
                        "record's bots to keep (default all)")
    p.add_argument("--deals", type=positive_int, default=100,
                   help="deals per pairing, each played in both seatings (default 100)")
    p.add_argument("--jobs", type=positive_int, default=1, help="worker processes (default 1)")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the deals and of the simulation (default 1)")
    p.add_argument("--record", metavar="FILE", default=None,
                   help="write every game played as a JSON line to FILE")
    p.add_argument("--from", dest="source", metavar="FILE", default=None,
                   help="simulate the games recorded in FILE instead of playing")
    p.add_argument("--trials", type=positive_int, default=2000,
                   help="resamplings per size (default 2000)")
    p.add_argument("--sizes", type=_sizes, default=order.DEFAULT_SIZES,
                   help="games per pairing to simulate, even, comma-separated (default "
                        + ",".join(map(str, order.DEFAULT_SIZES)) + ")")
    p.add_argument("--no-refine", dest="refine", action="store_false",
                   help="report the smallest size on the grid, without bisecting below it")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def _fail(message: str) -> int:
    print(f"arena bench order: {message}", file=sys.stderr)
    return 2


def play(game_name: str, bots: tuple[str, ...], deals: int, seed: int, jobs: int,
         out: TextIO | None) -> list[order.GameRecord]:
    """Play the round robin (the deals in order, every pairing on each), recording each pair
    to ``out`` as it ends; returns every record."""
    game = registry.get(game_name)
    # Deal-major: an interrupted run leaves every pairing with about as many deals.
    per_pairing = [duplicate.pair_tasks(game, pairing, 2 * deals, seed)
                   for pairing in itertools.combinations(bots, 2)]
    tasks = [task for deal in zip(*per_pairing, strict=True) for task in deal]
    progress = Progress(2 * len(tasks), f"order {game_name}")
    records: list[order.GameRecord] = []
    for task, results in duplicate.run_pairs(tasks, functools.partial(_make_for,
                                                                      game=game_name), jobs):
        pair = order.records_of(task, results)
        if out is not None:
            order.write_records(out, pair)
        records.extend(pair)
        progress.advance(2, note=" vs ".join(task.agents))
    return records


def run(args: argparse.Namespace) -> int:
    game = registry.get(args.game)
    if game.info.min_seats > 2 or game.info.max_seats < 2:
        return _fail(f"{args.game} is not a two-seat game")
    bots = tuple(args.bots)
    if len(set(bots)) != len(bots):
        return _fail("name each bot once")
    if args.source is not None:
        if args.record is not None:
            return _fail("--from simulates a record; --record is for playing")
        try:
            records = order.read_records(args.source)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return _fail(f"cannot read {args.source}: {exc}")
        if records and records[0].game != args.game:
            return _fail(f"{args.source} records {records[0].game}, not {args.game}")
    else:
        if len(bots) < 2:
            return _fail("name two or more bots (or --from FILE)")
        for spec in bots:
            try:
                _make_for(spec, 0, args.game)
            except Exception as exc:  # noqa: BLE001 - any bad name or option is reported alike
                return _fail(f"bad bot {spec!r}: {exc}")
        jobs = max(1, min(args.jobs, os.cpu_count() or 1))
        opened: Any = open(args.record, "w", encoding="utf-8") if args.record else nullcontext()
        with opened as out:
            records = play(args.game, bots, args.deals, args.seed, jobs, out)
    try:
        table = order.build_table(records, bots or None)
    except ValueError as exc:
        return _fail(str(exc))
    truth = order.true_order(table, args.trials, args.seed)
    count = 1 if truth.established or not truth.required else 2
    progress = Progress(count * len(order.MODES) * len(args.sizes), "order: simulating")
    done = order.studies(table, truth, args.sizes, args.trials, args.seed, args.refine,
                         on_size=lambda mode, n: progress.advance(note=f"{mode} N={n}"))
    settings = {"trials": args.trials, "seed": args.seed, "sizes": list(args.sizes),
                "refine": args.refine, "source": args.source, "record": args.record}
    if args.json:
        print(json.dumps(order.to_json(table, truth, done, settings), indent=2))
    else:
        print(order.report(table, truth, done, settings))
    return 0
