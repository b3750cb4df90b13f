"""Boundary behind the engine contract (:class:`engine.core.Game`), on the fast core
(:class:`engine.boundary.board.Board`).

The state is JSON (see the package header); each transition builds a :class:`Board` from it,
plays the turn and writes the result back. Both seats plan at once: the decision names both
and the driver holds the first plan, hidden, until the second is in.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from engine import spaces
from engine.boundary import notation
from engine.boundary.board import Board, Point, on_field, plan_points
from engine.boundary.influence import Blobs, colour_map, encode_runs
from engine.boundary.params import (
    DEFAULT_OPTIONS,
    HEIGHT,
    WIDTH,
    Params,
    check_options,
)
from engine.boundary.setup import LAYOUTS, Layout, layout
from engine.core import (
    CHANCE,
    CHANCE_DECISION,
    TERMINAL,
    Action,
    Decision,
    Event,
    Game,
    GameInfo,
    IllegalAction,
    MalformedAction,
    NotToAct,
    Outcome,
    State,
    Transition,
    simultaneous,
)

TEAM_NAMES = ("blue", "red")


def board_of(state: State) -> Board:
    """The fast core's position for a state (after the setup)."""
    params = Params.from_options(state["options"])
    pos: list[Point | None] = [None if p is None else (p[0], p[1]) for p in state["pieces"]]
    prev: list[Point | None] = [None if p is None else (p[0], p[1]) for p in state["prev"]]
    return Board(params, pos, prev, [tuple(b) for b in state["blobs"]],
                 [(t[0], t[1], t[2]) for t in state["treasures"]],
                 [None if t is None else (t[0], t[1], t[2]) for t in state["taken"]],
                 list(state["scores"]), state["turn"], state["result"],
                 [None if x is None else (x[0], x[1]) for x in state["lost"]])


def state_of(board: Board, layout_number: int, last: dict[str, Any] | None) -> State:
    return {
        "num_seats": 2,
        "options": board.params.to_options(),
        "layout": layout_number,
        "turn": board.turn,
        "scores": list(board.scores),
        "pieces": [None if p is None else [p[0], p[1]] for p in board.pos],
        "prev": [None if p is None else [p[0], p[1]] for p in board.prev],
        "blobs": [list(b) for b in board.blobs],
        "treasures": [list(t) for t in board.treasures],
        "taken": [None if t is None else list(t) for t in board.taken],
        "lost": [None if x is None else list(x) for x in board.lost],
        "last": last,
        "result": board.result,
    }


@lru_cache(maxsize=32)
def _territory(pieces: tuple[tuple[int, int] | None, ...], blobs: tuple[tuple[int, ...], ...],
               count: int, influence_radius: int) -> str:
    positions = [p if p is not None else (0, 0) for p in pieces]
    teams = [0 if p < count else 1 for p in range(len(pieces))]
    return encode_runs(colour_map(Blobs.of(positions, blobs, teams), influence_radius))


def territory(state: State) -> str:
    """The colour of every influence cell, run-length encoded (:func:`encode_runs`), for
    display. Cached per position: every viewer of one position shares one computation."""
    pieces = tuple(None if p is None else (p[0], p[1]) for p in state["pieces"])
    return _territory(pieces, tuple(tuple(b) for b in state["blobs"]),
                      state["options"]["pieces"], state["options"]["influence_radius"])


class Boundary(Game):
    info = GameInfo(
        name="boundary",
        title="Boundary",
        min_seats=2,
        max_seats=2,
        chance=True,
        hidden_information=False,
        simultaneous=True,
        seat_names=TEAM_NAMES,
        default_options=dict(DEFAULT_OPTIONS),
        summary="Plan in secret, move at once: influence, surround and capture on a "
                "continuous field.",
        timeout="default",
        actions="space",
    )

    # ---- set-up ------------------------------------------------------------------------

    def check_options(self, options: Mapping[str, Any]) -> None:
        check_options(options)

    def initial_state(self, num_seats: int, options: Mapping[str, Any]) -> State:
        return notation.empty_state(options)

    # ---- decisions -----------------------------------------------------------------------

    def decision(self, state: State) -> Decision:
        if state["layout"] is None:
            return CHANCE_DECISION
        if state["result"] is not None:
            return TERMINAL
        return simultaneous((0, 1))

    def chance_outcomes(self, state: State) -> list[tuple[Action, int]]:
        if state["layout"] is not None:
            raise NotImplementedError("Boundary draws only its start")
        return [(k, 1) for k in range(LAYOUTS)]

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        return []

    def action_space(self, state: State, seat: int) -> dict[str, Any] | None:
        if self.decision(state).seats == ():
            return None
        params = Params.from_options(state["options"])
        sizes = {p: len(b) for b in state["blobs"] for p in b}
        entries = {}
        for p in params.team_pieces(seat):
            xy = state["pieces"][p]
            if xy is not None:
                entries[str(p)] = spaces.point(xy, params.move_reach(sizes[p]), (0, 0),
                                               (WIDTH - 1, HEIGHT - 1))
        return spaces.record({"turn": spaces.const(state["turn"]),
                              "moves": spaces.subset(entries)})

    def default_action(self, state: State, seat: int) -> Action:
        # The empty plan: every piece stays where it is (rules §9.2).
        return {"turn": state["turn"], "moves": {}}

    # ---- actions ---------------------------------------------------------------------------

    def parse_action(self, raw: Any) -> Action:
        if not isinstance(raw, dict):
            raise MalformedAction(f"a plan must be a JSON object, got {type(raw).__name__}")
        for key in raw:
            if key not in ("turn", "moves"):
                raise MalformedAction(f"unknown field {key!r} in a plan", field=str(key))
        for key in ("turn", "moves"):
            if key not in raw:
                raise MalformedAction(f"missing field {key!r} in a plan", field=key)
        turn = raw["turn"]
        if not isinstance(turn, int) or isinstance(turn, bool):
            raise MalformedAction("turn must be an integer", field="turn")
        moves = raw["moves"]
        if not isinstance(moves, dict):
            raise MalformedAction("moves must be an object: piece id → [x, y]", field="moves")
        out: dict[str, list[int]] = {}
        for key in sorted(moves, key=_piece_order):
            if not isinstance(key, str) or not key.isdigit() or (key != "0" and key[0] == "0") \
                    or int(key) >= 2 * 7:
                raise MalformedAction(f"{key!r} is not a piece id (0–13)", field="moves")
            target = moves[key]
            if not (isinstance(target, list) and len(target) == 2
                    and all(isinstance(v, int) and not isinstance(v, bool) for v in target)):
                raise MalformedAction(f"the target of piece {key} must be two integers [x, y]",
                                      field=f"moves.{key}")
            out[key] = [target[0], target[1]]
        return {"turn": turn, "moves": out}

    def check_action(self, state: State, seat: int, raw: Any) -> Action:
        if seat not in self.decision(state).seats:
            raise NotToAct()
        action = self.parse_action(raw)
        problem = self._illegal(state, seat, action)
        if problem is not None:
            raise problem
        return action

    def _illegal(self, state: State, seat: int, action: Action) -> IllegalAction | None:
        if action["turn"] != state["turn"]:
            return IllegalAction(f"this plan is for turn {action['turn']}, the turn being "
                                 f"planned is {state['turn']}", rule="stale_turn",
                                 turn=state["turn"])
        params = Params.from_options(state["options"])
        sizes = {p: len(b) for b in state["blobs"] for p in b}
        for key, (x, y) in action["moves"].items():
            piece = int(key)
            if piece >= 2 * params.pieces:
                return IllegalAction(f"there is no piece {piece} in a game of "
                                     f"{params.pieces} pieces a side", rule="no_such_piece",
                                     piece=piece)
            if params.team_of(piece) != seat:
                return IllegalAction(f"piece {piece} is not yours", rule="not_your_piece",
                                     piece=piece)
            start = state["pieces"][piece]
            if start is None:
                return IllegalAction(f"piece {piece} has been captured", rule="piece_captured",
                                     piece=piece)
            if not on_field(x, y):
                return IllegalAction(f"[{x}, {y}] is off the field (0–{WIDTH - 1}, "
                                     f"0–{HEIGHT - 1})", rule="off_field", piece=piece)
            reach = params.move_reach(sizes[piece])
            d2 = (x - start[0]) ** 2 + (y - start[1]) ** 2
            if d2 > reach * reach:
                return IllegalAction(f"piece {piece} at [{start[0]}, {start[1]}] reaches "
                                     f"{reach} px this turn; [{x}, {y}] is farther",
                                     rule="out_of_reach", piece=piece, reach=reach)
        return None

    def explain_illegal(self, state: State, seat: int, action: Action) -> IllegalAction:
        return self._illegal(state, seat, action) or IllegalAction("not legal now",
                                                                   rule="not_legal")

    # ---- transitions -------------------------------------------------------------------------

    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        if CHANCE in actions:
            number = int(actions[CHANCE])
            params = Params.from_options(state["options"])
            board = Board.from_layout(params, layout(number, params))
            return Transition(state_of(board, number, None),
                              [Event("setup", {"layout": number})])
        board = board_of(state)
        targets: dict[int, Point] = {}
        for seat in (0, 1):
            targets.update(plan_points(actions[seat]["moves"]))
        turn = board.turn
        starts = list(board.pos)
        ticks, tick_events = board.resolve(targets)
        walks = []
        for p, target in sorted(targets.items()):
            start = starts[p]
            if start is not None and tuple(start) != target:
                walks.append([p, start[0], start[1], target[0], target[1]])
        plans = [dict(actions[0]["moves"]), dict(actions[1]["moves"])]
        new = state_of(board, state["layout"], {"turn": turn, "plans": plans})
        data: dict[str, Any] = {"turn": turn, "ticks": ticks, "plans": plans, "walks": walks,
                                "events": tick_events, "scores": list(board.scores)}
        if board.result is not None:
            data["result"] = board.result
        return Transition(new, [Event("resolution", data)])

    # ---- views -------------------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        options = state["options"]
        if state["layout"] is None:
            return {"phase": "setup", "options": dict(options)}
        params = Params.from_options(options)
        blob_id = {p: b[0] for b in state["blobs"] for p in b}
        pieces = []
        for p, xy in enumerate(state["pieces"]):
            if xy is not None:
                pieces.append({"id": p, "team": params.team_of(p), "x": xy[0], "y": xy[1],
                               "blob": blob_id[p], "prev": list(state["prev"][p])})
        blobs = [{"id": b[0], "team": params.team_of(b[0]), "members": list(b),
                  "move_radius": params.move_reach(len(b)),
                  "influence_radius": params.influence_reach(len(b))} for b in state["blobs"]]
        treasures, taken = [], []
        for t, (x, y, value) in enumerate(state["treasures"]):
            by = state["taken"][t]
            if by is None:
                treasures.append({"id": t, "x": x, "y": y, "value": value})
            else:
                taken.append({"id": t, "x": x, "y": y, "value": value, "by": by[0]})
        captured = [{"id": p, "team": params.team_of(p)}
                    for p, xy in enumerate(state["pieces"]) if xy is None]
        return {
            "phase": "over" if state["result"] is not None else "planning",
            "turn": state["turn"],
            "scores": list(state["scores"]),
            "options": dict(options),
            "field": [WIDTH, HEIGHT],
            "pieces": pieces,
            "blobs": blobs,
            "treasures": treasures,
            "taken": taken,
            "captured": captured,
            "last": state["last"],
            "result": state["result"],
            "territory": territory(state),
        }

    def outcome(self, state: State) -> Outcome | None:
        reason = state["result"]
        if reason is None:
            return None
        a, b = state["scores"]
        if a == b:
            return Outcome.draw(2, reason, (a, b))
        return Outcome.win(0 if a > b else 1, 2, reason, (a, b))

    # ---- notation ------------------------------------------------------------------------------

    def to_notation(self, state: State) -> str:
        return notation.to_notation(state)

    def from_notation(self, text: str, options: Mapping[str, Any] | None = None) -> State:
        return notation.from_notation(text, options)

    def action_text(self, action: Action) -> str:
        moves = " ".join(f"{p}>{x},{y}" for p, (x, y) in action["moves"].items())
        return f"t{action['turn']}: {moves or 'stay'}"


def _piece_order(key: Any) -> tuple[int, str]:
    return (int(key), key) if isinstance(key, str) and key.isdigit() else (1 << 30, str(key))


def start_of(number: int, options: Mapping[str, Any] | None = None) -> Layout:
    """The start a layout number gives (tools and tests)."""
    return layout(number, Params.from_options({**DEFAULT_OPTIONS, **(options or {})}))


def board_from_view(view: Mapping[str, Any]) -> Board:
    """The fast core's position from a seat's view (a bot simulating a turn): everything the
    rules read is in the view."""
    params = Params.from_options(view["options"])
    count = 2 * params.pieces
    pos: list[Point | None] = [None] * count
    prev: list[Point | None] = [None] * count
    for piece in view["pieces"]:
        pos[piece["id"]] = (piece["x"], piece["y"])
        prev[piece["id"]] = (piece["prev"][0], piece["prev"][1])
    size = len(view["treasures"]) + len(view["taken"])
    treasures: list[tuple[int, int, int]] = [(0, 0, 0)] * size
    taken: list[tuple[int, int, int] | None] = [None] * size
    for t in view["treasures"]:
        treasures[t["id"]] = (t["x"], t["y"], t["value"])
    for t in view["taken"]:
        treasures[t["id"]] = (t["x"], t["y"], t["value"])
        taken[t["id"]] = (t["by"], -1, -1)
    lost: list[tuple[int, int] | None] = [None] * count
    for c in view["captured"]:
        lost[c["id"]] = (-1, -1)
    return Board(params, pos, prev, [tuple(b["members"]) for b in view["blobs"]], treasures,
                 taken, list(view["scores"]), view["turn"], view["result"], lost)
