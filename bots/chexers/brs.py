"""``brs``: Best-Reply Search with a race evaluation, the strongest Chexers bot here.

Chexers is won by the first colour to exit four pieces, and a piece is lost by being jumped
over. The seed report's agents (:mod:`bots.chexers.agents`) value every piece equally and
every hex of every piece alike (its Equation 1), search 3-4 turns, and model the opponents
either each for itself (maxⁿ) or both against the root (paranoid). This bot changes both
halves; each change was measured on its own (``bots/chexers/README.md``).

**Search: Best-Reply Search** (Schadd & Winands, "Best Reply Search for Multiplayer Games",
IEEE TCIAIG 2011). The root's turns alternate with *one* opponent layer in which only the
opponent whose reply hurts the root most moves, and the other passes. So a search of depth
``d`` sees ``⌈d/2⌉`` of the root's own turns (paranoid sees one in three) and every reply of
either opponent, at about the cost of a two-player search with twice the branching: deep
enough to see a conversion threat and its answer. The passes are not legal Chexers (the
tree holds positions that cannot occur), the price BRS pays for its depth. It is alpha-beta
over the root's value (the root maximises, each reply layer minimises) with iterative
deepening, a transposition table (its best move searched first on the next iteration),
captures and exits first, then the history heuristic. ``paranoid=true`` searches the real
turn order instead (both opponents in turn, each minimising the root's value) for
comparison.

**Evaluation: the race and the material that decides it.** For a colour with ``e`` exits
and ``n`` pieces on the board (its material ``n + e``)::

    V_c = core · min(n + e, 4) + extra · max(n + e − 4, 0)
          − race · Σ_{the 4 − e pieces nearest their exits} (dist + 1)
          − race · missing · max(4 − e − n, 0)
          − step · Σ_{all its pieces} dist

(``dist`` = hexes to the nearest own exit; ``+ 1`` is the exit action). The first four
pieces are what a win needs, so they are worth far more than a fifth; the race counts only
the pieces that will finish, so a piece converted far from its exits no longer costs as
much as it brings; a colour short of four pieces must convert one before it can win. The
root's value is ``V_root − V_opp``, where ``V_opp`` is the stronger opponent's (``mix=100``)
or a blend with their mean (``mix`` < 100): the root cares about the colour that could beat
it. A win is ``+WIN`` less the turns it takes (the sooner the better), a loss the opposite
(the later the better: the opponents are not bound to find it), a draw 0.

**Budget.** ``max_nodes`` interior nodes per decision (default 1000) over all iterations
(the iteration that runs out is kept if its first move — the last iteration's best — was
searched fully and another beat it), up to ``depth`` (default 12). Node counts, not the
clock, end the search, so a decision is a pure function of the position and the options
(``time_ms`` or a request's clock only add a deadline as a safety net). ``quiesce=Q``
extends every leaf whose mover can convert by converting jumps (and standing), at most ``Q``
turns (default 0).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from bots.chexers.agents import ChexersBot, Decision
from bots.chexers.search import SearchTimeout
from engine.chexers import DIST_TO_EXIT, DRAW, EXIT, JUMP, PASS_ACT, Act, Position
from engine.chexers.geometry import NEIGHBOURS, NUM_HEXES
from engine.chexers.position import JUMP_ACTS

WIN: Final = 1_000_000
"""The root's value of a game won right now (less one per turn to it; a loss the opposite,
a draw 0)."""
_PROVEN: Final = WIN - 10_000  # beyond this, a value is a win or a loss within the search
_INF: Final = 1 << 40
_CHECK_EVERY: Final = 64  # nodes between two looks at the clock (deadline only)
_MEMO_LIMIT: Final = 400_000  # colour values cached per bot before the cache is dropped


def _dist_masks() -> tuple[tuple[int, ...], ...]:
    """``DIST_MASKS[c][d]``: the hexes ``d`` steps from colour ``c``'s exits, as bits."""
    out = []
    for dists in DIST_TO_EXIT:
        masks = [0] * 7
        for i, d in enumerate(dists):
            masks[d] |= 1 << i
        out.append(tuple(masks))
    return tuple(out)


DIST_MASKS: Final = _dist_masks()
#: Per hex: ``(neighbour, landing hex, the JUMP)`` for each jump from it that stays on the
#: board (the capture generator's table).
JUMPS: Final = tuple(tuple((nb, far, JUMP_ACTS[(i, far)]) for _step, nb, far in NEIGHBOURS[i]
                           if far >= 0) for i in range(NUM_HEXES))


@dataclass(frozen=True)
class Weights:
    """The evaluation's weights (module docstring); integers, so values are exact."""

    core: int = 24
    extra: int = 10
    race: int = 3
    step: int = 1
    missing: int = 10
    mix: int = 100

    def __post_init__(self) -> None:
        for name in ("core", "extra", "race", "step", "missing", "mix"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer of at least 0, not {value!r}")
        if self.mix > 100:
            raise ValueError(f"mix is a percentage (0-100), not {self.mix}")


class RaceEvaluation:
    """``V_c`` of the module docstring for one set of weights. ``colour(pos, c)`` is cached
    by ``(c, c's pieces, c's exits)`` — all it depends on — so a search that meets the same
    set of pieces again (most children change one colour) pays a dictionary lookup."""

    __slots__ = ("weights", "_material", "_memo")

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        material = [0]
        for k in range(1, 13):
            material.append(material[-1] + (weights.core if k <= 4 else weights.extra))
        self._material = tuple(material)
        self._memo: dict[int, int] = {}

    def colour(self, pos: Position, c: int) -> int:
        bits = pos.bb[c]
        exits = pos.exits[c]
        key = bits | c << 37 | exits << 39
        value = self._memo.get(key)
        if value is None:
            value = self._memo[key] = self._compute(c, bits, exits)
        return value

    def _compute(self, c: int, bits: int, exits: int) -> int:
        w = self.weights
        need = 4 - exits
        race = steps = 0
        masks = DIST_MASKS[c]
        for d in range(7):
            k = (bits & masks[d]).bit_count()
            if k:
                steps += k * d
                if need:
                    t = k if k < need else need
                    race += t * (d + 1)
                    need -= t
        race += need * w.missing  # pieces it does not have: it must convert them first
        return self._material[bits.bit_count() + exits] - w.race * race - w.step * steps

    def combine(self, own: int, a: int, b: int) -> int:
        """The root's value from ``V_root`` and the two opponents' values."""
        hi, lo = (a, b) if a >= b else (b, a)
        mix = self.weights.mix
        return own - (mix * hi + (100 - mix) * ((hi + lo) // 2)) // 100

    def root_value(self, pos: Position, root: int, turns: int = 0) -> int:
        """The value of ``pos`` (finished or not) for ``root``, ``turns`` after the root's
        position (a win or loss counts them)."""
        if pos.result is not None:
            return finished_value(pos.result[0], root, turns)
        return self.combine(self.colour(pos, root), self.colour(pos, (root + 1) % 3),
                            self.colour(pos, (root + 2) % 3))

    def trim(self) -> None:
        """Drop the cache once it is large (called between decisions)."""
        if len(self._memo) > _MEMO_LIMIT:
            self._memo.clear()


def finished_value(winner: int, root: int, turns: int) -> int:
    """The root's value of a game won by ``winner`` (or drawn: ``DRAW``) ``turns`` ahead."""
    if winner == DRAW:
        return 0
    return WIN - turns if winner == root else turns - WIN


def converting_jumps(pos: Position, p: int) -> list[Act]:
    """``p``'s jumps over another colour's piece (those that convert it)."""
    cells = pos.cells
    bits = pos.bb[p]
    out = []
    while bits:
        low = bits & -bits
        bits ^= low
        for nb, far, act in JUMPS[low.bit_length() - 1]:
            c = cells[nb]
            if c >= 0 and c != p and cells[far] < 0:
                out.append(act)
    return out


Reply = tuple[bool, Act]
"""A move of a best-reply layer: ``(first, act)`` — the opponent to move plays ``act`` (and
the other one passes), or, when ``first`` is false, it passes and the other one plays it."""

_Entry = tuple[int, int, int, Any]  # depth, bound (-1 upper, 0 exact, 1 lower), value, move


class BestReplySearch:
    """One decision's search from ``pos`` (left as it was) for the player to move there.

    :meth:`run` deepens 1, 2, … ``max_depth`` until ``max_nodes`` interior nodes are spent
    (or ``deadline``, a ``time.perf_counter()`` value, passes) and returns ``(action, value,
    depth completed)``; :meth:`search_root` searches one depth with no budget. ``paranoid``
    makes the opponent layers the real turns (each opponent minimises the root's value in
    turn) instead of best replies.
    """

    def __init__(self, pos: Position, evaluation: RaceEvaluation, *, max_nodes: int | None = None,
                 paranoid: bool = False, quiesce: int = 0,
                 deadline: float | None = None) -> None:
        if pos.result is not None:
            raise ValueError("the game is over: nothing to search")
        self.pos = pos
        self.ev = evaluation
        self.root = pos.turn % 3
        self.turn = pos.turn
        self.max_nodes = max_nodes if max_nodes is not None else _INF
        self.paranoid = paranoid
        self.quiesce = quiesce
        self.deadline = deadline
        self.nodes = 0
        self.leaves = 0
        self.table: dict[int, _Entry] = {}
        self.history = [[0] * (8 * NUM_HEXES) for _ in range(3)]
        self._partial: tuple[Act, int] | None = None

    # ---- driver -------------------------------------------------------------------------------

    def run(self, max_depth: int) -> tuple[Act, int, int]:
        """Iterative deepening under the budget: ``(action, value, deepest complete depth)``;
        depth 1 always completes."""
        acts = self._order_root(self.pos.legal_actions())
        best: tuple[Act, int] = (acts[0], 0)
        done = 0
        for depth in range(1, max_depth + 1):
            self._partial = None
            try:
                act, value, scored = self._root(depth, acts, limited=depth > 1)
            except SearchTimeout:
                if self._partial is not None:
                    best = self._partial
                break
            best, done = (act, value), depth
            # Best first for the next iteration; a stable sort keeps the order of equals.
            acts = [a for _, a in sorted(scored, key=lambda item: -item[0])]
            if abs(value) >= _PROVEN:
                break  # a forced win or loss: deeper search cannot change it
        return best[0], best[1], done

    def search_root(self, depth: int) -> tuple[Act, int]:
        """One fixed-depth search without budget: the first best action and its value."""
        act, value, _ = self._root(depth, self._order_root(self.pos.legal_actions()),
                                   limited=False)
        return act, value

    def _root(self, depth: int, acts: list[Act], limited: bool
              ) -> tuple[Act, int, list[tuple[int, Act]]]:
        pos = self.pos
        alpha = -_INF
        best = acts[0]
        scored: list[tuple[int, Act]] = []
        budget = self.max_nodes
        if not limited:
            self.max_nodes = _INF
        try:
            for act in acts:
                pos.apply(act)
                try:
                    value = self._search(depth - 1, alpha, _INF)
                finally:
                    pos.undo()
                scored.append((value, act))
                if value > alpha:
                    alpha, best = value, act
                    if scored[1:]:
                        # Better than the previous iteration's best, which was searched
                        # first and fully: worth keeping if the budget runs out now.
                        self._partial = (best, alpha)
        finally:
            self.max_nodes = budget
        return best, alpha, scored

    # ---- the tree -----------------------------------------------------------------------------

    def _tick(self) -> None:
        if self.nodes >= self.max_nodes:
            raise SearchTimeout  # the budget is spent: never expand a node beyond it
        self.nodes += 1
        if (self.deadline is not None and self.nodes % _CHECK_EVERY == 0
                and time.perf_counter() > self.deadline):
            raise SearchTimeout

    def _probe(self, key: int, depth: int, alpha: int, beta: int) -> tuple[int | None, Any]:
        """A stored value that settles this node (or ``None``) and the stored best move."""
        entry = self.table.get(key)
        if entry is None:
            return None, None
        d, bound, value, move = entry
        if d >= depth and (bound == 0 or (bound > 0 and value >= beta)
                           or (bound < 0 and value <= alpha)):
            return value, move
        return None, move

    def _store(self, key: int, depth: int, alpha: int, beta: int, value: int,
               move: Any) -> None:
        bound = -1 if value <= alpha else (1 if value >= beta else 0)
        self.table[key] = (depth, bound, value, move)

    def _search(self, depth: int, alpha: int, beta: int) -> int:
        pos = self.pos
        if pos.result is not None:
            self.leaves += 1
            return self.ev.root_value(pos, self.root, pos.turn - self.turn)
        if depth <= 0:
            return self._leaf(alpha, beta)
        self._tick()
        p = pos.turn % 3
        if p != self.root and not self.paranoid:
            return self._replies(depth, alpha, beta)
        if depth == 1 and not self.quiesce:
            return self._frontier(p, alpha, beta)
        key = pos.key()
        settled, first = self._probe(key, depth, alpha, beta)
        if settled is not None:
            return settled
        maximise = p == self.root
        acts = self._order(pos.legal_actions(), p, first)
        best = -_INF if maximise else _INF
        best_act = None
        lo, hi = alpha, beta
        for act in acts:
            pos.apply(act)
            try:
                value = self._search(depth - 1, lo, hi)
            finally:
                pos.undo()
            if maximise:
                if value > best:
                    best, best_act = value, act
                    lo = max(lo, value)
            elif value < best:
                best, best_act = value, act
                hi = min(hi, value)
            if lo >= hi:
                self.history[p][act.order] += depth * depth
                break
        self._store(key, depth, alpha, beta, best, best_act)
        return best

    def _replies(self, depth: int, alpha: int, beta: int) -> int:
        """A best-reply layer at the first opponent's turn: each move of either opponent
        (the other passes), the root's value minimised."""
        pos = self.pos
        key = pos.key()
        settled, first = self._probe(key, depth, alpha, beta)
        if settled is not None:
            return settled
        o1 = pos.turn % 3
        o2 = (o1 + 1) % 3
        moves1 = pos.legal_actions()
        pos.apply(PASS_ACT)
        moves2 = pos.legal_actions() if pos.result is None else [PASS_ACT]
        pos.undo()
        replies: list[Reply] = [(True, a) for a in moves1 if a is not PASS_ACT]
        replies += [(False, a) for a in moves2 if a is not PASS_ACT]
        if not replies:
            replies = [(True, PASS_ACT)]  # both are stuck: the turn goes round
        cells = pos.cells
        root = self.root
        history = self.history

        def priority(reply: Reply) -> int:
            mine, act = reply
            if reply == first:
                return 1 << 30
            if act.kind == JUMP and cells[act.mid] == root:
                return 1 << 26
            if act.kind == EXIT:
                return 1 << 25
            mover = o1 if mine else o2
            if act.kind == JUMP and cells[act.mid] != mover:
                return 1 << 24
            return history[mover][act.order]

        replies.sort(key=priority, reverse=True)
        best = _INF
        best_reply = None
        hi = beta
        for reply in replies:
            mine, act = reply
            if mine:
                pos.apply(act)
                played = 1
                if pos.result is None:
                    pos.apply(PASS_ACT)
                    played = 2
            else:
                pos.apply(PASS_ACT)
                played = 1
                if pos.result is None:
                    pos.apply(act)
                    played = 2
            try:
                value = self._search(depth - 1, alpha, hi)
            finally:
                for _ in range(played):
                    pos.undo()
            if value < best:
                best, best_reply = value, reply
                if value < hi:
                    hi = value
                    if alpha >= hi:
                        history[o1 if mine else o2][act.order] += depth * depth
                        break
        self._store(key, depth, alpha, beta, best, best_reply)
        return best

    def _frontier(self, p: int, alpha: int, beta: int) -> int:
        """A node of ``p`` whose children are leaves: each child's value from this node's
        three colour values, recomputing only the colours its action changes (the mover's
        and a converted piece's owner's). Converting jumps first (most cut-offs)."""
        pos = self.pos
        ev = self.ev
        cells = pos.cells
        root = self.root
        o1, o2 = (root + 1) % 3, (root + 2) % 3
        values = [ev.colour(pos, 0), ev.colour(pos, 1), ev.colour(pos, 2)]
        acts = pos.legal_actions()
        converting = [a for a in acts if a.kind == JUMP and cells[a.mid] != p]
        if converting:
            acts = converting + [a for a in acts if a.kind != JUMP or cells[a.mid] == p]
        self.leaves += len(acts)
        maximise = p == root
        best = -_INF if maximise else _INF
        for act in acts:
            pos.apply(act)
            if pos.result is not None:
                value = finished_value(pos.result[0], root, pos.turn - self.turn)
            else:
                before = values[p]
                values[p] = ev.colour(pos, p)
                converted = pos.last_converted()
                if converted >= 0:
                    lost = values[converted]
                    values[converted] = ev.colour(pos, converted)
                value = ev.combine(values[root], values[o1], values[o2])
                values[p] = before
                if converted >= 0:
                    values[converted] = lost
            pos.undo()
            if maximise:
                if value > best:
                    best = value
                    if value >= beta:
                        break
            elif value < best:
                best = value
                if value <= alpha:
                    break
        return best

    def _leaf(self, alpha: int, beta: int) -> int:
        self.leaves += 1
        if self.quiesce:
            return self._quiet(alpha, beta, self.quiesce)
        return self.ev.root_value(self.pos, self.root, self.pos.turn - self.turn)

    def _quiet(self, alpha: int, beta: int, left: int) -> int:
        """A leaf in the real turn order: its value (the mover stands), or, when the mover
        can convert, alpha-beta over standing and its converting jumps, ``left`` turns."""
        pos = self.pos
        stand = self.ev.root_value(pos, self.root, pos.turn - self.turn)
        if left <= 0 or pos.result is not None:
            return stand
        p = pos.turn % 3
        jumps = converting_jumps(pos, p)
        if not jumps:
            return stand
        self._tick()
        maximise = p == self.root
        if (stand >= beta) if maximise else (stand <= alpha):
            return stand
        best = stand
        for act in jumps:
            pos.apply(act)
            try:
                value = self._quiet(alpha, beta, left - 1)
            finally:
                pos.undo()
            if maximise:
                if value > best:
                    best = value
                    alpha = max(alpha, value)
            elif value < best:
                best = value
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best

    # ---- move ordering ------------------------------------------------------------------------

    def _order(self, acts: list[Act], p: int, first: Any) -> list[Act]:
        """The stored best move, converting jumps (of a root piece first), exits, then the
        history heuristic plus progress towards ``p``'s exits."""
        cells = self.pos.cells
        history = self.history[p]
        dist = DIST_TO_EXIT[p]
        root = self.root
        scored = []
        for act in acts:
            kind = act.kind
            if act is first:
                score = 1 << 30
            elif kind == JUMP and cells[act.mid] != p:
                score = 1 << 26 if cells[act.mid] == root else 1 << 24
            elif kind == EXIT:
                score = 1 << 25
            elif act is PASS_ACT:
                score = 0
            else:
                score = history[act.order] + 4 * (dist[act.frm] - dist[act.to])
            scored.append((score, act))
        scored.sort(key=lambda item: -item[0])
        return [act for _, act in scored]

    def _order_root(self, acts: list[Act]) -> list[Act]:
        return self._order(acts, self.root, None)


class BrsBot(ChexersBot):
    """The ``brs`` bot: Best-Reply Search with the race evaluation (module docstring).

    Options: ``max_nodes`` (default 1000), ``depth`` (deepest iteration, default 12),
    ``paranoid`` (default false), ``quiesce`` (default 0), the weights ``core``, ``extra``,
    ``race``, ``step``, ``missing``, ``mix`` (:class:`Weights`), and the base class's
    ``time_ms`` / ``clock_share`` (a deadline on top of the node budget). Deterministic: the
    same position and options give the same action (``seed`` is not used)."""

    name = "brs"
    default_depth = 12

    def __init__(self, seed: int | None = None, *, max_nodes: int = 1000,
                 depth: int | None = None, paranoid: bool = False, quiesce: int = 0,
                 time_ms: float | None = None, clock_share: float | None = None,
                 **weights: Any) -> None:
        extra: Mapping[str, Any] = {} if clock_share is None else {"clock_share": clock_share}
        super().__init__(seed, depth=depth, time_ms=time_ms, max_nodes=max_nodes,
                         quiesce=quiesce, **extra)
        if not isinstance(paranoid, bool):
            raise ValueError(f"paranoid must be true or false, not {paranoid!r}")
        self.paranoid = paranoid
        unknown = set(weights) - set(Weights.__dataclass_fields__)
        if unknown:
            raise TypeError(f"unknown option(s) for brs: {', '.join(sorted(unknown))}")
        self.evaluation = RaceEvaluation(Weights(**weights))

    def _decide(self, pos: Position, deadline: float | None) -> Decision:
        self.evaluation.trim()
        search = BestReplySearch(pos, self.evaluation, max_nodes=self.max_nodes,
                                 paranoid=self.paranoid, quiesce=self.quiesce,
                                 deadline=deadline)
        act, value, depth = search.run(self.depth)
        mode = "paranoid" if self.paranoid else "brs"
        return Decision(mode, depth, value, act, search.nodes, search.leaves)
