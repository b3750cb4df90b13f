"""Barca behind the engine contract (:class:`engine.core.Game`), on the fast core.

The state keeps the current position as BPN and the repetition history as key text → count
(every position since the start, in order of first occurrence); each method builds a
:class:`~engine.barca.position.Position` from the BPN and turns the result back into JSON.
Only the positions that occurred at least twice are decoded (see :meth:`Barca._position`):
they are all a claim can depend on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.barca import notation
from engine.barca.geometry import (
    HOLES,
    SIDE_LETTERS,
    SIDE_NAMES,
    SQUARE_INDEX,
    SQUARE_NAMES,
    TYPE_NAMES,
)
from engine.barca.position import (
    DRAW,
    PASS,
    REPETITIONS_TO_CLAIM,
    Position,
    Result,
    illegal,
    key_from_text,
)
from engine.core import (
    TERMINAL,
    Action,
    BadOptions,
    Decision,
    Event,
    Game,
    GameInfo,
    IllegalAction,
    NotToAct,
    Outcome,
    State,
    Transition,
    turn,
)

_CLAIM_ACTION = {"type": "claim"}
_PASS_ACTION = {"type": "pass"}


def move_json(move: int, claim: bool = False) -> dict[str, Any]:
    """The JSON action of a fast-core move (``PASS`` included)."""
    if move == PASS:
        return {"type": "pass"}
    frm, to = divmod(move, 100)
    out: dict[str, Any] = {"type": "move", "from": SQUARE_NAMES[frm], "to": SQUARE_NAMES[to]}
    if claim:
        out["claim"] = True
    return out


def outcome_json(result: Result) -> dict[str, Any]:
    winner, reason = result
    outcome = Outcome.draw(2, reason) if winner == DRAW else Outcome.win(winner, 2, reason)
    return outcome.to_json()


def make_state(pos: Position, history: dict[str, int], result: Result | None) -> State:
    """The JSON state: ``num_seats`` (2), ``bpn`` (the current position), ``history`` (key
    text ``"<placement> <w|b>"`` → count, every position since the start) and ``outcome``
    (``None`` or an Outcome's JSON)."""
    return {
        "num_seats": 2,
        "bpn": pos.to_bpn(),
        "history": history,
        "outcome": None if result is None else outcome_json(result),
    }


class Barca(Game):
    """Barca by shared/rules/barca.md (v1)."""

    info = GameInfo(
        name="barca",
        title="Barca",
        min_seats=2,
        max_seats=2,
        chance=False,
        hidden_information=False,
        simultaneous=False,
        seat_names=SIDE_NAMES,
        summary="Mice, lions and elephants slide like rooks, bishops and queens; each fears "
                "one enemy animal. First to hold 3 of the 4 watering holes wins.",
        timeout="loss",  # a missed deadline loses: no move is neutral in Barca
    )

    # ---- set-up --------------------------------------------------------------------------------

    def initial_state(self, num_seats: int, options: Mapping[str, Any]) -> State:
        if num_seats != 2:
            raise BadOptions("Barca is played by exactly 2 seats")
        return self.from_notation(notation.START_BPN)

    # ---- who acts and what they may do ---------------------------------------------------------

    def decision(self, state: State) -> Decision:
        if state["outcome"] is not None:
            return TERMINAL
        return turn(SIDE_LETTERS.index(state["bpn"].split(" ")[1]))

    def _position(self, state: State, *, repeated: bool = False) -> Position:
        """The fast-core position of ``state``; its history is empty, or with ``repeated``
        holds just the positions that occurred at least twice. That is enough to tell every
        claim (§7.2): the current position, and the one after each move, need count ≥ 3."""
        pos = Position.from_state(state, with_history=False)
        if repeated:
            pos.history = {key_from_text(k): n for k, n in state["history"].items()
                           if n >= REPETITIONS_TO_CLAIM - 1}
        return pos

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["outcome"] is not None:
            return []
        pos = self._position(state, repeated=True)
        if seat != pos.side:
            return []
        out: list[Action] = []
        for move in pos.legal_moves():
            out.append(move_json(move))
            if pos.history and move != PASS and pos.count_after(move) >= REPETITIONS_TO_CLAIM:
                out.append(move_json(move, claim=True))
        if pos.count() >= REPETITIONS_TO_CLAIM:
            out.append(dict(_CLAIM_ACTION))
        return out

    @staticmethod
    def _key(pos: Position) -> str:
        return notation.key_text(pos.placement(), pos.side)

    def action_key(self, action: Action) -> Any:
        """Moves by ``(from index, to index)``, the claiming twin right after its move; then
        ``pass``; a bare ``claim`` last (§10)."""
        action = notation.parse_action(action)
        if action["type"] == "move":
            return (0, SQUARE_INDEX[action["from"]], SQUARE_INDEX[action["to"]],
                    int(action.get("claim", False)))
        return (1 if action["type"] == "pass" else 2, 0, 0, 0)

    def parse_action(self, raw: Any) -> Action:
        return notation.parse_action(raw)

    def check_action(self, state: State, seat: int, raw: Any) -> Action:
        """``NotToAct`` if ``seat`` is not to move, ``MalformedAction`` for a bad shape, then
        ``IllegalAction`` naming the rule (:data:`~engine.barca.position.RULES`). Accepts
        exactly the listed legal actions."""
        if seat not in self.decision(state).seats:
            raise NotToAct()
        action = notation.parse_action(raw)
        error = self._error(state, action)
        if error is not None:
            raise error
        return action

    def explain_illegal(self, state: State, seat: int, action: Action) -> IllegalAction:
        error = self._error(state, notation.parse_action(action))
        if error is None:
            raise ValueError(f"{notation.action_text(action)} is legal here")
        return error

    def _error(self, state: State, action: dict[str, Any]) -> IllegalAction | None:
        if state["outcome"] is not None:
            return illegal("game_over")
        pos = self._position(state, repeated=True)
        kind = action["type"]
        if kind == "claim":
            count = state["history"].get(self._key(pos), 0)
            return None if count >= REPETITIONS_TO_CLAIM else illegal("no_repetition",
                                                                       count=count)
        if kind == "pass":
            return illegal("pass_not_allowed") if pos.has_move() else None
        frm, to = SQUARE_INDEX[action["from"]], SQUARE_INDEX[action["to"]]
        error = pos.move_error(frm, to)
        if error is not None or not action.get("claim"):
            return error
        # The exact count (for the error's details) needs the whole history.
        count = Position.from_state(state).count_after(100 * frm + to)
        if count < REPETITIONS_TO_CLAIM:
            return illegal("no_repetition", count=count)
        return None

    # ---- transitions ---------------------------------------------------------------------------

    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        ((seat, action),) = actions.items()
        pos = self._position(state)
        before = pos.ply
        data: dict[str, Any] = {"seat": seat, "ply": before, "action": dict(action),
                                "text": notation.action_text(action)}
        if action["type"] == "claim":
            data["result"] = "claim"
            return Transition(make_state(pos, dict(state["history"]), (DRAW, "claim")),
                              [Event("action", data)])
        move = PASS if action["type"] == "pass" else \
            100 * SQUARE_INDEX[action["from"]] + SQUARE_INDEX[action["to"]]
        pos.apply(move)
        history = dict(state["history"])
        key = self._key(pos)
        count = history[key] = history.get(key, 0) + 1
        # The fast core judged with an empty history: redo §7.4 with the real count.
        result: Result | None = None
        if pos.result is not None and pos.result[1] == "holes":
            result = pos.result
        elif action.get("claim"):
            result = (DRAW, "claim")
        elif count >= notation.REPETITIONS_TO_DRAW:
            result = (DRAW, "fivefold")
        elif pos.ply >= notation.PLY_CAP:
            result = (DRAW, "ply_cap")
        if result is not None:
            data["result"] = result[1]
        return Transition(make_state(pos, history, result), [Event("action", data)])

    # ---- what seats see ------------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The whole position, the same for every seat and spectators: ``bpn``, ``pieces``
        (side → type → squares), ``holes``, ``to_move`` (side name, ``None`` when over) and
        ``to_move_seat``, ``ply``, ``repetitions`` (occurrences of the current position),
        ``claim_available``, ``status`` (square → calm/forced/trapped for each animal of the
        side to move, ``{}`` when over), ``scared`` (squares of scared animals of both sides)
        and ``history`` (enough to rebuild the exact game state)."""
        pos = self._position(state)
        over = state["outcome"] is not None
        pieces: dict[str, dict[str, list[str]]] = {
            name: {t: [] for t in TYPE_NAMES} for name in SIDE_NAMES}
        scared = []
        danger = (pos.danger(0), pos.danger(1))
        for i, c in enumerate(pos.cells):
            if c >= 0:
                pieces[SIDE_NAMES[c // 3]][TYPE_NAMES[c % 3]].append(SQUARE_NAMES[i])
                if danger[c // 3][c % 3] >> i & 1:
                    scared.append(SQUARE_NAMES[i])
        count = state["history"].get(self._key(pos), 0)
        return {
            "bpn": pos.to_bpn(),
            "pieces": pieces,
            "holes": [SQUARE_NAMES[h] for h in HOLES],
            "to_move": None if over else SIDE_NAMES[pos.side],
            "to_move_seat": None if over else pos.side,
            "ply": pos.ply,
            "repetitions": count,
            "claim_available": not over and count >= REPETITIONS_TO_CLAIM,
            "status": {} if over else {SQUARE_NAMES[i]: s
                                       for i, s in pos.statuses(pos.side).items()},
            "scared": scared,
            "history": dict(state["history"]),
        }

    def outcome(self, state: State) -> Outcome | None:
        raw = state["outcome"]
        return None if raw is None else Outcome.from_json(raw)

    # ---- notation ------------------------------------------------------------------------------

    def to_notation(self, state: State) -> str:
        """BPN (§9.1) while the history is fresh and the game goes on; otherwise BPN plus the
        history field, and ``claim`` after a claimed draw (see
        :func:`~engine.barca.notation.parse_game_notation`)."""
        outcome = state["outcome"]
        claimed = outcome is not None and outcome["reason"] == "claim"
        return notation.game_notation(state["bpn"], state["history"], claimed,
                                      outcome is not None)

    def from_notation(self, text: str, options: Mapping[str, Any] | None = None) -> State:
        """A state from BPN (fresh history, §9.1) or from the game notation with a history;
        raises ``BadNotation``."""
        cells, side, ply, history, claimed = notation.parse_game_notation(text)
        pos = Position(cells, side, ply, {})
        key = self._key(pos)
        if history is None:
            history = {key: 1}
        result: Result | None = None
        if pos.holes(side ^ 1) >= 3:
            result = (side ^ 1, "holes")
        elif claimed:
            result = (DRAW, "claim")
        elif history[key] >= notation.REPETITIONS_TO_DRAW:
            result = (DRAW, "fivefold")
        elif ply >= notation.PLY_CAP:
            result = (DRAW, "ply_cap")
        return make_state(pos, history, result)

    def action_text(self, action: Action) -> str:
        return notation.action_text(notation.parse_action(action))

    # ---- helpers for bots ----------------------------------------------------------------------

    def position(self, state: State) -> Position:
        """The fast-core position of a state, history included (for search)."""
        return Position.from_state(state)

    def piece_status(self, state: State, square: str) -> str:
        """``"calm"``, ``"forced"`` or ``"trapped"`` of the animal on ``square`` (§4), as if
        its side were to move."""
        return self._position(state).piece_status(SQUARE_INDEX[square])
