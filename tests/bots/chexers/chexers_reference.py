"""Plain reference searches for the Chexers bot tests: textbook recursion on the real
``apply``/``undo``, every leaf evaluated in full by the evaluator, no pruning, no leaf scan.
Slow and obviously right; the fast searches must agree with them."""

from __future__ import annotations

from bots.chexers import Evaluator
from engine.chexers import JUMP, Act, Position
from engine.rng import Rng


def converting_jumps(pos: Position) -> list[Act]:
    """The mover's jumps over another colour's piece, in canonical order."""
    p = pos.turn % 3
    return [a for a in pos.legal_actions() if a.kind == JUMP and pos.cells[a.mid] != p]


def _better(v: list[int], best: list[int], p: int, root: int, target: int,
            cautious: bool) -> bool:
    """Whether mover ``p`` prefers ``v`` to ``best`` (maxⁿ, offensive root, cautious ties)."""
    if p == root and target >= 0:
        return v[target] < best[target] or (cautious and v[target] == best[target]
                                            and v[root] > best[root])
    return v[p] > best[p] or (cautious and p != root and v[p] == best[p]
                              and v[root] < best[root])


def quiet_vector(pos: Position, ev: Evaluator, left: int, root: int, target: int = -1,
                 cautious: bool = False) -> list[int]:
    """Quiescence after a converting jump: the mover stands (the static vector, first) or
    plays one of its converting jumps, ``left`` more turns at most."""
    best = ev.vector(pos)
    if pos.result is not None or left == 0:
        return best
    p = pos.turn % 3
    for act in converting_jumps(pos):
        pos.apply(act)
        v = quiet_vector(pos, ev, left - 1, root, target, cautious)
        pos.undo()
        if _better(v, best, p, root, target, cautious):
            best = v
    return best


def maxn_vector(pos: Position, ev: Evaluator, depth: int, root: int, target: int = -1,
                cautious: bool = False, quiesce: int = 0) -> list[int]:
    """Maxⁿ vector (``target`` ≥ 0: the root minimises ``v[target]``, as offensive).
    ``cautious``: an opponent's tie goes to the smaller ``v[root]``, the root's offensive tie
    to the larger ``v[root]``; otherwise ties keep the first child. ``quiesce``: a leaf reached
    by a converting jump is worth :func:`quiet_vector` instead."""
    if pos.result is not None or depth == 0:
        return ev.vector(pos)
    p = pos.turn % 3
    best: list[int] | None = None
    for act in pos.legal_actions():
        converts = act.kind == JUMP and pos.cells[act.mid] != p
        pos.apply(act)
        if depth == 1 and quiesce and converts:
            v = quiet_vector(pos, ev, quiesce, root, target, cautious)
        else:
            v = maxn_vector(pos, ev, depth - 1, root, target, cautious, quiesce)
        pos.undo()
        if best is None or _better(v, best, p, root, target, cautious):
            best = v
    assert best is not None
    return best


def maxn_root(pos: Position, ev: Evaluator, depth: int, target: int = -1,
              cautious: bool = False, quiesce: int = 0) -> tuple[str, list[int]]:
    """The first root action with the best vector, as text, and that vector."""
    root = pos.turn % 3
    best: tuple[str, list[int]] | None = None
    for act in pos.legal_actions():
        converts = act.kind == JUMP and pos.cells[act.mid] != root
        pos.apply(act)
        if depth == 1 and quiesce and converts:
            v = quiet_vector(pos, ev, quiesce, root, target, cautious)
        else:
            v = maxn_vector(pos, ev, depth - 1, root, target, cautious, quiesce)
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


def quiet_minimax(pos: Position, ev: Evaluator, left: int, root: int) -> int:
    """Paranoid quiescence after a converting jump: ``U_root`` standing, or the max (root to
    move) / min (an opponent) over standing and the converting jumps, ``left`` turns at most."""
    stand = ev.vector(pos)[root]
    if pos.result is not None or left == 0:
        return stand
    values = [stand]
    for act in converting_jumps(pos):
        pos.apply(act)
        values.append(quiet_minimax(pos, ev, left - 1, root))
        pos.undo()
    return max(values) if pos.turn % 3 == root else min(values)


def _duel_value(pos: Position, ev: Evaluator, root: int, rival: int) -> int:
    """The zero-sum duel value: ``U_root − U_rival``, a win ``±ev.win``, a draw 0."""
    if pos.result is not None:
        winner = pos.result[0]
        return 0 if winner < 0 else (ev.win if winner == root else -ev.win)
    v = ev.vector(pos)
    return v[root] - v[rival]


def minimax(pos: Position, ev: Evaluator, depth: int, root: int, quiesce: int = 0,
            rival: int = -1) -> int:
    """Plain max/min of ``U_root``: the root maximises, both opponents minimise.
    ``quiesce`` as in :func:`maxn_vector`, with :func:`quiet_minimax`. With ``rival`` ≥ 0 the
    value is :func:`_duel_value` instead."""
    if pos.result is not None or depth == 0:
        return _duel_value(pos, ev, root, rival) if rival >= 0 else ev.vector(pos)[root]
    values = []
    p = pos.turn % 3
    for act in pos.legal_actions():
        converts = act.kind == JUMP and pos.cells[act.mid] != p
        pos.apply(act)
        if depth == 1 and quiesce and converts:
            values.append(quiet_minimax(pos, ev, quiesce, root))
        else:
            values.append(minimax(pos, ev, depth - 1, root, quiesce, rival))
        pos.undo()
    return max(values) if p == root else min(values)


def minimax_root(pos: Position, ev: Evaluator, depth: int, quiesce: int = 0,
                 rival: int = -1) -> tuple[str, int]:
    root = pos.turn % 3
    best: tuple[str, int] | None = None
    for act in pos.legal_actions():
        converts = act.kind == JUMP and pos.cells[act.mid] != root
        pos.apply(act)
        if depth == 1 and quiesce and converts:
            v = quiet_minimax(pos, ev, quiesce, root)
        else:
            v = minimax(pos, ev, depth - 1, root, quiesce, rival)
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
