"""The observation layout of each built-in game (:class:`engine.envs.encoding.Encoder`).

Each encoder reads only the fields its game's package docstring documents for a seat's
view, and lays them out as named *segments* (``segments``: name and length, in order; the
table of ``docs/environments.md``). "Mine" is the encoded seat, "theirs" the others, in seat
order after it. Counts are scaled into ``[0, 1]`` by the rules' own maxima and clipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.boundary.influence import decode_runs
from engine.core import Game
from engine.envs.encoding import Encoder, Vector


class SegmentedEncoder(Encoder):
    """An encoder laid out as named segments; :meth:`part` reads one back from a vector."""

    segments: tuple[tuple[str, int], ...]

    def _lay_out(self, segments: Sequence[tuple[str, int]]) -> None:
        self.segments = tuple(segments)
        self.size = sum(n for _, n in segments)
        self._start: dict[str, int] = {}
        self._length = dict(segments)
        at = 0
        for name, n in segments:
            self._start[name] = at
            at += n

    def part(self, vector: NDArray[Any], name: str) -> NDArray[Any]:
        """The segment ``name`` of ``vector`` (a view into it, not a copy)."""
        start = self._start[name]
        return vector[start:start + self._length[name]]

    def new(self) -> tuple[Vector, dict[str, Vector]]:
        """A zero vector and a writable view of each of its segments by name."""
        out = np.zeros(self.size, np.float32)
        return out, {name: self.part(out, name) for name, _ in self.segments}


def _scaled(value: float, maximum: float) -> float:
    return min(max(float(value) / maximum, 0.0), 1.0)


# ---- Battle Line -------------------------------------------------------------------------------


class BattleLineEncoder(SegmentedEncoder):
    """Cards are 70-slot one-hot rows in the canonical card order (troops ``1r``…``10p``,
    then the tactics); per-flag rows are flags 1-9 in order."""

    PHASES = ("deal", "play", "claim", "draw", "chance", "return", "over")

    def __init__(self, game: Game, num_seats: int, options: Mapping[str, Any]) -> None:
        from engine.battleline.cards import CARDS, INDEX
        from engine.battleline.rules import NUM_FLAGS

        self._index = INDEX
        cards, flags = len(CARDS), NUM_FLAGS
        self._cards, self._flags = cards, flags
        self._lay_out([
            ("hand", cards), ("my_sides", flags * cards), ("their_sides", flags * cards),
            ("environment", flags * 4), ("claimed", flags * 2), ("complete", flags * 2),
            ("my_discards", cards), ("their_discards", cards), ("opponent_known", cards),
            ("known_tops", cards), ("decks", 2), ("their_hand", 2), ("tactics_played", 2),
            ("leaders_played", 2), ("claimable", flags), ("phase", len(self.PHASES)),
            ("my_turn", 1), ("counters", 3),
        ])

    def encode(self, view: Mapping[str, Any], seat: int) -> Vector:
        out, p = self.new()
        index, cards = self._index, self._cards
        them = 1 - seat
        for card in view.get("hand", ()):
            p["hand"][index[card]] = 1
        for n, flag in enumerate(view["flags"]):
            for card in flag["sides"][seat]:
                p["my_sides"][n * cards + index[card]] = 1
            for card in flag["sides"][them]:
                p["their_sides"][n * cards + index[card]] = 1
            for card, owner in flag["env"].items():
                # Fog mine, Fog theirs, Mud mine, Mud theirs
                p["environment"][n * 4 + 2 * (card == "Mud") + (owner != seat)] = 1
            if flag["claimed"] is not None:
                p["claimed"][n * 2 + (flag["claimed"] != seat)] = 1
            for owner in flag["complete"]:
                p["complete"][n * 2 + (owner != seat)] = 1
        for card in view["discards"][seat]:
            p["my_discards"][index[card]] = 1
        for card in view["discards"][them]:
            p["their_discards"][index[card]] = 1
        for card in view.get("opponent_known", ()):
            p["opponent_known"][index[card]] = 1
        for tops in view.get("known_tops", {}).values():
            for card in tops:
                if card is not None:  # ``None``: a card the opponent returned, unknown
                    p["known_tops"][index[card]] = 1
        p["decks"][:] = (_scaled(view["decks"]["troop"], 60),
                         _scaled(view["decks"]["tactics"], 10))
        theirs = view["hands"][them]
        p["their_hand"][:] = (_scaled(theirs["troop"], 10), _scaled(theirs["tactics"], 10))
        played = view["tactics_played"]
        p["tactics_played"][:] = (_scaled(played[seat], 10), _scaled(played[them], 10))
        leaders = view["leaders_played"]
        p["leaders_played"][:] = (float(leaders[seat]), float(leaders[them]))
        for flag_no in view["claimable"]:
            p["claimable"][flag_no - 1] = 1
        if view["phase"] in self.PHASES:
            p["phase"][self.PHASES.index(view["phase"])] = 1
        p["my_turn"][0] = float(view["to_act"] == seat)
        p["counters"][:] = (_scaled(view["scout_draws_left"], 3),
                            _scaled(view["returns_left"], 2), _scaled(view["passes"], 2))
        return out


# ---- Chexers -----------------------------------------------------------------------------------


class ChexersEncoder(SegmentedEncoder):
    """Hexes in the canonical order (``q`` then ``r``, 37 of them); colours relative: mine,
    the next seat's, the one after."""

    def __init__(self, game: Game, num_seats: int, options: Mapping[str, Any]) -> None:
        from engine.chexers.geometry import COLOUR_NAMES, INDEX, NUM_HEXES
        from engine.chexers.notation import MAX_TURNS

        self._names, self._hex, self._hexes, self._max_turns = (
            COLOUR_NAMES, INDEX, NUM_HEXES, MAX_TURNS)
        self._lay_out([("pieces", 3 * NUM_HEXES), ("exits", 3), ("to_move", 3), ("turn", 1),
                       ("repetitions", 1)])

    def encode(self, view: Mapping[str, Any], seat: int) -> Vector:
        out, p = self.new()
        for k in range(3):
            name = self._names[(seat + k) % 3]
            for q, r in view["pieces"][name]:
                p["pieces"][k * self._hexes + self._hex[(q, r)]] = 1
            p["exits"][k] = _scaled(view["exits"][name], 4)
            if view["to_move_seat"] == (seat + k) % 3:
                p["to_move"][k] = 1
        p["turn"][0] = _scaled(view["turn"], self._max_turns)
        p["repetitions"][0] = _scaled(view["repetitions"], 4)
        return out


# ---- Barca -------------------------------------------------------------------------------------


class BarcaEncoder(SegmentedEncoder):
    """Squares ``a1`` … ``j10`` by index ``10*(rank-1)+file``; six piece planes (my mice,
    lions, elephants, then theirs), a plane of scared animals (both sides)."""

    def __init__(self, game: Game, num_seats: int, options: Mapping[str, Any]) -> None:
        from engine.barca.geometry import NUM_SQUARES, SIDE_NAMES, SQUARE_INDEX, TYPE_NAMES
        from engine.barca.notation import PLY_CAP

        self._sides, self._types, self._square = SIDE_NAMES, TYPE_NAMES, SQUARE_INDEX
        self._squares, self._ply_cap = NUM_SQUARES, PLY_CAP
        self._lay_out([("pieces", 6 * NUM_SQUARES), ("scared", NUM_SQUARES), ("my_turn", 1),
                       ("ply", 1), ("repetitions", 1), ("claim_available", 1)])

    def encode(self, view: Mapping[str, Any], seat: int) -> Vector:
        out, p = self.new()
        for k, side in enumerate((self._sides[seat], self._sides[1 - seat])):
            for t, kind in enumerate(self._types):
                plane = (3 * k + t) * self._squares
                for square in view["pieces"][side][kind]:
                    p["pieces"][plane + self._square[square]] = 1
        for square in view["scared"]:
            p["scared"][self._square[square]] = 1
        p["my_turn"][0] = float(view["to_move_seat"] == seat)
        p["ply"][0] = _scaled(view["ply"], self._ply_cap)
        p["repetitions"][0] = _scaled(view["repetitions"], 5)
        p["claim_available"][0] = float(view["claim_available"])
        return out


# ---- Boundary ----------------------------------------------------------------------------------


class BoundaryEncoder(SegmentedEncoder):
    """Values in ``[-1, 1]``. Pieces: my team's ids in order, then theirs, each ``alive, x,
    y, blob size`` (positions over the field's size). Treasures by id: ``present, x, y,
    value, taken`` (+1 by me, -1 by them). Territory: the influence map (400 × 400 cells)
    averaged over ``GRID`` × ``GRID`` blocks, +1 mine, -1 theirs, 0 neutral."""

    GRID = 20

    def __init__(self, game: Game, num_seats: int, options: Mapping[str, Any]) -> None:
        from engine.boundary.params import COLUMNS, HEIGHT, ROWS, WIDTH, Params

        self.low = -1.0
        self._params = params = Params.from_options(options)
        self._field = (WIDTH - 1, HEIGHT - 1)
        self._cells = (ROWS, COLUMNS)
        # Scores are bounded by every treasure plus every enemy piece captured.
        self._max_score = params.treasures * params.max_value + \
            params.capture_points * params.pieces
        self._lay_out([("pieces", 2 * params.pieces * 4), ("treasures", params.treasures * 5),
                       ("scores", 2), ("turn", 1), ("territory", self.GRID * self.GRID)])

    def encode(self, view: Mapping[str, Any], seat: int) -> Vector:
        out, p = self.new()
        if "pieces" not in view:  # before the layout is drawn: nothing to see yet
            return out
        params, (w, h) = self._params, self._field
        slots = {piece: k for k, piece in enumerate(
            [*params.team_pieces(seat), *params.team_pieces(1 - seat)])}
        sizes = {piece: len(b["members"]) for b in view["blobs"] for piece in b["members"]}
        for piece in view["pieces"]:
            at = 4 * slots[piece["id"]]
            p["pieces"][at:at + 4] = (1, piece["x"] / w, piece["y"] / h,
                                      _scaled(sizes[piece["id"]], params.pieces))
        for treasure in view["treasures"]:
            at = 5 * treasure["id"]
            p["treasures"][at:at + 4] = (1, treasure["x"] / w, treasure["y"] / h,
                                         _scaled(treasure["value"], params.max_value))
        for treasure in view["taken"]:
            at = 5 * treasure["id"]
            p["treasures"][at + 1:at + 5] = (treasure["x"] / w, treasure["y"] / h,
                                             _scaled(treasure["value"], params.max_value),
                                             1 if treasure["by"] == seat else -1)
        scores = view["scores"]
        p["scores"][:] = (_scaled(scores[seat], self._max_score),
                          _scaled(scores[1 - seat], self._max_score))
        p["turn"][0] = _scaled(view["turn"], params.turn_limit)
        rows, columns = self._cells
        signed = _signed_cells(view["territory"], seat).reshape(
            self.GRID, rows // self.GRID, self.GRID, columns // self.GRID)
        p["territory"][:] = signed.mean(axis=(1, 3)).ravel()
        return out


def _signed_cells(runs: str, seat: int) -> NDArray[np.float32]:
    """Boundary's territory text (``engine.boundary.influence.encode_runs``) as a flat array
    of +1 (``seat``'s cells), -1 (the other team's) and 0 (neutral)."""
    sign = np.array([1.0, -1.0, 0.0] if seat == 0 else [-1.0, 1.0, 0.0], np.float32)
    return sign[decode_runs(runs).ravel()]
