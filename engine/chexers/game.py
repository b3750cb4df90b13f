"""Chexers behind the engine contract (:class:`engine.core.Game`), on the fast core.

Every method turns the JSON state into a :class:`~engine.chexers.position.Position` (cheap:
at most 12 pieces; the history is not decoded) and back. The history in the state is kept as
key text → count and only holds keys that can still occur (see
:meth:`Position.history_json`), so it is reset by every exit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.chexers import notation
from engine.chexers.geometry import COLOUR_LETTERS, COLOUR_NAMES, STEPS
from engine.chexers.position import (
    EXIT,
    JUMP,
    Position,
    act_from_json,
    game_notation,
    judge,
    make_state,
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

_STEP_INDEX = {step: k for k, step in enumerate(STEPS)}


class Chexers(Game):
    """Three-player Chexers by the COMP30024 2019 referee's rules (shared/rules/chexers.md)."""

    info = GameInfo(
        name="chexers",
        title="Chexers",
        min_seats=3,
        max_seats=3,
        chance=False,
        hidden_information=False,
        simultaneous=False,
        seat_names=COLOUR_NAMES,
        summary="Three colours race their four pieces across a hexagon; jumping over a "
                "piece converts it. First to exit four pieces wins.",
        timeout="loss",  # a seat that misses its deadline loses (no move is "neutral" here)
    )

    # ---- set-up ------------------------------------------------------------------------------

    def initial_state(self, num_seats: int, options: Mapping[str, Any]) -> State:
        if num_seats != 3:
            raise BadOptions("Chexers is played by exactly 3 seats")
        return Position.start().to_state()

    # ---- who acts and what they may do -------------------------------------------------------

    def decision(self, state: State) -> Decision:
        if state["outcome"] is not None:
            return TERMINAL
        return turn(state["turns"] % 3)

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["outcome"] is not None or seat != state["turns"] % 3:
            return []
        pos = Position.from_state(state, with_history=False)
        return [act.to_json() for act in pos.legal_actions()]

    def action_key(self, action: Action) -> Any:
        """``(from q, from r, 0 for EXIT or 1 + step index for MOVE/JUMP)``; PASS, which is
        never listed with another action, is ``(-9, -9, -1)``. Ordering a legal list by this
        key gives the canonical order of rules §4."""
        action = notation.parse_action(action)
        if action["type"] == "PASS":
            return (-9, -9, -1)
        q, r = action["from"]
        if action["type"] == "EXIT":
            return (q, r, 0)
        dq, dr = action["to"][0] - q, action["to"][1] - r
        if action["type"] == "JUMP":
            dq, dr = dq // 2, dr // 2
        return (q, r, 1 + _STEP_INDEX.get((dq, dr), 6))

    def parse_action(self, raw: Any) -> Action:
        return notation.parse_action(raw)

    def check_action(self, state: State, seat: int, raw: Any) -> Action:
        """``NotToAct`` if ``seat`` is not to move, then :meth:`Position.check`:
        ``MalformedAction`` or ``IllegalAction`` with a rule from
        :data:`~engine.chexers.position.RULES`. Accepts exactly the listed legal actions."""
        if seat not in self.decision(state).seats:
            raise NotToAct()
        return Position.from_state(state, with_history=False).check(raw).to_json()

    def explain_illegal(self, state: State, seat: int, action: Action) -> IllegalAction:
        try:
            Position.from_state(state, with_history=False).check(action)
        except IllegalAction as exc:
            return exc
        raise ValueError(f"{notation.action_text(action)} is legal here")

    # ---- transitions -------------------------------------------------------------------------

    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        ((seat, action),) = actions.items()
        pos = Position.from_state(state, with_history=False)
        act = act_from_json(action)
        assert act is not None, "apply_unchecked needs a legal action"
        before = pos.turn
        pos.apply(act)
        # The state's history is kept as text; the fast core's verdict (made with an empty
        # history) is redone here with the real count.
        history = {} if act.kind == EXIT else dict(state["history"])
        key = f"{notation.board_text(pos.cells)} {COLOUR_LETTERS[pos.turn % 3]}"
        count = history.get(key, 0) + 1
        history[key] = count
        result = judge(pos.turn, count, pos.exits[seat], seat)
        data: dict[str, Any] = {"seat": seat, "turn": before, "action": act.to_json(),
                                "exited": act.kind == EXIT}
        if act.kind == JUMP and pos.last_converted() >= 0:
            data["converted"] = notation.hex_json(act.mid)
            data["converted_from"] = pos.last_converted()
        return Transition(make_state(pos, history, result), [Event("action", data)])

    # ---- what seats see ------------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The whole public position, the same for every seat and spectators: ``cxn``,
        ``pieces`` and ``exits`` per colour name, ``turn`` (``T``), ``to_move`` (colour name
        or ``None`` when over) and ``to_move_seat``, ``repetitions`` (occurrences of the
        current key so far) and ``history`` (key text → count, enough to rebuild the exact
        position with :meth:`Position.from_view`)."""
        pos = Position.from_state(state, with_history=False)
        over = state["outcome"] is not None
        to_move = pos.turn % 3
        pieces = pos.pieces_json()
        board = notation.board_text(pos.cells)
        key = f"{board} {COLOUR_LETTERS[to_move]}"
        return {
            "cxn": notation.to_cxn(pos.cells, pos.exits, pos.turn, board),
            "pieces": {name: pieces[letter]
                       for name, letter in zip(COLOUR_NAMES, COLOUR_LETTERS, strict=True)},
            "exits": {name: pos.exits[c] for c, name in enumerate(COLOUR_NAMES)},
            "turn": pos.turn,
            "to_move": None if over else COLOUR_NAMES[to_move],
            "to_move_seat": None if over else to_move,
            "repetitions": state["history"].get(key, 0),
            "history": dict(state["history"]),
        }

    def outcome(self, state: State) -> Outcome | None:
        raw = state["outcome"]
        return None if raw is None else Outcome.from_json(raw)

    # ---- notation ----------------------------------------------------------------------------

    def to_notation(self, state: State) -> str:
        """CXN (§7.2) while the history is fresh and the game goes on; otherwise CXN plus a
        fifth field, the history (see :func:`~engine.chexers.notation.parse_game_notation`),
        so that every state, finished or not, reads back exactly."""
        cxn = Position.from_state(state, with_history=False).to_cxn()
        return game_notation(cxn, state["history"], state["outcome"] is not None)

    def from_notation(self, text: str, options: Mapping[str, Any] | None = None) -> State:
        """A state from CXN with a fresh history ``{key: 1}`` (§7.2), or from CXN plus a
        history field; raises ``BadNotation``."""
        return Position.from_notation(text).to_state()

    def action_text(self, action: Action) -> str:
        return notation.action_text(notation.parse_action(action))

    # ---- helpers for bots ----------------------------------------------------------------------

    def position(self, state: State) -> Position:
        """The fast-core position of a state, history included (for search)."""
        return Position.from_state(state)
