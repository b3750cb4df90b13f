"""What a seat can see of a Battle Line table, in the shape the engine's proofs read.

:func:`board_of` turns a seat's view (the ``view`` of a ``request``) into a *board*: a dict
with ``flags`` (per flag ``sides``, ``env``, ``claimed``, ``order``) and ``discards``, the two
fields :func:`engine.battleline.formations.can_claim` reads. A board holds only public
information, so a proof on it is exactly the proof the engine will run for a claim.

:func:`after_play` applies one of the seat's own ``play`` actions to a copy of a board (a
troop or tactics card, guile included) so a bot can ask "what would the table look like";
:func:`provable` and :func:`wins` answer the claim questions on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.battleline import formations
from engine.battleline.cards import INDEX, NUM_TROOPS
from engine.battleline.rules import NUM_FLAGS, move_cards, winner_reason

Board = dict[str, Any]


def board_of(view: Mapping[str, Any]) -> Board:
    """The public table of a view (fresh lists: callers may change them)."""
    return {
        "flags": [{"sides": [list(f["sides"][0]), list(f["sides"][1])],
                   "env": dict(f["env"]),
                   "claimed": f["claimed"],
                   "order": list(f["complete"])} for f in view["flags"]],
        "discards": [list(view["discards"][0]), list(view["discards"][1])],
    }


def flag_size(flag: Mapping[str, Any]) -> int:
    return 4 if "Mud" in flag["env"] else 3


def has_slot(flag: Mapping[str, Any], seat: int) -> bool:
    """Whether ``seat`` may still add a card to its side of ``flag``."""
    return flag["claimed"] is None and len(flag["sides"][seat]) < flag_size(flag)


def after_play(board: Board, seat: int, action: Mapping[str, Any]) -> tuple[Board, set[int]]:
    """The board once ``seat`` made the (legal) ``play`` action, and the flags (0-based) it
    changed: the engine's own :func:`~engine.battleline.rules.move_cards`, which replaces what
    it changes, so the input board is not modified."""
    after: Board = {"flags": board["flags"], "discards": board["discards"]}
    touched = move_cards(after, seat, action)
    return after, touched


def provable(board: Board, seat: int, flags: Iterable[int] | None = None) -> set[int]:
    """The open flags (0-based) ``seat`` could claim on ``board`` now, among ``flags``
    (default: all nine)."""
    out = set()
    unseen = formations.unseen_mask(board)
    for n in (range(NUM_FLAGS) if flags is None else flags):
        f = board["flags"][n]
        if f["claimed"] is not None or len(f["sides"][seat]) < flag_size(f):
            continue
        if formations.can_claim(board, seat, n + 1, unseen):
            out.add(n)
    return out


def wins(board: Board, seat: int, extra: Iterable[int] = ()) -> bool:
    """Whether ``seat`` has won once it also holds the flags ``extra`` (0-based)."""
    claimed = [f["claimed"] for f in board["flags"]]
    for n in extra:
        claimed[n] = seat
    return winner_reason(claimed, seat) is not None


def is_troop(card: str) -> bool:
    return INDEX[card] < NUM_TROOPS
