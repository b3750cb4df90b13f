"""How many games does it take to put bots in their true order? Single games against duplicate
pairs, by simulation over recorded results (``arena bench order``, the command in
:mod:`tools.commands.bench_order`).

The record is a round robin of duplicate pairs (:mod:`tools.bench.strength`): every pairing of
the bots plays the same deals, each deal twice with the seats swapped. Each game is one line of
a JSON-lines file (:class:`GameRecord`), so a record can be simulated again, with other sizes
or seeds, without playing (``--from FILE``).

**The true order** is the bots' order by mean score (win 1, draw ½) over every recorded game.
It is *established* only where the record can tell: for each two bots, the deals are
resampled with replacement (the same resampled deals for every pairing, as they were played)
and the gap between their mean scores gets a percentile 95% interval. Two bots are
*separated* when that interval excludes 0; otherwise the record cannot say which is better
and no claim is made about their order. (The report then also simulates the record's full
order as if it were true, labelled as such: how many games bots as close as these would
need, not a claim about these bots.)

**A trial** plays (by resampling the record) ``N`` games per pairing, so each bot plays
``N × (bots − 1)`` games, and ranks the bots by total score. It is *correct* when every
separated pair stands in the true order with a strictly higher total (a tie is wrong); bots
that are not separated may stand either way. Two ways to spend the same ``N`` games:

* **single**: ``N`` independent games per pairing, each a recorded game drawn at random (a
  random deal and a random seat), independently for each pairing;
* **duplicate**: ``N / 2`` deals drawn at random, each played in both seatings, the same
  deals for every pairing (how the round robin is played).

The unit is the game played, so a ratio of sizes is a ratio of playing time. The smallest
``N`` reaching 95% is found on the grid and then refined by bisection over even sizes; it is
the smallest size from which the grid never drops below 95% again (Monte Carlo noise near the
threshold would otherwise make "the first size that reaches it" jump around).

Duplicate pairs gain as much as the deal decides the game: the report gives, per pairing,
the correlation over deals of a bot's scores in its two seatings (negative when the deal
favours a seat, which a pair cancels; near 0 when it hardly matters).

A bootstrap over a finite record cannot see beyond it: it converges to the record's own
order, so a size far above the record's games per pairing is an extrapolation (said so in
the report).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from tools.bench.strength import DuplicateStats, GameResult, PairTask
from tools.bench.tournament import derive_seed

#: Games per pairing simulated by default (all even: a duplicate pair is two games).
DEFAULT_SIZES: tuple[int, ...] = (2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96,
                                  128, 160, 192, 256, 320, 384, 512)
MODES: tuple[str, ...] = ("single", "duplicate")
TARGET = 0.95
#: Most numbers drawn per array in a simulation step (memory stays ~30 MB).
_CHUNK = 4_000_000


# ---- the record ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameRecord:
    """One recorded game: the game's name, the deal's index and seed (both games of a pair
    share them), the bot in each seat, the ranks per seat (all 0: a draw), how it ended, its
    length in actions and the illegal actions per seat."""

    game: str
    deal: int
    seed: int
    seats: tuple[str, ...]
    ranks: tuple[int, ...]
    reason: str = ""
    turns: int = 0
    illegal: tuple[int, ...] = ()

    def score(self, seat: int) -> float:
        """The seat's score: 1 for a win, ½ for a draw, 0 for a loss."""
        if all(r == self.ranks[0] for r in self.ranks):
            return 0.5
        return 1.0 if self.ranks[seat] == min(self.ranks) else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "deal": self.deal, "seed": self.seed,
                "seats": list(self.seats), "ranks": list(self.ranks), "reason": self.reason,
                "turns": self.turns, "illegal": list(self.illegal)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameRecord:
        return cls(str(data["game"]), int(data["deal"]), int(data["seed"]),
                   tuple(str(s) for s in data["seats"]), tuple(int(r) for r in data["ranks"]),
                   str(data.get("reason", "")), int(data.get("turns", 0)),
                   tuple(int(n) for n in data.get("illegal", ())))


def records_of(task: PairTask, results: Sequence[GameResult]) -> list[GameRecord]:
    """The two records of one played duplicate pair (:func:`tools.bench.strength.play_pair`:
    the task's first agent in seat 0, then in seat 1)."""
    a, b = task.agents
    return [GameRecord(task.game, task.index, task.seed, seating, tuple(r.ranks), r.reason,
                       r.turns, tuple(r.illegal))
            for seating, r in zip(((a, b), (b, a)), results, strict=True)]


def write_records(out: TextIO, records: Iterable[GameRecord]) -> None:
    """Append records as JSON lines, flushed (an interrupted run keeps what it played)."""
    for record in records:
        out.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
    out.flush()


def read_records(path: str | Path) -> list[GameRecord]:
    """Every record of a JSON-lines file (blank lines skipped)."""
    with open(path, encoding="utf-8") as f:
        return [GameRecord.from_json(json.loads(line)) for line in f if line.strip()]


# ---- the table the simulation draws from -----------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A complete record as arrays: ``scores[p, d, s]`` is the score of pairing ``p``'s first
    bot (``bots[pairings[p][0]]``) on deal ``d`` when it sat in seat ``s``. Only deals played
    in both seatings by every pairing are kept (``dropped`` counts the games left out)."""

    game: str
    bots: tuple[str, ...]
    pairings: tuple[tuple[int, int], ...]
    deals: tuple[int, ...]
    scores: np.ndarray
    dropped: int = 0
    illegal: tuple[int, ...] = ()
    """Illegal actions per bot over the kept games."""

    @property
    def games_per_pairing(self) -> int:
        return 2 * len(self.deals)

    def means(self) -> np.ndarray:
        """Each bot's mean score over all its games."""
        totals = np.zeros(len(self.bots))
        for p, (i, j) in enumerate(self.pairings):
            s = float(self.scores[p].sum())
            totals[i] += s
            totals[j] += self.scores[p].size - s
        return totals / (self.games_per_pairing * (len(self.bots) - 1))

    def head_to_head(self, p: int) -> DuplicateStats:
        """Pairing ``p`` as the strength bench sums it up (first bot's side)."""
        i, j = self.pairings[p]
        stats = DuplicateStats((self.bots[i], self.bots[j]))
        for games in self.scores[p]:
            for score in games:
                if score == 1.0:
                    stats.wins += 1
                elif score == 0.5:
                    stats.draws += 1
                else:
                    stats.losses += 1
            stats.pair_scores.append(float(games.mean()))
        return stats


    def seat_correlation(self, p: int) -> float | None:
        """Pairing ``p``'s correlation, over deals, between its first bot's scores in the two
        seatings: negative when the deal favours a seat (what duplicate pairs cancel), near 0
        when the deal hardly decides the game. ``None`` when a seating's scores never vary."""
        first, second = self.scores[p][:, 0], self.scores[p][:, 1]
        if first.std() == 0 or second.std() == 0:
            return None
        return float(np.corrcoef(first, second)[0, 1])


def build_table(records: Sequence[GameRecord], bots: Sequence[str] | None = None) -> Table:
    """The table of ``bots`` (default: every bot in the record, in order of appearance).
    Raises ``ValueError`` for a record of several games, of games not for two seats, or with
    fewer than two bots or no deal complete for every pairing."""
    games = {r.game for r in records}
    if len(games) > 1:
        raise ValueError(f"the record mixes games: {', '.join(sorted(games))}")
    if any(len(r.seats) != 2 for r in records):
        raise ValueError("the record has games that are not for two seats")
    names = tuple(bots) if bots else tuple(dict.fromkeys(s for r in records for s in r.seats))
    if len(set(names)) != len(names) or len(names) < 2:
        raise ValueError(f"need two or more distinct bots, not {list(names)}")
    index = {name: k for k, name in enumerate(names)}
    pairings = tuple(itertools.combinations(range(len(names)), 2))
    # (pairing, deal seed) -> {seat of the pairing's first bot: record}
    found: dict[tuple[tuple[int, int], int], dict[int, GameRecord]] = {}
    used = 0
    for r in records:
        a, b = r.seats
        if a not in index or b not in index or a == b:
            continue
        used += 1
        x, y = index[a], index[b]
        # the seat of the pairing's first bot (the one listed first) in this game
        found.setdefault(((min(x, y), max(x, y)), r.seed), {})[0 if x < y else 1] = r
    order: dict[int, int] = {}   # deal seed -> its index in the record
    for r in records:
        order.setdefault(r.seed, r.deal)
    deals = tuple(sorted((s for s in order
                          if all(len(found.get((p, s), {})) == 2 for p in pairings)),
                         key=lambda s: (order[s], s)))
    if not deals:
        raise ValueError(f"no deal was played in both seatings by every pairing of "
                         f"{', '.join(names)}")
    scores = np.array([[[found[(p, s)][seat].score(seat) for seat in (0, 1)] for s in deals]
                       for p in pairings])
    illegal = [0] * len(names)
    for p in pairings:
        for s in deals:
            for r in found[(p, s)].values():
                for seat, name in enumerate(r.seats):
                    illegal[index[name]] += r.illegal[seat] if r.illegal else 0
    return Table(records[0].game, names, pairings, deals, scores,
                 used - len(pairings) * 2 * len(deals), tuple(illegal))


# ---- simulation ------------------------------------------------------------------------------


def _rng(seed: int, *parts: object) -> np.random.Generator:
    """An independent generator per purpose and size, so a size's figure does not depend on
    which other sizes are simulated."""
    return np.random.default_rng(derive_seed(seed, "order", *parts))


def _chunks(trials: int, per_trial: int) -> Iterator[int]:
    step = max(1, _CHUNK // max(per_trial, 1))
    for start in range(0, trials, step):
        yield min(step, trials - start)


def totals(table: Table, mode: str, n: int, trials: int, seed: int) -> np.ndarray:
    """``trials × bots`` total scores from ``n`` games per pairing (``n`` even for
    ``duplicate``), drawn from the record as the module docstring says."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if mode == "duplicate" and n % 2:
        raise ValueError(f"duplicate pairs need an even number of games, not {n}")
    rng = _rng(seed, mode, n)
    deals = len(table.deals)
    singles = table.scores.reshape(len(table.pairings), -1)   # a game = (deal, seat)
    pairs = table.scores.sum(axis=2)                           # a pair = both seatings
    parts = []
    for count in _chunks(trials, n * len(table.pairings)):
        out = np.zeros((count, len(table.bots)))
        if mode == "duplicate":
            drawn = rng.integers(0, deals, size=(count, n // 2))   # shared by the pairings
        for p, (i, j) in enumerate(table.pairings):
            if mode == "single":
                s = singles[p][rng.integers(0, 2 * deals, size=(count, n))].sum(axis=1)
            else:
                s = pairs[p][drawn].sum(axis=1)
            out[:, i] += s
            out[:, j] += n - s
        parts.append(out)
    return np.concatenate(parts)


@dataclass(frozen=True)
class Separation:
    """Two bots in the true order (``ahead`` before ``behind``, indices into the bots): the
    gap of their mean scores over the record, its bootstrap 95% interval, and the share of
    resamples that keep their order strictly."""

    ahead: int
    behind: int
    gap: float
    low: float
    high: float
    held: float

    @property
    def separated(self) -> bool:
        return self.low > 0


@dataclass(frozen=True)
class TrueOrder:
    """The bots best first (indices), their mean scores, and every two bots' separation."""

    order: tuple[int, ...]
    means: tuple[float, ...]
    separations: tuple[Separation, ...]

    @property
    def required(self) -> list[tuple[int, int]]:
        """The pairs ``(ahead, behind)`` a correct ranking must keep."""
        return [(s.ahead, s.behind) for s in self.separations if s.separated]

    @property
    def full(self) -> list[tuple[int, int]]:
        """Every two bots in the record's order, separated or not."""
        return [(s.ahead, s.behind) for s in self.separations]

    @property
    def established(self) -> bool:
        """Every two bots separated: the order is the record's full order."""
        return all(s.separated for s in self.separations)

    def tiers(self) -> list[list[int]]:
        """The order cut where a bot is separated from the next one (adjacent bots that are
        not are one tier; their order is not claimed)."""
        cut = {(s.ahead, s.behind) for s in self.separations if s.separated}
        tiers = [[self.order[0]]]
        for prev, bot in itertools.pairwise(self.order):
            if (prev, bot) in cut:
                tiers.append([bot])
            else:
                tiers[-1].append(bot)
        return tiers


def true_order(table: Table, trials: int, seed: int) -> TrueOrder:
    """The order of the whole record and its separations (deals resampled ``trials`` times)."""
    means = table.means()
    order = tuple(sorted(range(len(table.bots)), key=lambda k: (-means[k], table.bots[k])))
    deals = len(table.deals)
    resampled = totals(table, "duplicate", 2 * deals, trials, derive_seed(seed, "truth")) / \
        (2 * deals * (len(table.bots) - 1))
    separations = []
    for x, y in itertools.combinations(order, 2):
        gaps = resampled[:, x] - resampled[:, y]
        low, high = np.percentile(gaps, [2.5, 97.5])
        separations.append(Separation(x, y, float(means[x] - means[y]), float(low),
                                      float(high), float(np.mean(gaps > 0))))
    return TrueOrder(order, tuple(float(m) for m in means), tuple(separations))


Pairs = Sequence[tuple[int, int]]
"""Pairs of bots ``(ahead, behind)`` (indices) a correct ranking keeps, each strictly."""


def p_correct(table: Table, pairs: Pairs, mode: str, n: int, trials: int, seed: int) -> float:
    """The share of ``trials`` rankings from ``n`` games per pairing that keep ``pairs``."""
    sums = totals(table, mode, n, trials, seed)
    ok = np.ones(len(sums), dtype=bool)
    for ahead, behind in pairs:
        ok &= sums[:, ahead] > sums[:, behind]
    return float(ok.mean())


@dataclass
class Curve:
    """One mode's probabilities per size, and the smallest size for :data:`TARGET`."""

    mode: str
    points: dict[int, float]
    smallest: int | None = None


def simulate(table: Table, pairs: Pairs, sizes: Sequence[int], trials: int, seed: int,
             refine: bool = True, on_size: Callable[[str, int], object] | None = None
             ) -> list[Curve]:
    """Both modes over ``sizes`` (even numbers). With ``refine``, the smallest size reaching
    :data:`TARGET` is narrowed by bisection over even sizes between the grid's last size
    below it and the first one from which it stays above; ``on_size(mode, n)`` is called
    after each size of the grid (progress)."""
    curves = []
    for mode in MODES:
        curve = Curve(mode, {})
        for n in sizes:
            curve.points[n] = p_correct(table, pairs, mode, n, trials, seed)
            if on_size is not None:
                on_size(mode, n)
        grid = sorted(curve.points)
        from_here = [n for k, n in enumerate(grid)
                     if all(curve.points[m] >= TARGET for m in grid[k:])]
        if from_here:
            hi = from_here[0]
            below = [n for n in grid if n < hi]
            if refine and below:
                lo = below[-1]   # fails; hi passes; bisect over even sizes
                while hi - lo > 2:
                    mid = (lo + hi) // 4 * 2
                    p = p_correct(table, pairs, mode, mid, trials, seed)
                    curve.points[mid] = p
                    lo, hi = (lo, mid) if p >= TARGET else (mid, hi)
            curve.smallest = hi
        curves.append(curve)
    return curves


@dataclass
class Study:
    """The curves of one notion of a correct ranking: ``what`` it is, its ``pairs``, and
    whether the record establishes it (``claimed``) or it is only the record's own order."""

    what: str
    pairs: list[tuple[int, int]]
    claimed: bool
    curves: list[Curve]


def studies(table: Table, truth: TrueOrder, sizes: Sequence[int], trials: int, seed: int,
            refine: bool = True, on_size: Callable[[str, int], object] | None = None
            ) -> list[Study]:
    """The true order when the record establishes it. Otherwise the separated pairs (the
    claim), and beside them the record's full order as if it were true (not a claim: how
    many games bots as close as these would need)."""
    plans = []
    if truth.established:
        plans.append(("the true order", truth.required, True))
    else:
        if truth.required:
            plans.append(("the separated pairs' order", truth.required, True))
        plans.append(("the record's full order (NOT established)", truth.full, False))
    return [Study(what, pairs, claimed,
                  simulate(table, pairs, sizes, trials, seed, refine, on_size))
            for what, pairs, claimed in plans]


# ---- the report ------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def report(table: Table, truth: TrueOrder, done: Sequence[Study],
           settings: Mapping[str, Any]) -> str:
    """The human-readable report: the record, the true order and how sure it is, the table
    of probabilities and the sizes for 95%."""
    bots = table.bots
    others = len(bots) - 1
    lines = [f"arena bench order {table.game}: {len(bots)} bots, {len(table.deals)} deals × "
             f"{len(table.pairings)} pairings × 2 seatings = "
             f"{len(table.deals) * len(table.pairings) * 2} recorded games"
             + (f" ({table.dropped} games of incomplete deals left out)" if table.dropped
                else "") + f"; {settings['trials']} trials per size, seed {settings['seed']}",
             "", "true order: mean score over every recorded game (head to head: the row's "
             "score against the column)"]
    width = max(len(b) for b in bots)
    head = "  ".join(f"{'vs ' + str(k + 1):>7}" for k in range(len(bots)))
    lines.append(f"  {'#':>2}  {'bot':<{width}}  {'mean':>6}  {head}")
    h2h: dict[tuple[int, int], float] = {}
    for p, (i, j) in enumerate(table.pairings):
        score = table.head_to_head(p).score()
        h2h[(i, j)], h2h[(j, i)] = score, 1 - score
    for rank, k in enumerate(truth.order):
        cells = "  ".join(f"{'-':>7}" if other == k else f"{_pct(h2h[(k, other)]):>7}"
                          for other in truth.order)
        lines.append(f"  {rank + 1:>2}  {bots[k]:<{width}}  {_pct(truth.means[k]):>6}  {cells}")
    if sum(table.illegal):
        lines.append("  illegal actions (each forfeits its game): "
                     + ", ".join(f"{b} {n}" for b, n in zip(bots, table.illegal, strict=True)
                                 if n))
    lines += ["", "pairings (the first bot's side): score; duplicate pairs won both / split / "
              "lost both; r: correlation over deals of its scores in the two seatings "
              "(r < 0: the deal favours a seat, which duplicate pairs cancel; r near 0: the "
              "deal hardly decides the game)"]
    for p, (i, j) in enumerate(table.pairings):
        data = table.head_to_head(p).to_json()
        r = table.seat_correlation(p)
        lines.append(f"  {bots[i]} vs {bots[j]}: {_pct(data['score'])}; "
                     f"{data['pairs_won_both']} / {data['pairs_split']} / "
                     f"{data['pairs_lost_both']}; r " + ("-" if r is None else f"{r:+.2f}"))
    lines += ["", f"separation: gap of mean scores, 95% interval over {settings['trials']} "
              "resamples of the deals, share of resamples keeping the order"]
    for s in truth.separations:
        lines.append(f"  {bots[s.ahead]} > {bots[s.behind]}: {100 * s.gap:+.1f} points "
                     f"[{100 * s.low:+.1f}, {100 * s.high:+.1f}], held {_pct(s.held)}"
                     + ("" if s.separated else "  NOT SEPARATED"))
    ordered = " > ".join(" ~ ".join(bots[k] for k in tier) for tier in truth.tiers())
    if truth.established:
        lines.append(f"the true order is established: {ordered}")
    else:
        lines.append(f"the true order is NOT established ({ordered}; '~': within noise): a "
                     "ranking is correct when every separated pair is in order; the record's "
                     "full order is simulated too, as if it were true, and no claim is made "
                     "from it")
    each = f"{others}N" if others > 1 else "N"
    lines += ["", f"P(correct order) from N games per pairing (each bot plays {each} games); "
              "single: N independent games, each a random recorded deal and seat; duplicate: "
              "N/2 deals, each in both seatings, the same deals for every pairing"]
    lines += _table(done)
    error = 100 * math.sqrt(TARGET * (1 - TARGET) / settings["trials"])
    lines.append(f"  (Monte Carlo standard error at 95%: ±{error:.1f} points; where the curve "
                 "is flat the smallest N moves with it)")
    lines += [summary(table, study) for study in done]
    return "\n".join(lines)


def _table(done: Sequence[Study]) -> list[str]:
    """One row per size, two columns (single, duplicate) per study."""
    columns = [(k, c) for k, study in enumerate(done) for c in study.curves]
    labels = [f"{c.mode}{'*' * k}" for k, c in columns]
    lines = ["  " + "  ".join([f"{'N':>5}", *(f"{label:>10}" for label in labels)])]
    if len(done) > 1:
        lines.insert(0, "  " + "; ".join(f"{'*' * k or 'no mark'}: {study.what}"
                                         for k, study in enumerate(done)))
    sizes = sorted(set().union(*(c.points for _, c in columns)))
    # Rows after the first where every column is certain would all read 100.0%.
    certain = [n for n in sizes if all(c.points.get(n, 1.0) == 1.0 for _, c in columns)]
    last = next((n for n in certain if all(m in certain for m in sizes if m > n)), None)
    for n in sizes:
        if last is not None and n > last:
            lines.append(f"  {'…':>5}  (every larger size: 100.0% in every column)")
            break
        lines.append("  " + "  ".join([f"{n:>5}", *(f"{_pct(c.points[n]):>10}" if n in c.points
                                                    else f"{'':>10}" for _, c in columns)]))
    return lines


def summary(table: Table, study: Study) -> str:
    """One study's answer: the smallest N for 95% per mode and their ratio."""
    by_mode = {c.mode: c.smallest for c in study.curves}
    parts = [f"{mode} {n if n is not None else 'beyond the grid'}"
             for mode, n in by_mode.items()]
    text = f"smallest N (games per pairing) for 95% {study.what}: " + ", ".join(parts)
    single, dup = by_mode.get("single"), by_mode.get("duplicate")
    if single is not None and dup is not None:
        text += (f"; duplicate needs {dup / single:.2f}× the games of single matches "
                 f"({single / dup:.1f}× fewer)")
    beyond = max((n for n in by_mode.values() if n is not None), default=0)
    if beyond > table.games_per_pairing:
        text += (f"\n  (sizes above the record's {table.games_per_pairing} games per pairing "
                 "are extrapolated from it)")
    return text


def to_json(table: Table, truth: TrueOrder, done: Sequence[Study],
            settings: Mapping[str, Any]) -> dict[str, Any]:
    bots = table.bots
    return {
        "benchmark": "order", "settings": dict(settings), "game": table.game,
        "bots": list(bots), "deals": len(table.deals), "dropped_games": table.dropped,
        "illegal_actions": dict(zip(bots, table.illegal, strict=True)),
        "true_order": [bots[k] for k in truth.order],
        "means": {bots[k]: truth.means[k] for k in truth.order},
        "established": truth.established,
        "tiers": [[bots[k] for k in tier] for tier in truth.tiers()],
        "separations": [{"ahead": bots[s.ahead], "behind": bots[s.behind], "gap": s.gap,
                         "ci95": [s.low, s.high], "held": s.held, "separated": s.separated}
                        for s in truth.separations],
        "studies": [{"what": study.what, "claimed": study.claimed,
                     "pairs": [[bots[a], bots[b]] for a, b in study.pairs],
                     "curves": {c.mode: {"p_correct": {str(n): p
                                                       for n, p in sorted(c.points.items())},
                                         "smallest_n_95": c.smallest}
                                for c in study.curves}}
                    for study in done],
    }
