"""The greedy baseline: the card and flag with the best immediate formation potential.

From the seat's view alone:

* claims every flag it may (the engine offers only proven claims), lowest first;
* plays the troop card and flag whose side, with that card, can still reach the strongest
  formation (the engine's :func:`~engine.battleline.formations.completion_beating` over the
  seat's hand and every unseen troop card), minus the strongest the opponent can still reach
  on that flag (over the unseen cards); ties go to the first in canonical order;
* never plays a tactics card while it may pass instead; always draws from the troop deck;
  returns (after a Scout it never plays) the lowest troop card first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bots.battleline.board import board_of, is_troop
from bots.battleline.model import mask_of, seen_mask
from engine.battleline.cards import ALL_TROOPS_MASK, INDEX
from engine.battleline.formations import completion_beating, side_strength


class GreedyBot:
    """``choose(request)``: the greedy baseline's action for a Battle Line request."""

    name = "greedy"
    games = ("battleline",)
    """The games this bot plays (``arena run`` offers it as a house bot only for these)."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed  # deterministic; accepted for the bot registry

    def choose(self, request: Mapping[str, Any]) -> Any:
        view = request["view"]
        legal = request["legal_actions"]
        seat = request["seat"]
        for action in legal:
            if action["type"] == "claim":
                return action
        types = {a["type"] for a in legal}
        if "draw" in types:
            for action in legal:
                if action["type"] == "draw" and action["deck"] == "troop":
                    return action
        if "return" in types:
            return min((a for a in legal if a["type"] == "return"),
                       key=lambda a: (is_troop(a["card"]), INDEX[a["card"]] % 10))
        plays = [a for a in legal if a["type"] == "play" and is_troop(a["card"])]
        if not plays:
            for action in legal:
                if action["type"] in ("pass", "end_claims"):
                    return action
            return legal[0]
        board = board_of(view)
        hand_mask = mask_of(view["hand"])
        unseen = ALL_TROOPS_MASK & ~seen_mask(board) & ~hand_mask
        mine_avail = unseen | hand_mask
        cache: dict[tuple[str, int], int] = {}

        def best(cards: list[str], flag: Mapping[str, Any], avail: int) -> int:
            size = 4 if "Mud" in flag["env"] else 3
            fog = "Fog" in flag["env"]
            if len(cards) >= size:
                return side_strength(cards, size, fog)
            found = completion_beating(cards, avail & ~mask_of(cards), -1, size, fog)
            return -1 if found is None else found.formation.strength

        def score(action: Any) -> int:
            n = action["flag"] - 1
            flag = board["flags"][n]
            card = action["card"]
            key = (card, n)
            if key not in cache:
                mine = best(flag["sides"][seat] + [card], flag,
                            mine_avail & ~(1 << INDEX[card]))
                theirs = best(flag["sides"][1 - seat], flag, unseen)
                cache[key] = mine - theirs
            return cache[key]

        return max(plays, key=score)
