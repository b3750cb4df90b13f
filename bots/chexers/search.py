"""Search for the seed report's agents (rules §9.4-§9.6) on the fast :class:`Position`.

One :class:`Search` is made per decision from the position to decide in. It plays and takes
back actions on that position (``apply``/``undo``), so a node costs no allocation beyond its
action list, and the repetition history it consults is the game's real one plus the search
path: a node whose key reaches its 4th occurrence is a draw, exactly as the rules say (§5).

Conventions (§9.1): depth counts turns (a PASS is a turn), children come in the canonical
order, and a child replaces the best so far only if strictly better, so ties go to the first
action. Utilities are those of :class:`~bots.chexers.evaluation.Evaluator`.

Speed-ups that never change a result:

* **Leaf scan** (the report's lazy evaluation, taken further): the last ply of a search does
  not play the children. Each child's utility is the parent's plus the change its action
  makes (a move shifts one piece, a jump may also convert one, an exit banks one), its
  repetition key is the parent's with a few bits flipped, and the component that decides at
  that node is computed first; a child's full vector only when it becomes the best. Only for
  the ``"sum"`` evaluation (the others are not incremental).
* **Shallow pruning** in maxⁿ (flag, default on): exact, because utilities are ≥ 0 and sum to
  at most ``MAXSUM`` (see :meth:`Search.maxn`).
* **Alpha-beta** in paranoid (fail-hard negamax, the report's pseudo-code).

A deadline (``time.perf_counter()`` value) makes a search raise :class:`SearchTimeout`; the
position is restored before the exception leaves (every ``apply`` is paired with an ``undo``
in a ``finally``), so iterative deepening can stop and keep its last complete result.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bots.chexers.evaluation import PIECE_VALUE, Evaluator
from engine.chexers import DIST_TO_EXIT, EXIT, JUMP, MOVE, Act, Position
from engine.chexers.position import MAX_TURNS, REPETITIONS, key_of

_BIT: Final = tuple(1 << i for i in range(38))
_SHIFT: Final = (0, 37, 74)
#: The to-move part of a repetition key, by ``T mod 3`` (taken from the engine's own key).
_TO_MOVE: Final = tuple(key_of((0, 0, 0), t) for t in range(3))
_EXITS_TO_WIN: Final = 4
_INF: Final = 1 << 60
_CHECK_EVERY: Final = 64  # nodes between two looks at the clock


class SearchTimeout(Exception):
    """The deadline passed or the node budget ran out; the position is back as it was."""


@dataclass
class SearchStats:
    """What one search did: interior ``nodes`` expanded, ``leaves`` scored, shallow
    ``cutoffs`` (maxⁿ) or beta cut-offs (paranoid)."""

    nodes: int = 0
    leaves: int = 0
    cutoffs: int = 0


@dataclass(frozen=True)
class RootResult:
    """A root decision: the chosen ``action``, its ``value`` (a vector for maxⁿ-like
    searches, the root's utility for paranoid) and the value of every root child
    (``children``, in canonical order; exact for those that tie for the best)."""

    action: Act
    value: tuple[int, ...] | int
    children: tuple[tuple[Act, tuple[int, ...] | int], ...]


class Search:
    """Searches from ``pos`` (left as it was) for the player to move there (the *root*).

    ``evaluator`` defaults to the ``"sum"`` utility of this game. ``deadline``: a
    ``time.perf_counter()`` value after which :class:`SearchTimeout` is raised; ``max_nodes``
    likewise raises it once more interior nodes than that were expanded (a budget that, unlike
    the clock, gives the same answer on any machine). ``leaf_scan=False`` plays and evaluates
    every leaf instead (same results, slower: the switch exists to measure what the scan
    saves). ``cautious`` changes how maxⁿ-like searches break ties (default off: the first
    child, §9.1): at an opponent's node a tie goes to the child worst for the root, and at the
    root's own offensive node to the child best for the root (see :meth:`maxn`).

    ``quiesce`` (default 0: off): a leaf reached by a *converting* jump (one over another
    colour's piece) is in the middle of an exchange, so the search goes on from it by
    converting jumps only, at most ``quiesce`` more turns. At each such node the mover may
    also *stand* (keep the static value; it comes first, so a tie keeps it) and converts only
    when that is better for it by the search's own rule (maxⁿ: its own component, cautious
    ties included; the offensive root: the target's; paranoid: alpha-beta with stand-pat); a
    mover without a converting jump stands. Leaves reached by any other action are scored
    statically as before, which keeps the extension cheap (the leaf scan plays only the
    converting jumps of the last ply). Deterministic (canonical order, the same tie rules).

    ``rival`` (default -1: off; paranoid only): an opponent's colour, for a duel. Paranoid's
    value is then the zero-sum ``U_root − U_rival`` instead of ``U_root``: a win is worth
    ``+win``, a loss ``−win``, a draw 0 (the leaf scan stays exact: a child's difference is the
    child's vector from :meth:`_child_vector`).
    """

    def __init__(self, pos: Position, evaluator: Evaluator | None = None, *,
                 deadline: float | None = None, prune: bool = True,
                 leaf_scan: bool = True, cautious: bool = False,
                 max_nodes: int | None = None, quiesce: int = 0,
                 rival: int = -1) -> None:
        if pos.result is not None:
            raise ValueError("the game is over: nothing to search")
        if isinstance(quiesce, bool) or not isinstance(quiesce, int) or quiesce < 0:
            raise ValueError(f"quiesce must be an integer of at least 0, not {quiesce!r}")
        self.pos = pos
        self.root = pos.turn % 3
        self.ev = evaluator or Evaluator.for_position(pos)
        self.maxsum = self.ev.maxsum
        self.quiesce = quiesce
        if rival >= 0 and (rival == self.root or rival > 2 or quiesce):
            raise ValueError("rival must be an opponent's colour, and without quiesce")
        self.rival = rival
        self.fast = leaf_scan and self.ev.variant == "sum"
        self.prune = prune
        self.cautious = cautious
        self.deadline = deadline
        self.max_nodes = max_nodes if max_nodes is not None else _INF
        self.stats = SearchStats()
        self.target = -1  # offensive: the colour the root minimises; -1 = plain maxⁿ

    # ---- shared helpers ----------------------------------------------------------------------

    def _tick(self) -> None:
        stats = self.stats
        if stats.nodes >= self.max_nodes:
            raise SearchTimeout  # the budget is spent: never expand a node beyond it
        stats.nodes += 1
        if (self.deadline is not None and stats.nodes % _CHECK_EVERY == 0
                and time.perf_counter() > self.deadline):
            raise SearchTimeout

    def _child_outcome(self, act: Act, p: int, base_key: int, next_to_move: int,
                       turn1: int) -> int:
        """Without playing ``act``: ``-2`` if the child goes on, ``-1`` if it is a draw, else
        the winner (``p``). Same order as the rules: repetition, turn limit, win."""
        kind = act.kind
        sp = _SHIFT[p]
        if kind == MOVE:
            key = base_key ^ ((_BIT[act.frm] | _BIT[act.to]) << sp)
        elif kind == JUMP:
            key = base_key ^ ((_BIT[act.frm] | _BIT[act.to]) << sp)
            owner = self.pos.cells[act.mid]
            if owner != p:
                key ^= (_BIT[act.mid] << sp) ^ (_BIT[act.mid] << _SHIFT[owner])
        elif kind == EXIT:
            key = base_key ^ (_BIT[act.frm] << sp)
        else:
            key = base_key
        if self.pos.history.get(key | next_to_move, 0) + 1 >= REPETITIONS:
            return -1
        if turn1 >= MAX_TURNS:
            return -1
        if kind == EXIT and self.pos.exits[p] + 1 >= _EXITS_TO_WIN:
            return p
        return -2

    def _child_vector(self, act: Act, p: int, u: Sequence[int], outcome: int) -> list[int]:
        """The vector of the child reached by ``act`` from a node with vector ``u``, whose
        outcome :meth:`_child_outcome` gave (leaf scan, ``"sum"`` only)."""
        if outcome == -1:
            d = self.ev.draw
            return [d, d, d]
        if outcome >= 0:
            out = [0, 0, 0]
            out[outcome] = self.ev.win
            return out
        v = [u[0], u[1], u[2]]
        v[p] += _own_delta(act, p, self.pos.cells)
        if act.kind == JUMP:
            owner = self.pos.cells[act.mid]
            if owner != p:
                v[owner] -= PIECE_VALUE[owner][act.mid]
        return v

    def _base(self) -> tuple[int, int, int]:
        """The board part of the current key, the to-move part after one more turn, and
        ``T + 1``."""
        bb = self.pos.bb
        turn1 = self.pos.turn + 1
        return bb[0] | bb[1] << 37 | bb[2] << 74, _TO_MOVE[turn1 % 3], turn1

    def child_vectors(self) -> list[tuple[Act, list[int]]]:
        """Every child's vector as the leaf scan computes it, without playing the children
        (``"sum"`` evaluation only). For tests and diagnostics: it must equal playing each
        action and evaluating the result."""
        if self.ev.variant != "sum":
            raise ValueError("the leaf scan needs the 'sum' evaluation")
        pos = self.pos
        p = pos.turn % 3
        base_key, next_to_move, turn1 = self._base()
        u = [self.ev.static(pos, 0), self.ev.static(pos, 1), self.ev.static(pos, 2)]
        return [(act, self._child_vector(act, p, u, self._child_outcome(
            act, p, base_key, next_to_move, turn1))) for act in pos.legal_actions()]

    # ---- maxⁿ and offensive --------------------------------------------------------------------

    def maxn(self, depth: int) -> RootResult:
        """Maxⁿ to ``depth`` turns (``depth`` ≥ 1). With ``prune`` (shallow pruning): a node
        stops as soon as its player is sure of ``best[p] ≥ MAXSUM − parent_best``, since the
        parent's player (another colour) could then get at most ``parent_best`` here and it
        only switches on a strict improvement; so the chosen action never changes.
        Each root child is searched with a bound one looser than the root's best, so a child
        that *ties* the best is always searched fully (RandomMaxn needs every tie exact).

        ``cautious`` (an opponent's ties resolved against the root): maxⁿ predicts each
        opponent's reply by its own utility alone, and in Chexers most replies tie (every
        one-step advance is worth +1), so "the first tied child" is an arbitrary guess about
        which of them comes; the cautious guess is the one that hurts the root most. Pruning
        stays exact: the bound passed down is one tighter, so a cut-off child could not even
        tie at its parent."""
        return self._maxn_root(depth, -1)

    def offensive(self, depth: int, target: int) -> RootResult:
        """Maxⁿ where the root player picks the child with the smallest ``v[target]`` (the
        others still maximise their own component); no pruning (§9.6)."""
        if target == self.root:
            raise ValueError("offensive search targets an opponent")
        return self._maxn_root(depth, target)

    def _maxn_root(self, depth: int, target: int) -> RootResult:
        if depth < 1:
            raise ValueError("depth must be at least 1")
        self.target = target
        prune = self.prune and target < 0
        pos = self.pos
        root = self.root
        children: list[tuple[Act, tuple[int, ...] | int]] = []
        best: list[int] | None = None
        best_act: Act | None = None
        best_score = -_INF
        tie_own = self.cautious and target >= 0
        quiet = self.quiesce if depth == 1 else 0
        cells = pos.cells
        for act in pos.legal_actions():
            bound = self.maxsum - best_score + 1 if prune and best is not None else _INF
            converts = quiet and act.kind == JUMP and cells[act.mid] != root
            pos.apply(act)
            try:
                v = self._maxn_quiet(quiet) if converts else self._maxn(depth - 1, bound)
            finally:
                pos.undo()
            children.append((act, tuple(v)))
            score = -v[target] if target >= 0 else v[root]
            if score > best_score or (tie_own and score == best_score and best is not None
                                      and v[root] > best[root]):
                best, best_act, best_score = v, act, score
        assert best is not None and best_act is not None
        return RootResult(best_act, tuple(best), tuple(children))

    def _maxn(self, depth: int, bound: int) -> list[int]:
        """The vector of the current node; stop early once the mover's best ≥ ``bound``."""
        pos = self.pos
        ev = self.ev
        if pos.result is not None:
            self.stats.leaves += 1
            return ev.terminal(pos)
        if depth <= 0:
            self.stats.leaves += 1
            return ev.vector(pos)
        self._tick()
        p = pos.turn % 3
        offensive = p == self.root and self.target >= 0
        if depth == 1 and self.fast:
            if self.quiesce:
                return self._maxn_scan_quiet(p, bound, offensive)
            return self._maxn_scan(p, bound, offensive)
        prune = self.prune and not offensive and self.target < 0
        best: list[int] | None = None
        best_score = -_INF
        maxsum = self.maxsum
        key, sign, tie_sign = self._choice(p, offensive)
        root = self.root
        # With cautious ties the child bound is one tighter, so a pruned child can never
        # even tie.
        slack = 1 if self.cautious else 0
        quiet = self.quiesce if depth == 1 else 0
        cells = pos.cells
        for act in pos.legal_actions():
            converts = quiet and act.kind == JUMP and cells[act.mid] != p
            pos.apply(act)
            try:
                if converts:
                    v = self._maxn_quiet(quiet)
                else:
                    v = self._maxn(depth - 1, maxsum - best_score + slack
                                   if prune and best is not None else _INF)
            finally:
                pos.undo()
            score = sign * v[key]
            if score > best_score or (tie_sign and score == best_score and best is not None
                                      and tie_sign * v[root] < tie_sign * best[root]):
                best, best_score = v, score
                if prune and best_score >= bound:
                    self.stats.cutoffs += 1
                    break
        assert best is not None
        return best

    def _choice(self, p: int, offensive: bool) -> tuple[int, int, int]:
        """How the mover ``p`` picks a child in maxⁿ/offensive: the component it looks at
        (``key``), ``sign`` (1: maximise it; -1: the root minimising the target's) and
        ``tie_sign`` for cautious ties — 1 for an opponent (a tie goes to the child with the
        smaller ``v[root]``), -1 for the root's own offensive tie (the larger), 0 otherwise."""
        key = self.target if offensive else p
        sign = -1 if offensive else 1
        tie_sign = 0 if not self.cautious else (-1 if offensive else (1 if p != self.root else 0))
        return key, sign, tie_sign

    def _captures(self) -> list[Act]:
        """The mover's converting jumps (over another colour's piece), canonical order."""
        pos = self.pos
        cells = pos.cells
        p = pos.turn % 3
        return [a for a in pos.legal_actions() if a.kind == JUMP and cells[a.mid] != p]

    def _maxn_quiet(self, left: int) -> list[int]:
        """A maxⁿ/offensive leaf reached by a converting jump (game going on or over): the
        static vector, or, with ``left`` ≥ 1 turns to go and converting jumps for the mover,
        the best of standing (first) and each converting jump, chosen as in :meth:`_maxn`
        (cautious ties included). No pruning here: the value is exact, so a parent's bound
        stays valid."""
        pos = self.pos
        ev = self.ev
        self.stats.leaves += 1
        if pos.result is not None:
            return ev.terminal(pos)
        best = ev.vector(pos)
        if left <= 0:
            return best
        captures = self._captures()
        if not captures:
            return best
        self._tick()
        p = pos.turn % 3
        root = self.root
        offensive = p == root and self.target >= 0
        key, sign, tie_sign = self._choice(p, offensive)
        best_score = sign * best[key]
        for act in captures:
            pos.apply(act)
            try:
                v = self._maxn_quiet(left - 1)
            finally:
                pos.undo()
            score = sign * v[key]
            if score > best_score or (tie_sign and score == best_score
                                      and tie_sign * v[root] < tie_sign * best[root]):
                best, best_score = v, score
        return best

    def _maxn_scan_quiet(self, p: int, bound: int, offensive: bool) -> list[int]:
        """:meth:`_maxn_scan` with quiescence: converting jumps are played and extended
        (:meth:`_maxn_quiet`), every other child is scored without playing it; the choice is
        :meth:`_maxn`'s, child by child."""
        pos = self.pos
        cells = pos.cells
        base_key, next_to_move, turn1 = self._base()
        u = [self.ev.static(pos, 0), self.ev.static(pos, 1), self.ev.static(pos, 2)]
        prune = self.prune and not offensive and self.target < 0
        root = self.root
        key, sign, tie_sign = self._choice(p, offensive)
        quiet = self.quiesce
        best: list[int] | None = None
        best_score = -_INF
        for act in pos.legal_actions():
            if act.kind == JUMP and cells[act.mid] != p:
                pos.apply(act)
                try:
                    v = self._maxn_quiet(quiet)
                finally:
                    pos.undo()
            else:
                self.stats.leaves += 1
                v = self._child_vector(act, p, u, self._child_outcome(
                    act, p, base_key, next_to_move, turn1))
            score = sign * v[key]
            if score > best_score or (tie_sign and score == best_score and best is not None
                                      and tie_sign * v[root] < tie_sign * best[root]):
                best, best_score = v, score
                if prune and best_score >= bound:
                    self.stats.cutoffs += 1
                    break
        assert best is not None
        return best

    def _maxn_scan(self, p: int, bound: int, offensive: bool) -> list[int]:
        """Last ply of maxⁿ/offensive without playing the children (see the module doc)."""
        pos = self.pos
        cells = pos.cells
        base_key, next_to_move, turn1 = self._base()
        u = [self.ev.static(pos, 0), self.ev.static(pos, 1), self.ev.static(pos, 2)]
        acts = pos.legal_actions()
        self.stats.leaves += len(acts)
        prune = self.prune and self.target < 0
        win = self.ev.win
        best_act: Act | None = None
        best_outcome = -2
        if offensive:
            # Root minimises v[target]; the root's own moves never change v[target] except by
            # converting a target piece, or by ending the game.
            t = self.target
            cautious = self.cautious
            best_score = -_INF
            best_own = -_INF
            up = u[p]
            for act in acts:
                outcome = self._child_outcome(act, p, base_key, next_to_move, turn1)
                if outcome == -2:
                    vt = u[t]
                    if act.kind == JUMP and cells[act.mid] == t:
                        vt -= PIECE_VALUE[t][act.mid]
                elif outcome == -1:
                    vt = self.ev.draw
                else:
                    vt = win if outcome == t else 0
                if -vt > best_score:
                    best_score, best_act, best_outcome = -vt, act, outcome
                    if cautious:
                        best_own = _own_after(act, p, up, cells, outcome, self.ev)
                elif cautious and -vt == best_score:
                    own = _own_after(act, p, up, cells, outcome, self.ev)
                    if own > best_own:
                        best_own, best_act, best_outcome = own, act, outcome
        else:
            best_score = -_INF
            up = u[p]
            root = self.root
            cautious = self.cautious and p != root
            best_root = _INF
            for act in acts:
                outcome = self._child_outcome(act, p, base_key, next_to_move, turn1)
                if outcome == -2:
                    score = up + _own_delta(act, p, cells)
                elif outcome == -1:
                    score = self.ev.draw
                else:
                    score = win
                if score > best_score:
                    best_score, best_act, best_outcome = score, act, outcome
                    if prune and score >= bound:
                        self.stats.cutoffs += 1
                        break
                    if cautious:
                        best_root = _root_after(act, root, u, cells, outcome, self.ev)
                elif cautious and score == best_score:
                    vr = _root_after(act, root, u, cells, outcome, self.ev)
                    if vr < best_root:
                        best_root, best_act, best_outcome = vr, act, outcome
        assert best_act is not None
        return self._child_vector(best_act, p, u, best_outcome)

    # ---- paranoid ------------------------------------------------------------------------------

    def paranoid(self, depth: int) -> RootResult:
        """Paranoid search to ``depth`` turns as the report's negamax alpha-beta (§9.5): the
        two opponents are one side minimising ``U_root``. ``value`` is the root's utility;
        the action is the first child that strictly raised alpha. Children of the root are
        searched with the full window from alpha, so ``children`` holds exact values only for
        the best child (the others are upper bounds)."""
        if depth < 1:
            raise ValueError("depth must be at least 1")
        pos = self.pos
        alpha = -_INF
        best_act: Act | None = None
        children: list[tuple[Act, tuple[int, ...] | int]] = []
        quiet = self.quiesce if depth == 1 else 0
        cells = pos.cells
        root = self.root
        for act in pos.legal_actions():
            converts = quiet and act.kind == JUMP and cells[act.mid] != root
            pos.apply(act)
            try:
                # The child's mover is an opponent: negate, window (-inf, -alpha).
                if converts:
                    value = -self._ab_quiet(pos.turn % 3, -_INF, -alpha, quiet)
                else:
                    value = -self._ab(depth - 1, pos.turn % 3, -_INF, -alpha)
            finally:
                pos.undo()
            children.append((act, value))
            if value > alpha:
                alpha, best_act = value, act
        assert best_act is not None
        return RootResult(best_act, alpha, tuple(children))

    def _root_utility(self) -> int:
        pos = self.pos
        rival = self.rival
        if rival >= 0:
            if pos.result is not None:
                winner = pos.result[0]
                return 0 if winner < 0 else (self.ev.win if winner == self.root
                                             else -self.ev.win)
            return self.ev.static(pos, self.root) - self.ev.static(pos, rival)
        if pos.result is not None:
            return self.ev.terminal(pos)[self.root]
        return self.ev.static(pos, self.root)

    def _ab(self, depth: int, cur: int, alpha: int, beta: int) -> int:
        """The report's ALPHABETA: the value from ``cur``'s side (the root's utility, negated
        for the opponents), fail-hard."""
        pos = self.pos
        root = self.root
        if pos.result is not None or depth <= 0:
            self.stats.leaves += 1
            u = self._root_utility()
            return u if cur == root else -u
        self._tick()
        if depth == 1 and self.fast:
            return self._ab_scan(cur, alpha, beta)
        quiet = self.quiesce if depth == 1 else 0
        cells = pos.cells
        p = pos.turn % 3
        for act in pos.legal_actions():
            converts = quiet and act.kind == JUMP and cells[act.mid] != p
            pos.apply(act)
            try:
                nxt = pos.turn % 3
                if converts:
                    value = (-self._ab_quiet(nxt, -beta, -alpha, quiet)
                             if cur == root or nxt == root
                             else self._ab_quiet(nxt, alpha, beta, quiet))
                elif cur == root or nxt == root:
                    value = -self._ab(depth - 1, nxt, -beta, -alpha)
                else:
                    value = self._ab(depth - 1, nxt, alpha, beta)
            finally:
                pos.undo()
            if value > alpha:
                alpha = value
            if alpha >= beta:
                self.stats.cutoffs += 1
                return beta
        return alpha

    def _ab_quiet(self, cur: int, alpha: int, beta: int, left: int) -> int:
        """A paranoid leaf reached by a converting jump, from ``cur``'s side as :meth:`_ab`:
        the static value (stand-pat), or, with ``left`` ≥ 1 and converting jumps for the
        mover, the fail-hard alpha-beta over standing and those jumps."""
        pos = self.pos
        root = self.root
        self.stats.leaves += 1
        u = self._root_utility()
        stand = u if cur == root else -u
        if pos.result is not None or left <= 0:
            return stand
        captures = self._captures()
        if not captures:
            return stand
        self._tick()
        if stand >= beta:
            self.stats.cutoffs += 1
            return beta
        if stand > alpha:
            alpha = stand
        for act in captures:
            pos.apply(act)
            try:
                nxt = pos.turn % 3
                if cur == root or nxt == root:
                    value = -self._ab_quiet(nxt, -beta, -alpha, left - 1)
                else:
                    value = self._ab_quiet(nxt, alpha, beta, left - 1)
            finally:
                pos.undo()
            if value > alpha:
                alpha = value
            if alpha >= beta:
                self.stats.cutoffs += 1
                return beta
        return alpha

    def _ab_scan(self, cur: int, alpha: int, beta: int) -> int:
        """Last ply of :meth:`_ab` without playing the children: each child is worth
        ``±U_root(child)`` to ``cur`` (``+`` for the root's side)."""
        pos = self.pos
        cells = pos.cells
        root = self.root
        p = pos.turn % 3
        base_key, next_to_move, turn1 = self._base()
        rival = self.rival
        u_root = self.ev.static(pos, root)
        if rival >= 0:
            u_all = [self.ev.static(pos, 0), self.ev.static(pos, 1), self.ev.static(pos, 2)]
        sign = 1 if cur == root else -1
        win = self.ev.win
        acts = pos.legal_actions()
        quiet = self.quiesce
        for act in acts:
            if quiet and act.kind == JUMP and cells[act.mid] != p:
                pos.apply(act)
                try:
                    nxt = pos.turn % 3
                    value = (-self._ab_quiet(nxt, -beta, -alpha, quiet)
                             if cur == root or nxt == root
                             else self._ab_quiet(nxt, alpha, beta, quiet))
                finally:
                    pos.undo()
                if value > alpha:
                    alpha = value
                if alpha >= beta:
                    self.stats.cutoffs += 1
                    return beta
                continue
            self.stats.leaves += 1
            outcome = self._child_outcome(act, p, base_key, next_to_move, turn1)
            if outcome == -2:
                if rival >= 0:
                    v = self._child_vector(act, p, u_all, outcome)
                    u = v[root] - v[rival]
                elif p == root:
                    u = u_root + _own_delta(act, p, cells)
                elif act.kind == JUMP and cells[act.mid] == root:
                    u = u_root - PIECE_VALUE[root][act.mid]
                else:
                    u = u_root
            elif outcome == -1:
                u = 0 if rival >= 0 else self.ev.draw
            elif rival >= 0:
                u = win if outcome == root else -win
            else:
                u = win if outcome == root else 0
            value = sign * u
            if value > alpha:
                alpha = value
            if alpha >= beta:
                self.stats.cutoffs += 1
                return beta
        return alpha


def _own_delta(act: Act, p: int, cells: Sequence[int]) -> int:
    """How much ``act`` changes ``U_p`` of its mover ``p`` (``"sum"`` utility, game goes on):
    a move or jump shifts a piece (``dist(frm) − dist(to)``), a jump over another colour
    gains the converted piece, an exit banks 20 for a piece that was worth 18 there."""
    kind = act.kind
    dist = DIST_TO_EXIT[p]
    if kind == MOVE:
        return dist[act.frm] - dist[act.to]
    if kind == JUMP:
        delta = dist[act.frm] - dist[act.to]
        if cells[act.mid] != p:
            delta += PIECE_VALUE[p][act.mid]
        return delta
    if kind == EXIT:
        return 20 - PIECE_VALUE[p][act.frm]
    return 0


def _own_after(act: Act, p: int, up: int, cells: Sequence[int], outcome: int,
               ev: Evaluator) -> int:
    """``U_p`` of the child ``act`` of mover ``p`` reaches (``outcome`` as
    :meth:`Search._child_outcome` gave it; ``up`` = ``U_p`` now)."""
    if outcome == -2:
        return up + _own_delta(act, p, cells)
    if outcome == -1:
        return ev.draw
    return ev.win if outcome == p else 0


def _root_after(act: Act, root: int, u: Sequence[int], cells: Sequence[int], outcome: int,
                ev: Evaluator) -> int:
    """``U_root`` of the child an opponent's ``act`` reaches: lower only if the jump converts
    a root piece, a draw's value, or 0 when the opponent wins."""
    if outcome == -2:
        if act.kind == JUMP and cells[act.mid] == root:
            return u[root] - PIECE_VALUE[root][act.mid]
        return u[root]
    if outcome == -1:
        return ev.draw
    return 0

