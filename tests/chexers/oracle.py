"""An independent, deliberately plain model of the Chexers rules, written from the rules text
(§1-§5) and not from the engine: dicts of hexes, referee-style tuples, a Counter history.
Tests compare the engine against it move by move. Slow on purpose: no tables, no bits."""

from __future__ import annotations

from collections import Counter
from typing import Any

STEPS = [(-1, 0), (0, -1), (1, -1), (1, 0), (0, 1), (-1, 1)]
EXITS = {
    "r": {(3, -3), (3, -2), (3, -1), (3, 0)},
    "g": {(-3, 3), (-2, 3), (-1, 3), (0, 3)},
    "b": {(-3, 0), (-2, -1), (-1, -2), (0, -3)},
}
ALL_HEXES = sorted((q, r) for q in range(-3, 4) for r in range(-3, 4) if -3 <= -q - r <= 3)
HEX_SET = frozenset(ALL_HEXES)


def on_board(h: tuple[int, int]) -> bool:
    return h in HEX_SET


class OracleGame:
    def __init__(self, board: dict[tuple[int, int], str], exits: dict[str, int],
                 turns: int) -> None:
        self.board = dict(board)
        self.exits = dict(exits)
        self.turns = turns
        self.history: Counter = Counter({self.snap(): 1})
        self.result: tuple | None = None

    @classmethod
    def from_cxn(cls, text: str) -> OracleGame:
        board_text, _, exits_text, t = text.split(" ")
        board = {}
        for r, row in zip(range(-3, 4), board_text.split("/"), strict=True):
            qs = [q for q in range(-3, 4) if on_board((q, r))]
            k = 0
            for ch in row:
                if ch.isdigit():
                    k += int(ch)
                else:
                    board[(qs[k], r)] = ch
                    k += 1
        e = [int(x) for x in exits_text.split(",")]
        return cls(board, {"r": e[0], "g": e[1], "b": e[2]}, int(t))

    def snap(self):
        return (frozenset(self.board.items()), self.turns % 3)

    def colour(self) -> str:
        return "rgb"[self.turns % 3]

    def actions(self) -> list[tuple[str, Any]]:
        me = self.colour()
        out: list[tuple[str, Any]] = []
        for h in ALL_HEXES:  # canonical order: q, then r
            if self.board.get(h) != me:
                continue
            if h in EXITS[me]:
                out.append(("EXIT", h))
            for dq, dr in STEPS:
                n = (h[0] + dq, h[1] + dr)
                far = (h[0] + 2 * dq, h[1] + 2 * dr)
                if on_board(n) and n not in self.board:
                    out.append(("MOVE", (h, n)))
                elif on_board(n) and on_board(far) and far not in self.board:
                    out.append(("JUMP", (h, far)))
        return out or [("PASS", None)]

    def play(self, action) -> None:
        assert self.result is None and action in self.actions()
        me = self.colour()
        kind, arg = action
        if kind in ("MOVE", "JUMP"):
            a, b = arg
            del self.board[a]
            self.board[b] = me
            if kind == "JUMP":
                self.board[((a[0] + b[0]) // 2, (a[1] + b[1]) // 2)] = me
        elif kind == "EXIT":
            del self.board[arg]
            self.exits[me] += 1
        self.turns += 1
        self.history[self.snap()] += 1
        draw = None
        if self.turns >= 768:
            draw = "turn_limit"
        if self.history[self.snap()] >= 4:
            draw = "repetition"
        if draw:
            self.result = ("draw", draw)
        elif max(self.exits.values()) >= 4:
            winner = max(self.exits, key=lambda c: self.exits[c])
            self.result = ("win", "rgb".index(winner))
