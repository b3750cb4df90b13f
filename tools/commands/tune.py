"""``arena tune barca|boundary|battleline-rollout``: tune a bot by self-play.

**Barca** — the agent's weights (rules §12.4-§12.5)::

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

**Boundary** — the adaptive agent's counter table, from our own round robin of the six
basic strategies (``tools/tune/boundary_table.py``)::

    arena tune boundary                               # 100 games a pairing, seed 1
    arena tune boundary -n 200 --jobs 2 --out boundary-table.json
    arena bot adaptive --option table=boundary-table.json

Every game is appended to ``--log`` as it ends; the same command resumes an interrupted run
(or extends it with a larger ``-n``). Progress (games, ETA) goes to stderr; the win matrix,
the counter table and the opening go to stdout, the table file to ``--out``.

**Battle Line rollouts** — the ISMCTS rollout policy fitted to Deep Barca's plays
(``tools/tune/battleline_rollout.py``)::

    arena tune battleline-rollout                     # 400 self-play games from deal 1
    arena tune battleline-rollout -n 800 --jobs 2 --out rollout.json
    arena bot ismcts --option policy=rollout.json     # play with the result

Progress (games collected) goes to stderr; the held-out fit beside the uniform and formation
policies' and the weights go to stdout, the weights file to ``--out``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from bots.barca.evaluation import FEATURES
from bots.barca.weights_file import WeightsError, load_weights, save_weights
from server.commands.arguments import non_negative_int, positive_int
from tools.bench.tournament import Progress
from tools.tune.boundary_table import Settings as BoundarySettings
from tools.tune.boundary_table import labels as boundary_labels
from tools.tune.boundary_table import render_table
from tools.tune.boundary_table import table_file as boundary_table_file
from tools.tune.boundary_table import tune as boundary_tune
from tools.tune.spsa import LogMismatch, Settings, State, games_done, total_games, tune

GAMES = ("barca", "boundary", "battleline-rollout")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="game", metavar="GAME",
                                help="barca, boundary or battleline-rollout")
    sub.required = True
    _barca_arguments(sub.add_parser(
        "barca", help="the Barca agent's weights (SPSA on the seed's match score)"))
    _boundary_arguments(sub.add_parser(
        "boundary", help="the adaptive agent's counter table (round robin of the six "
                         "basic strategies)"))
    _rollout_arguments(sub.add_parser(
        "battleline-rollout", help="the Battle Line ISMCTS rollout policy, fitted to Deep "
                                   "Barca's plays"))


def _rollout_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--games", type=positive_int, default=400,
                   help="Deep Barca self-play games to collect plays from (default 400)")
    p.add_argument("--seed", type=int, default=1, help="the first deal (default 1)")
    p.add_argument("--iterations", type=positive_int, default=2000,
                   help="Adam steps of the fit (default 2000)")
    p.add_argument("--holdout", type=float, default=0.2,
                   help="share of the games kept out of the fit and scored (default 0.2)")
    p.add_argument("--jobs", type=positive_int, default=1, help="worker processes (default 1)")
    p.add_argument("--out", default="battleline-rollout.json",
                   help="where to write the weights (default battleline-rollout.json)")


def _boundary_arguments(p: argparse.ArgumentParser) -> None:
    defaults = BoundarySettings()
    p.add_argument("-n", "--games", type=positive_int, default=defaults.games,
                   help=f"games per pairing, both seatings of each start (default "
                        f"{defaults.games})")
    p.add_argument("--seed", type=int, default=defaults.seed,
                   help=f"the run's seed: the starts every pairing plays (default "
                        f"{defaults.seed})")
    p.add_argument("--lookahead", type=non_negative_int, default=defaults.lookahead,
                   help="turns the agent simulates with the table (written to the file; "
                        f"default {defaults.lookahead})")
    p.add_argument("--margin", type=int, default=defaults.margin,
                   help="points another plan must gain over the table's in the lookahead "
                        f"(written to the file; default {defaults.margin})")
    p.add_argument("--jobs", type=positive_int, default=1, help="worker processes (default 1)")
    p.add_argument("--log", default=None,
                   help="the JSON-lines log, resumed if it exists "
                        "(default tune-boundary-seed<SEED>.jsonl)")
    p.add_argument("--out", default="boundary-table.json",
                   help="where to write the table (default boundary-table.json)")


def _barca_arguments(p: argparse.ArgumentParser) -> None:
    defaults = Settings()
    p.add_argument("--iterations", "-K", type=positive_int, default=defaults.iterations,
                   help=f"SPSA iterations K (default {defaults.iterations})")
    p.add_argument("--seed", type=int, default=defaults.seed,
                   help=f"the run's seed: perturbations and openings (default {defaults.seed})")
    p.add_argument("--depth", type=positive_int, default=defaults.depth,
                   help=f"search depth of the agents in tuning games (default {defaults.depth})")
    p.add_argument("--openings", type=positive_int, default=defaults.openings,
                   help=f"openings per iteration, 2 games each (default {defaults.openings})")
    p.add_argument("--check-openings", type=positive_int, default=defaults.check_openings,
                   help="openings of the θ vs best check (default "
                        f"{defaults.check_openings})")
    p.add_argument("--check-every", type=positive_int, default=defaults.check_every,
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
    p.add_argument("--jobs", type=positive_int, default=1,
                   help="worker processes playing games (default 1; the log is the same)")
    p.add_argument("--log", default=None,
                   help="the JSON-lines log, resumed if it exists "
                        "(default tune-barca-seed<SEED>.jsonl)")
    p.add_argument("--out", default="barca-weights.json",
                   help="where to write the best weights (default barca-weights.json)")


def run(args: argparse.Namespace) -> int:
    if args.game == "battleline-rollout":
        return _run_rollout(args)
    if args.game == "boundary":
        return _run_boundary(args)
    return _run_barca(args)


def _run_boundary(args: argparse.Namespace) -> int:
    import json

    from bots import registry as bots
    from bots.boundary.adaptive import THESIS_TABLE

    if args.games < 2 or args.jobs < 1 or not 0 <= args.lookahead <= 3 or args.margin < 0:
        print("arena tune boundary: -n must be at least 2, --jobs at least 1, --lookahead "
              "0–3, --margin at least 0", file=sys.stderr)
        return 2
    settings = BoundarySettings(seed=args.seed, games=args.games, lookahead=args.lookahead,
                                margin=args.margin)
    log = Path(args.log or f"tune-boundary-seed{args.seed}.jsonl")
    if not _directories_exist("arena tune boundary", log, Path(args.out)):
        return 2
    progress: Progress | None = None

    def on_result(result: Any, done: int, total: int) -> None:
        nonlocal progress
        if progress is None:   # the first game of this run: count only what is left
            resumed = f", {done - 1} games from the log" if done > 1 else ""
            progress = Progress(total - done + 1,
                                f"tune boundary (seed {args.seed}{resumed})", every=5)
        progress.advance(1, note=f"{result.game.a} vs {result.game.b}")

    def make_bot(spec: str, seed: int) -> Any:
        return bots.create(spec, seed=seed, game="boundary")

    began = time.monotonic()
    try:
        matrix = boundary_tune(settings, log, make_bot, args.jobs, on_result)
    except LogMismatch as exc:
        print(f"arena tune boundary: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"arena tune boundary: cannot write the log: {exc}", file=sys.stderr)
        return 1
    data = boundary_table_file(matrix, settings, log)
    try:
        Path(args.out).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"arena tune boundary: cannot write {args.out}: {exc}; the log {log} holds the "
              "run: the same command with another --out writes it without playing again",
              file=sys.stderr)
        return 1
    print(f"\narena tune boundary: {matrix.games} games ({args.games} a pairing, this run "
          f"{time.monotonic() - began:.0f} s), log {log}")
    print("win share of the row strategy against the column (draws half), 95% interval under:")
    print(matrix.render(boundary_labels(matrix.agents)))
    for line in render_table(data["table"], data["opening"], dict(THESIS_TABLE)):
        print(line)
    print(f"table written to {args.out}; play it with: "
          f"arena bot adaptive --option table={args.out}")
    return 0


def _run_rollout(args: argparse.Namespace) -> int:
    from bots.battleline.rollout_policy import FEATURES, save_weights
    from tools.tune import battleline_rollout as fitting

    if not 0.0 < args.holdout < 1.0 or args.games < 2:
        print("arena tune battleline-rollout: --holdout must be between 0 and 1 and -n at "
              "least 2", file=sys.stderr)
        return 2
    out = Path(args.out)
    if not out.parent.is_dir():
        print(f"arena tune battleline-rollout: --out: no directory {out.parent}",
              file=sys.stderr)
        return 2
    progress = Progress(args.games, f"collect Deep Barca plays (seed {args.seed})", every=10)
    began = time.monotonic()
    fit_games = max(1, round(args.games * (1.0 - args.holdout)))
    train = fitting.collect(fit_games, args.seed, args.jobs,
                            lambda done, total: progress.advance(1))
    held = fitting.collect(args.games - fit_games, args.seed + fit_games, args.jobs,
                           lambda done, total: progress.advance(1))
    if not train or not held:
        print("arena tune battleline-rollout: too few plays collected; raise -n",
              file=sys.stderr)
        return 2
    print(f"fitting on {len(train)} plays ({fit_games} games), scoring on {len(held)} "
          f"({args.games - fit_games} games)", file=sys.stderr)
    weights = fitting.fit(fitting.arrays(train), iterations=args.iterations, seed=args.seed)
    scored = fitting.report(weights, fitting.arrays(held))
    try:
        save_weights(out, weights, {"games": args.games, "seed": args.seed,
                                    "iterations": args.iterations} | scored)
    except OSError as exc:
        print(f"arena tune battleline-rollout: cannot write {out}: {exc}", file=sys.stderr)
        return 1
    print(f"\narena tune battleline-rollout: {len(train) + len(held)} plays from "
          f"{args.games} games ({time.monotonic() - began:.0f} s)")
    print(f"held-out plays {scored['records']}: mean negative log-likelihood "
          f"{scored['nll']:.3f} (uniform {scored['nll_uniform']:.3f}, formation policy "
          f"{scored['nll_formation']:.3f}); top play is Deep Barca's "
          f"{100 * scored['top1']:.1f}% (formation {100 * scored['top1_formation']:.1f}%)")
    width = max(len(f) for f in FEATURES)
    for name, w in zip(FEATURES, weights, strict=True):
        print(f"  {name:<{width}} {w:+.3f}")
    print(f"weights written to {out}; play them with: "
          f"arena bot ismcts --option policy={out}")
    return 0


def _directories_exist(command: str, log: Path, out: Path) -> bool:
    """Refuse a --log or --out in a missing directory now, not after hours of games."""
    for what, path in (("--log", log), ("--out", out)):
        if not path.parent.is_dir():
            print(f"{command}: {what}: no directory {path.parent}", file=sys.stderr)
            return False
    return True


def _run_barca(args: argparse.Namespace) -> int:
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

    if not _directories_exist("arena tune", log, Path(args.out)):
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
