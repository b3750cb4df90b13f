"""An independent plain model of Barca's move rules (shared/rules/barca.md §3-§5), written
straight from the text with coordinates and sets, for checking the fast core against it.
Slow on purpose: no tables, no bit sets."""

from __future__ import annotations

FEARS = {"M": "L", "L": "E", "E": "M"}
STEPS = {
    "M": [(0, 1), (1, 0), (0, -1), (-1, 0)],
    "L": [(1, 1), (1, -1), (-1, -1), (-1, 1)],
}
STEPS["E"] = STEPS["M"] + STEPS["L"]

Board = dict[tuple[int, int], tuple[str, str]]
"""(file, rank) 0-based → (side "w"/"b", type "M"/"L"/"E")."""


def board_from_placement(placement: str) -> Board:
    board: Board = {}
    for k, rank_text in enumerate(placement.split("/")):
        rank, f, digits = 9 - k, 0, ""
        for ch in rank_text + "/":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                f, digits = f + int(digits), ""
            if ch != "/":
                board[(f, rank)] = ("w" if ch.isupper() else "b", ch.upper())
                f += 1
    return board


def neighbours(sq: tuple[int, int]) -> set[tuple[int, int]]:
    f, r = sq
    return {(f + df, r + dr) for df in (-1, 0, 1) for dr in (-1, 0, 1)
            if (df or dr) and 0 <= f + df < 10 and 0 <= r + dr < 10}


def danger(board: Board, side: str, kind: str) -> set[tuple[int, int]]:
    out: set[tuple[int, int]] = set()
    for sq, (s, t) in board.items():
        if s != side and t == FEARS[kind]:
            out |= neighbours(sq)
    return out


def reach(board: Board, sq: tuple[int, int]) -> set[tuple[int, int]]:
    out = set()
    for df, dr in STEPS[board[sq][1]]:
        f, r = sq[0] + df, sq[1] + dr
        while 0 <= f < 10 and 0 <= r < 10 and (f, r) not in board:
            out.add((f, r))
            f, r = f + df, r + dr
    return out


def legal_moves(placement: str, side: str) -> set[str]:
    """Rules L1/L2 as ``from-to`` texts (L3: an empty set means pass)."""
    board = board_from_placement(placement)
    forced, calm, trapped = {}, {}, {}
    for sq, (s, t) in board.items():
        if s != side:
            continue
        d = danger(board, side, t)
        safe = reach(board, sq) - d
        if sq not in d:
            calm[sq] = safe
        elif safe:
            forced[sq] = safe
        else:
            trapped[sq] = reach(board, sq)
    chosen = forced if forced else {**calm, **trapped}

    def name(sq: tuple[int, int]) -> str:
        return f"{'abcdefghij'[sq[0]]}{sq[1] + 1}"
    return {f"{name(a)}-{name(b)}" for a, targets in chosen.items() for b in targets}
