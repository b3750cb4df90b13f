"""``arena bench engine``: how fast the rules run.

For each registered game (or ``--game``):

* random playouts through the fast path a bot's simulator uses (``legal_actions`` then
  ``apply_unchecked``; chance drawn like the driver does), in games per second;
* random playouts through :func:`engine.match.play` (every action checked, as the server does),
  in games per second.

For Battle Line, claim proofs (``engine.battleline.formations``): claim situations are sampled
from random playouts (every unclaimed flag where a seat's side is complete, at every step of
seeded games), then ``prove_claim`` (with reasons) and ``can_claim`` (yes/no) are timed over
the sample: all situations, with the unseen-card mask computed once per state (as
``claimable_flags`` does), only those needing a proof search (opponent's side incomplete), and
with the side-strength memo emptied before each pass (fresh positions rather than the same
sides turn after turn); ``claimable_flags`` (every flag of one seat, what a claim window
costs) is timed per state and seat.

For Boundary (:mod:`tools.bench.boundary_core`): whole games between its basic strategies
through the engine contract (seconds per game, ticks and turns per second in the details) and
on the fast core alone (ticks/s), the adaptive agent's games, and the territory map of a view.

For Barca, its two fast cores side by side (:mod:`tools.bench.barca_core`): perft(4) from the
start, random playouts, and playouts reading both sides' moves and statuses at every position,
on the from-scratch generator and on the incremental update of rules §12.6. The incremental
rows quote ``speed ratio``, their median over the scratch row's (above 1: incremental faster).

Each figure is the median of ``--repeat`` runs of ``--seconds`` each; every run replays the
same seeds, so runs do identical work.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import registry, spaces
from engine.core import CHANCE, Game, State
from engine.match import play, random_policy
from engine.rng import Rng
from tools.bench.measure import (
    Operation,
    Result,
    Workload,
    add_common,
    measure,
    print_json,
    print_table,
    stderr_progress,
)

HELP = ("random playouts per second per game; Battle Line claim proofs per second; Barca's "
        "scratch and incremental cores compared; Boundary's bot games, ticks and turns per "
        "second")

PROOF_SEEDS = 40
"""Random Battle Line games the claim situations are sampled from."""
MAX_SITUATIONS = 2000


@dataclass(frozen=True)
class ComparedWorkload(Workload):
    """A workload whose median is quoted against another one's (``baseline``, a workload name
    of the same run) as ``speed ratio`` in its details."""

    baseline: str = ""


def quote_ratios(workloads: Sequence[Workload], results: Sequence[Result]) -> None:
    """Add ``speed ratio`` (median / the baseline's median) and ``baseline`` to the details of
    each compared workload's result whose baseline was measured too."""
    by_name = {r.name: r for r in results}
    for workload, result in zip(workloads, results, strict=True):
        if isinstance(workload, ComparedWorkload):
            base = by_name.get(workload.baseline)
            if base is not None and base.median > 0:
                result.details["speed ratio"] = round(result.median / base.median, 3)
                result.details["baseline"] = base.name


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", action="append", default=None,
                   help="only this game (repeatable; default: every registered game)")
    add_common(p)


def run(args: argparse.Namespace) -> int:
    names = args.game or registry.names()  # unknown names were refused by `arena bench`
    workloads: list[Workload] = []
    for name in names:
        game = registry.get(name)
        workloads += playout_workloads(game)
        extra = EXTRA_WORKLOADS.get(name)
        if extra is not None:
            workloads += extra(game)
    results: list[Result] = []
    for n, workload in enumerate(workloads, 1):
        stderr_progress(f"[{n}/{len(workloads)}] {workload.name} "
                        f"({args.repeat} × {args.seconds:g} s)")
        results.append(measure(workload, args.repeat, args.seconds, args.warmup,
                               stderr_progress))
    quote_ratios(workloads, results)
    if args.json:
        print_json("engine", results, {"repeat": args.repeat, "seconds": args.seconds,
                                       "warmup": args.warmup, "games": names})
    else:
        print_table(results)
        print()
        for r in results:
            if r.details:
                notes = ", ".join(f"{k} {v}" for k, v in r.details.items())
                print(f"{r.name}: {notes}")
    return 0


# --------------------------------------------------------------------------------------------
# Playouts
# --------------------------------------------------------------------------------------------


def fast_playout(game: Game, seed: int, options: dict[str, Any]) -> int:
    """One random game through ``legal_actions``/``apply_unchecked``; returns its length in
    joint actions. Chance uses ``Rng(seed)``, seats ``Rng(seed).fork("seat-s")`` (as the
    driver and ``arena play`` do), so a seed plays the same game as ``arena play --seed``."""
    chance_rng = Rng(seed)
    num_seats = game.info.min_seats
    rngs = [Rng(seed).fork(f"seat-{s}") for s in range(num_seats)]
    state: State = game.initial_state(num_seats, options)
    steps = 0
    while True:
        decision = game.decision(state)
        if decision.terminal:
            return steps
        if decision.chance:
            outcomes = game.chance_outcomes(state)
            joint = {CHANCE: outcomes[chance_rng.weighted_index([w for _, w in outcomes])][0]}
        else:
            joint = {}
            for seat in decision.seats:
                if game.info.actions == "space":
                    space = game.action_space(state, seat)
                    assert space is not None
                    joint[seat] = spaces.sample(space, rngs[seat])
                    continue
                legal = game.legal_actions(state, seat)
                joint[seat] = legal[rngs[seat].below(len(legal))]
        state = game.apply_unchecked(state, joint).state
        steps += 1


def playout_workloads(game: Game) -> list[Workload]:
    name = game.info.name
    options = game.normalize_options(None)
    seats = game.info.min_seats
    lengths = [fast_playout(game, seed, options) for seed in range(20)]
    details = {"mean joint actions per game (seeds 0-19)": round(statistics.mean(lengths), 1)}

    def fast() -> Operation:
        seeds = iter(range(1 << 62))
        return lambda: fast_playout(game, next(seeds), options) >= 0

    def checked() -> Operation:
        seeds = iter(range(1 << 62))

        def one() -> int:
            seed = next(seeds)
            policies = [random_policy(Rng(seed).fork(f"seat-{s}")) for s in range(seats)]
            play(game, policies, seed=seed, options=options)
            return 1
        return one

    return [
        Workload(f"{name}: random playouts, apply_unchecked", "games/s", fast, details),
        Workload(f"{name}: random playouts, checked Match", "games/s", checked),
    ]


# --------------------------------------------------------------------------------------------
# Battle Line claim proofs
# --------------------------------------------------------------------------------------------


Situation = tuple[State, int, int]
"""(state, claiming seat, flag 1–9)."""


def claim_situations(game: Game, seeds: int = PROOF_SEEDS,
                     limit: int = MAX_SITUATIONS) -> list[Situation]:
    """Every (state, seat, flag) of ``seeds`` random games where the flag is unclaimed and the
    seat's side is complete (the calls that reach a comparison or a proof search), thinned
    evenly to at most ``limit``."""
    options = game.normalize_options(None)
    found: list[Situation] = []
    for seed in range(seeds):
        chance_rng = Rng(seed)
        rngs = [Rng(seed).fork(f"seat-{s}") for s in range(2)]
        state = game.initial_state(2, options)
        while not (decision := game.decision(state)).terminal:
            for seat in (0, 1):
                for n, flag in enumerate(state["flags"]):
                    size = 4 if "Mud" in flag["env"] else 3
                    if flag["claimed"] is None and len(flag["sides"][seat]) >= size:
                        found.append((state, seat, n + 1))
            if decision.chance:
                outcomes = game.chance_outcomes(state)
                joint = {CHANCE: outcomes[chance_rng.weighted_index([w for _, w in outcomes])][0]}
            else:
                joint = {s: (legal := game.legal_actions(state, s))[rngs[s].below(len(legal))]
                         for s in decision.seats}
            state = game.apply_unchecked(state, joint).state
    if len(found) > limit:
        stride = len(found) / limit
        found = [found[int(i * stride)] for i in range(limit)]
    return found


def battleline_workloads(game: Game) -> list[Workload]:
    from engine.battleline import formations  # only when Battle Line is benchmarked

    stderr_progress(f"sampling claim situations from {PROOF_SEEDS} random Battle Line games…")
    situations = claim_situations(game)
    searching = [(s, seat, flag) for s, seat, flag in situations
                 if len(s["flags"][flag - 1]["sides"][1 - seat])
                 < (4 if "Mud" in s["flags"][flag - 1]["env"] else 3)]
    proven = sum(formations.can_claim(s, seat, flag) for s, seat, flag in situations)
    details = {"situations": len(situations), "proven": proven,
               "needing a search": len(searching)}
    memo = getattr(formations, "_strength_of", None)
    clear: Callable[[], None] | None = getattr(memo, "cache_clear", None)

    def over(sample: list[Situation], check: Callable[[State, int, int], Any],
             before: Callable[[], None] | None = None) -> Callable[[], Operation]:
        def make() -> Operation:
            def one_pass() -> int:
                if before is not None:
                    before()
                for state, seat, flag in sample:
                    check(state, seat, flag)
                return len(sample)
            return one_pass
        return make

    masks = {id(s): formations.unseen_mask(s) for s, _, _ in situations}
    states = list({id(s): s for s, _, _ in situations}.values())

    def with_mask(state: State, seat: int, flag: int) -> bool:
        return formations.can_claim(state, seat, flag, masks[id(state)])

    def all_flags(state: State, seat: int, flag: int) -> list[int]:
        return formations.claimable_flags(state, seat)

    workloads = [
        Workload("battleline: claim proofs, prove_claim", "proofs/s",
                 over(situations, formations.prove_claim), details),
        Workload("battleline: claim checks, can_claim", "checks/s",
                 over(situations, formations.can_claim)),
        Workload("battleline: claim checks, can_claim, unseen mask given", "checks/s",
                 over(situations, with_mask)),
        Workload("battleline: claimable_flags (both seats' windows)", "states/s",
                 over([(s, seat, 0) for s in states for seat in (0, 1)], all_flags)),
        Workload("battleline: claim checks needing a search, can_claim", "checks/s",
                 over(searching, formations.can_claim)),
    ]
    if clear is not None:
        workloads.append(Workload("battleline: claim checks, can_claim, memo emptied per pass",
                                  "checks/s", over(situations, formations.can_claim, clear)))
    return workloads


def boundary_workloads(game: Game) -> list[Workload]:
    from tools.bench import boundary_core  # only when Boundary is benchmarked
    return boundary_core.workloads()


def barca_workloads(game: Game) -> list[Workload]:
    from tools.bench import barca_core  # only when Barca is benchmarked
    return barca_core.workloads()


EXTRA_WORKLOADS: dict[str, Callable[[Game], list[Workload]]] = {
    "battleline": battleline_workloads,
    "barca": barca_workloads,
    "boundary": boundary_workloads,
}
"""Game-specific workloads added after a game's playouts."""
