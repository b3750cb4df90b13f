"""Plain reference searches for the Chexers bot tests: textbook recursion on the real
``apply``/``undo``, every leaf evaluated in full by the evaluator, no pruning, no leaf scan.
Slow and obviously right; the fast searches must agree with them."""

from __future__ import annotations

from bots.chexers import Evaluator
from engine.chexers import Position
from engine.rng import Rng


def maxn_vector(pos: Position, ev: Evaluator, depth: int, root: int, target: int = -1,
                cautious: bool = False) -> list[int]:
    """Maxⁿ vector (``target`` ≥ 0: the root minimises ``v[target]``, as offensive).
    ``cautious``: an opponent's tie goes to the smaller ``v[root]``, the root's offensive tie
    to the larger ``v[root]``; otherwise ties keep the first child."""
    if pos.result is not None or depth == 0:
        return ev.vector(pos)
    p = pos.turn % 3
    best: list[int] | None = None
    for act in pos.legal_actions():
        pos.apply(act)
        v = maxn_vector(pos, ev, depth - 1, root, target, cautious)
        pos.undo()
        if best is None:
            best = v
        elif p == root and target >= 0:
            if v[target] < best[target] or (cautious and v[target] == best[target]
                                             and v[root] > best[root]):
                best = v
        elif v[p] > best[p] or (cautious and p != root and v[p] == best[p]
                                and v[root] < best[root]):
            best = v
    assert best is not None
    return best


def maxn_root(pos: Position, ev: Evaluator, depth: int, target: int = -1,
              cautious: bool = False) -> tuple[str, list[int]]:
    """The first root action with the best vector, as text, and that vector."""
    root = pos.turn % 3
    best: tuple[str, list[int]] | None = None
    for act in pos.legal_actions():
        pos.apply(act)
        v = maxn_vector(pos, ev, depth - 1, root, target, cautious)
        pos.undo()
        if best is None:
            best = (str(act), v)
        elif target >= 0:
            if v[target] < best[1][target] or (cautious and v[target] == best[1][target]
                                               and v[root] > best[1][root]):
                best = (str(act), v)
        elif v[root] > best[1][root]:
            best = (str(act), v)
    assert best is not None
    return best


def minimax(pos: Position, ev: Evaluator, depth: int, root: int) -> int:
    """Plain max/min of ``U_root``: the root maximises, both opponents minimise."""
    if pos.result is not None or depth == 0:
        return ev.vector(pos)[root]
    values = []
    for act in pos.legal_actions():
        pos.apply(act)
        values.append(minimax(pos, ev, depth - 1, root))
        pos.undo()
    return max(values) if pos.turn % 3 == root else min(values)


def minimax_root(pos: Position, ev: Evaluator, depth: int) -> tuple[str, int]:
    root = pos.turn % 3
    best: tuple[str, int] | None = None
    for act in pos.legal_actions():
        pos.apply(act)
        v = minimax(pos, ev, depth - 1, root)
        pos.undo()
        if best is None or v > best[1]:
            best = (str(act), v)
    assert best is not None
    return best


def sample_positions(count: int, seed: int, *, every: int = 7, repeat_bias: bool = False
                     ) -> list[Position]:
    """Positions met in seeded random games, one every ``every`` turns (game histories
    included). ``repeat_bias`` makes the players step back often, so histories hold keys that
    already occurred two or three times (repetition draws inside the search)."""
    out: list[Position] = []
    rng = Rng(seed)
    while len(out) < count:
        pos = Position.start()
        last: dict[int, tuple[int, int]] = {}
        while pos.result is None and len(out) < count:
            legal = pos.legal_actions()
            act = legal[rng.below(len(legal))]
            p = pos.turn % 3
            if repeat_bias and p in last and rng.below(4):
                back = [a for a in legal if a.kind == 1 and (a.to, a.frm) == last[p]]
                if back:
                    act = back[0]
            if act.kind == 1:
                last[p] = (act.frm, act.to)
            pos.apply(act)
            if pos.result is None and pos.turn % every == 0 and len(pos.legal_actions()) > 1:
                out.append(Position.from_notation(pos.to_notation()))
    return out
