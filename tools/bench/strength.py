"""Duplicate-pair strength matches: two bots, the same deals, seats swapped (``arena bench
strength battleline deep-barca greedy -n 1000``).

Card games are noisy: a strong bot loses to a weak one dealt better cards. Duplicate play
removes most of that luck: every *deal* is played twice, bot A in seat 0 and bot B in seat 1,
then the other way round, so each bot plays each hand.

"The same deal" has to hold for every draw of the game, not only the opening hands. Drawing
with :class:`engine.match.Match`'s generator would not do: it consumes one number per chance
node, so once the two games of a pair differ in one draw (a tactics card instead of a troop
card, say), every later draw differs too. Here chance is resolved by
:class:`engine.match.FixedOrder` (the resolver the server's duplicate pairs deal with too):
each possible outcome gets a priority from the pair's seed, and a chance node takes the
available outcome with the lowest priority. For a game whose chance nodes draw without
replacement from decks with equal weights (Battle Line: the deal and every draw), that is a
deck shuffled once by the seed: the n-th troop card drawn is the same card in both games,
whoever draws it and whenever.

Bots are duck-typed (``choose(request) -> action``) and see exactly what the server sends a
seat: :func:`request_for` builds the ``request`` message from ``game.view(state, seat)`` and
the seat's legal actions or action space (the same fields as :func:`server.render.render_for`
without a clock). Their answers are checked by the engine: a malformed or illegal action is
counted and forfeits that game (the bench never lets a bot's mistake pass silently).
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import registry
from engine.core import CHANCE, ActionError, Game, Outcome, State
from engine.match import FixedOrder, request_fields
from tools.bench.tournament import Progress, derive_seed, percentile, wilson

BotMaker = Callable[[str, int], Any]
"""``(agent spec, seed) -> bot``: how the command that names bots makes one."""


def request_for(game: Game, state: State, seat: int, *, match_id: str = "bench",
                request_id: str = "0") -> dict[str, Any]:
    """The ``request`` message the server sends ``seat`` in ``state`` (untimed)."""
    return {"type": "request", "match_id": match_id, "request_id": request_id, "seat": seat,
            "view": game.view(state, seat), **request_fields(game, state, seat),
            "clock_ms": None, "deadline_ms": None}


@dataclass
class GameResult:
    """One game: ``ranks`` per seat (all 0: a draw), the ``reason``, actions applied
    (``turns``), the ``illegal`` actions per seat (each forfeits the game) and each seat's
    decision times in seconds, wall-clock and the deciding thread's CPU."""

    ranks: tuple[int, ...]
    reason: str
    turns: int
    illegal: list[int]
    times: list[list[float]] = field(default_factory=list)
    cpu_times: list[list[float]] = field(default_factory=list)


def play_game(game: Game, players: Sequence[Any], seed: int,
              options: Mapping[str, Any] | None = None, max_turns: int = 100_000,
              opening: Sequence[Any] = ()) -> GameResult:
    """Play one game in-process, chance from :class:`~engine.match.FixedOrder` (``seed``),
    after the ``opening`` actions (each by the seat to move; not counted in ``turns``)."""
    seats = len(players)
    state = game.initial_state(seats, game.normalize_options(options))
    for action in opening:
        state = game.apply(state, {game.decision(state).seats[0]: action}).state
    chance = FixedOrder(seed)
    times: list[list[float]] = [[] for _ in players]
    cpu_times: list[list[float]] = [[] for _ in players]
    illegal = [0] * seats
    turns = 0
    outcome: Outcome | None = None
    while outcome is None:
        decision = game.decision(state)
        if decision.terminal:
            outcome = game.outcome(state)
            break
        if turns >= max_turns:
            raise RuntimeError(f"{game.info.name}: no result after {max_turns} actions")
        turns += 1
        if decision.chance:
            state = game.apply_unchecked(state, {CHANCE: chance.pick(game, state)}).state
            continue
        actions: dict[int, Any] = {}
        for seat in decision.seats:
            request = request_for(game, state, seat, match_id=f"bench-{seed}",
                                  request_id=str(turns))
            start, cpu_start = time.perf_counter(), time.thread_time()
            actions[seat] = players[seat].choose(request)
            times[seat].append(time.perf_counter() - start)
            cpu_times[seat].append(time.thread_time() - cpu_start)
        try:
            state = game.apply(state, actions).state
        except ActionError:
            # Find the culprit(s) one by one; each illegal action forfeits the game.
            bad = []
            for seat, action in actions.items():
                try:
                    game.check_action(state, seat, action)
                except ActionError:
                    bad.append(seat)
            for seat in bad:
                illegal[seat] += 1
            ranks = tuple(1 if s in bad else 0 for s in range(seats))
            outcome = Outcome(ranks, "forfeit")
    assert outcome is not None
    return GameResult(outcome.ranks, outcome.reason, turns, illegal, times, cpu_times)


# ---- pairs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairTask:
    game: str
    agents: tuple[str, str]
    index: int
    seed: int
    options: Mapping[str, Any] | None
    opening: tuple[Any, ...] = ()
    """Actions played before the bots take over, the same in both games of the pair."""


def _barca_openings(count: int, seed: int) -> list[tuple[Any, ...]]:
    """The self-play openings of rules/barca.md §12.4: 4 random plies, distinct, none
    repeating a position or ending the game."""
    from engine.barca import move_json
    from tools.tune.barca_match import openings

    return [tuple(move_json(m) for m in o) for o in openings(count, seed)]


#: Games without chance whose deterministic bots need varied starts: ``(count, seed) →
#: openings``, one per pair (a pair is then one opening with the seats swapped).
OPENINGS: dict[str, Callable[[int, int], list[tuple[Any, ...]]]] = {
    "barca": _barca_openings,
}


_MAKE_BOT: BotMaker | None = None  # set by run_pairs before the workers fork


def play_pair(task: PairTask, make_bot: BotMaker | None = None) -> tuple[PairTask,
                                                                          list[GameResult]]:
    """The two games of one deal: agent A in seat 0, then in seat 1."""
    maker = make_bot or _MAKE_BOT
    assert maker is not None, "run_pairs sets the bot maker"
    a, b = task.agents
    out = []
    for seating in ((a, b), (b, a)):
        players = [maker(spec, derive_seed(task.seed, seat, spec))
                   for seat, spec in enumerate(seating)]
        out.append(play_game(registry.get(task.game), players, task.seed, task.options,
                             opening=task.opening))
    return task, out


def pair_tasks(game: Game, agents: tuple[str, str], games: int, seed: int,
               options: Mapping[str, Any] | None = None) -> list[PairTask]:
    """``ceil(games / 2)`` deals, each seeded from ``seed`` and its index (with an opening
    each, for the games of :data:`OPENINGS`)."""
    name = game.info.name
    count = math.ceil(games / 2)
    provider = OPENINGS.get(name)
    starts = provider(count, seed) if provider is not None else [()] * count
    return [PairTask(name, agents, k, derive_seed(seed, name, "deal", k), options, starts[k])
            for k in range(count)]


def run_pairs(tasks: Sequence[PairTask], make_bot: BotMaker, jobs: int = 1
              ) -> Iterator[tuple[PairTask, list[GameResult]]]:
    """Play every pair, in ``jobs`` forked worker processes when ``jobs`` > 1 (results come
    in completion order)."""
    global _MAKE_BOT
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for task in tasks:
            yield play_pair(task, make_bot)
        return
    _MAKE_BOT = make_bot  # inherited by the forked workers
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            yield from pool.imap_unordered(play_pair, tasks, chunksize=1)
    finally:
        _MAKE_BOT = None


# ---- the summary ------------------------------------------------------------------------------


@dataclass
class DuplicateStats:
    """Results from agent A's side: per game win/draw/loss, per pair the score of its two
    games (1, 0.5 or 0 per game, averaged), illegal actions per agent, decision times."""

    agents: tuple[str, str]
    wins: int = 0
    draws: int = 0
    losses: int = 0
    pair_scores: list[float] = field(default_factory=list)
    turns: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    illegal: Counter[str] = field(default_factory=Counter)
    times: dict[str, list[float]] = field(default_factory=dict)
    cpu_times: dict[str, list[float]] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def add(self, task: PairTask, results: Sequence[GameResult]) -> None:
        a, b = task.agents
        pair = 0.0
        for seat_of_a, result in enumerate(results):
            seating = (a, b) if seat_of_a == 0 else (b, a)
            ranks = result.ranks
            if all(r == 0 for r in ranks):
                self.draws += 1
                pair += 0.5
            elif ranks[seat_of_a] == 0:
                self.wins += 1
                pair += 1.0
            else:
                self.losses += 1
            self.turns += result.turns
            self.reasons[result.reason] += 1
            for seat, spec in enumerate(seating):
                self.illegal[spec] += result.illegal[seat]
                self.times.setdefault(spec, []).extend(result.times[seat])
                self.cpu_times.setdefault(spec, []).extend(result.cpu_times[seat])
        self.pair_scores.append(pair / len(results))

    def score(self) -> float:
        """A's mean score per game (win 1, draw ½)."""
        return (self.wins + self.draws / 2) / max(self.games, 1)

    def score_ci95(self) -> tuple[float, float]:
        """Normal 95% interval of the score over *pairs* (the two games of a deal are not
        independent, the deals are)."""
        n = len(self.pair_scores)
        if n < 2:
            return 0.0, 1.0
        mean = sum(self.pair_scores) / n
        var = sum((x - mean) ** 2 for x in self.pair_scores) / (n - 1)
        half = 1.96 * math.sqrt(var / n)
        return max(0.0, mean - half), min(1.0, mean + half)

    def to_json(self) -> dict[str, Any]:
        n = max(self.games, 1)
        a, b = self.agents
        return {
            "agents": [a, b], "games": self.games, "pairs": len(self.pair_scores),
            "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "win_share": self.wins / n, "win_ci95": list(wilson(self.wins, self.games)),
            "draw_share": self.draws / n, "draw_ci95": list(wilson(self.draws, self.games)),
            "loss_share": self.losses / n, "loss_ci95": list(wilson(self.losses, self.games)),
            "score": self.score(), "score_ci95": list(self.score_ci95()),
            "pairs_won_both": sum(1 for s in self.pair_scores if s == 1.0),
            "pairs_split": sum(1 for s in self.pair_scores if 0.0 < s < 1.0),
            "pairs_lost_both": sum(1 for s in self.pair_scores if s == 0.0),
            "mean_turns": self.turns / n, "reasons": dict(self.reasons),
            "illegal_actions": {spec: self.illegal[spec] for spec in dict.fromkeys(self.agents)},
            "decision_ms": {spec: _times(self.times.get(spec, []),
                                         self.cpu_times.get(spec, []))
                            for spec in dict.fromkeys(self.agents)},
        }


def _times(wall: Sequence[float], cpu: Sequence[float]) -> dict[str, float]:
    return {"n": len(wall), "p50": 1000 * percentile(wall, 0.5),
            "p99": 1000 * percentile(wall, 0.99), "max": 1000 * max(wall, default=0.0),
            "cpu_p50": 1000 * percentile(cpu, 0.5), "cpu_p99": 1000 * percentile(cpu, 0.99),
            "cpu_max": 1000 * max(cpu, default=0.0)}


def render(stats: DuplicateStats, settings: Mapping[str, Any]) -> str:
    """The human-readable report."""
    data = stats.to_json()
    a, b = stats.agents

    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    def ci(pair: Sequence[float]) -> str:
        return f"[{100 * pair[0]:.1f}, {100 * pair[1]:.1f}]"

    pair_kind = "opening" if settings["game"] in OPENINGS else "deal"
    lines = [
        f"arena bench strength {settings['game']} {a} {b}: {data['games']} games = "
        f"{data['pairs']} duplicate pairs (same {pair_kind}, seats swapped), seed "
        f"{settings['seed']}",
        f"  {a} vs {b}:  win {data['wins']} ({pct(data['win_share'])}, 95% CI "
        f"{ci(data['win_ci95'])})  draw {data['draws']} ({pct(data['draw_share'])})  "
        f"loss {data['losses']} ({pct(data['loss_share'])}, 95% CI {ci(data['loss_ci95'])})",
        f"  score {pct(data['score'])} (95% CI over pairs {ci(data['score_ci95'])}); pairs won "
        f"both {data['pairs_won_both']}, split {data['pairs_split']}, lost both "
        f"{data['pairs_lost_both']}",
        f"  mean length {data['mean_turns']:.0f} actions; ended by "
        + ", ".join(f"{k} {v}" for k, v in sorted(data["reasons"].items())),
        "  illegal actions: " + ", ".join(f"{k} {v}" for k, v in
                                          data["illegal_actions"].items()),
        "  decision ms (wall p50/p99/max | cpu p50/p99/max):",
    ]
    for spec, t in data["decision_ms"].items():
        lines.append(f"    {spec}: {t['p50']:.2f}/{t['p99']:.2f}/{t['max']:.2f} | "
                     f"{t['cpu_p50']:.2f}/{t['cpu_p99']:.2f}/{t['cpu_max']:.2f} "
                     f"over {t['n']} decisions")
    return "\n".join(lines)


def run_cli(game: Game, agents: Sequence[str], games: int, seed: int, jobs: int,
            make_bot: BotMaker, as_json: bool = False) -> int:
    """``arena bench strength GAME A B``: play, show progress on stderr, print the report."""
    import json
    import sys

    if game.info.min_seats > 2 or game.info.max_seats < 2 or len(agents) != 2:
        print("arena bench strength: a duplicate match takes two bots and a two-seat game",
              file=sys.stderr)
        return 2
    pair = (agents[0], agents[1])
    for spec in pair:
        try:
            make_bot(spec, 0)
        except Exception as exc:  # noqa: BLE001 - any bad name or option is reported alike
            print(f"arena bench strength: bad bot {spec!r}: {exc}", file=sys.stderr)
            return 2
    tasks = pair_tasks(game, pair, games, seed)
    stats = DuplicateStats(pair)
    progress = Progress(len(tasks) * 2, f"strength {game.info.name} {pair[0]} vs {pair[1]}")
    for task, results in run_pairs(tasks, make_bot, jobs):
        stats.add(task, results)
        progress.advance(2, note=f"score {100 * stats.score():.1f}%")
    settings = {"game": game.info.name, "seed": seed, "jobs": jobs, "games": games}
    if as_json:
        print(json.dumps({"benchmark": "strength-duplicate", "settings": settings,
                          "result": stats.to_json()}, indent=2))
    else:
        print(render(stats, settings))
    return 0
