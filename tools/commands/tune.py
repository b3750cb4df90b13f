"""``arena tune barca``: tune the Barca agent's weights by self-play (rules §12.4-§12.5).

::

    arena tune barca                                  # K=200 iterations, seed 1, depth 2
    arena tune barca --iterations 40 --jobs 2 --log tune.jsonl --out barca-weights.json
    arena bot barca --weights barca-weights.json      # play with the result

SPSA (``tools/tune/spsa.py``) on the match score of §12.4: each iteration plays
``2 × --openings`` games between ``θ ± c_k Δ`` at ``--depth``; every ``--check-every``
iterations ``θ`` meets the best so far on ``--check-openings`` openings and replaces it if it
scores > 0. Every iteration and check is appended to ``--log`` (JSON lines) as it ends: run
the same command again to **resume** an interrupted run (or to extend it with a larger
``--iterations``); the same seed and settings reproduce the log exactly, whatever ``--jobs``.
Progress (games, iteration, last ``m``, ETA) goes to stderr; the best weights go to ``--out``
(a weights file, see ``bots/barca/weights_file.py``) and stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bots.barca.evaluation import FEATURES
from bots.barca.weights_file import WeightsError, load_weights, save_weights
from tools.bench.tournament import Progress
from tools.tune.spsa import LogMismatch, Settings, State, games_done, total_games, tune

GAMES = ("barca",)


def add_arguments(p: argparse.ArgumentParser) -> None:
    defaults = Settings()
    p.add_argument("game", choices=GAMES, help="the game whose bot to tune (barca)")
    p.add_argument("--iterations", "-K", type=int, default=defaults.iterations,
                   help=f"SPSA iterations K (default {defaults.iterations})")
    p.add_argument("--seed", type=int, default=defaults.seed,
                   help=f"the run's seed: perturbations and openings (default {defaults.seed})")
    p.add_argument("--depth", type=int, default=defaults.depth,
                   help=f"search depth of the agents in tuning games (default {defaults.depth})")
    p.add_argument("--openings", type=int, default=defaults.openings,
                   help=f"openings per iteration, 2 games each (default {defaults.openings})")
    p.add_argument("--check-openings", type=int, default=defaults.check_openings,
                   help="openings of the θ vs best check (default "
                        f"{defaults.check_openings})")
    p.add_argument("--check-every", type=int, default=defaults.check_every,
                   help=f"iterations between checks (default {defaults.check_every})")
    p.add_argument("--c", type=float, default=defaults.c, dest="c",
                   help=f"perturbation size c (default {defaults.c:g})")
    p.add_argument("--a", type=float, default=defaults.a, dest="a",
                   help=f"step size a (default {defaults.a:g})")
    p.add_argument("--A", type=float, default=defaults.big_a, dest="big_a",
                   help=f"step stability constant A (default {defaults.big_a:g})")
    p.add_argument("--start", default="start",
                   help="starting weights: a shipped name or a weights file (default start, "
                        "the rule book's)")
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes playing games (default 1; the log is the same)")
    p.add_argument("--log", default=None,
                   help="the JSON-lines log, resumed if it exists "
                        "(default tune-barca-seed<SEED>.jsonl)")
    p.add_argument("--out", default="barca-weights.json",
                   help="where to write the best weights (default barca-weights.json)")


def run(args: argparse.Namespace) -> int:
    for name in ("iterations", "depth", "openings", "check_openings", "check_every", "jobs"):
        if getattr(args, name) < 1:
            print(f"arena tune: --{name.replace('_', '-')} must be at least 1",
                  file=sys.stderr)
            return 2
    try:
        start = load_weights(args.start)
    except WeightsError as exc:
        print(f"arena tune: --start: {exc}", file=sys.stderr)
        return 2
    settings = Settings(seed=args.seed, iterations=args.iterations, depth=args.depth,
                        openings=args.openings, check_openings=args.check_openings,
                        check_every=args.check_every, c=args.c, a=args.a, big_a=args.big_a,
                        start=start)
    log = Path(args.log or f"tune-barca-seed{args.seed}.jsonl")
    progress: Progress | None = None

    def on_event(kind: str, state: State, s: Settings) -> None:
        nonlocal progress
        if progress is None:
            progress = Progress(total_games(s), f"tune barca (seed {s.seed})", every=1)
            progress.done = games_done(state, s)
        if kind == "game":
            m = "" if state.last_m is None else f"  last m {state.last_m:+.2f}"
            where = (f"iteration {state.k + 1}/{s.iterations}" if state.k < s.iterations
                     else "final check")
            progress.advance(1, note=f"{where}{m}")

    for what, path in (("--log", log), ("--out", Path(args.out))):
        if not path.parent.is_dir():  # refuse now, not after hours of games
            print(f"arena tune: {what}: no directory {path.parent}", file=sys.stderr)
            return 2
    began = time.monotonic()
    try:
        state = tune(settings, log, args.jobs, on_event)
    except LogMismatch as exc:
        print(f"arena tune: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"arena tune: cannot write the log: {exc}", file=sys.stderr)
        return 1
    seconds = time.monotonic() - began
    try:
        save_weights(args.out, state.best, {
            "tuner": "spsa (rules/barca.md §12.5)", "log": str(log),
            "settings": settings.identity() | {"iterations": settings.iterations},
            "checks": state.checks, "accepted": state.accepted})
    except OSError as exc:
        print(f"arena tune: cannot write {args.out}: {exc}; the log {log} holds the run: the "
              "same command with another --out writes it without playing again",
              file=sys.stderr)
        return 1
    print(f"\narena tune barca: {state.k} iterations (this run {seconds:.0f} s), "
          f"{state.accepted}/{state.checks} checks accepted; log {log}")
    width = max(len(f) for f in FEATURES)
    for name, w0, w in zip(FEATURES, settings.start, state.best, strict=True):
        print(f"  {name:<{width}} {w0:>6} → {w:>6}")
    print(f"weights written to {args.out}; play them with: "
          f"arena bot barca --weights {args.out}")
    return 0
