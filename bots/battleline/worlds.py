"""Worlds a Battle Line seat cannot tell apart: determinizations built from its view alone.

A search for a game of hidden cards (ISMCTS, :mod:`bots.battleline.ismcts`) plays out
*worlds*: full game states in which every card the seat cannot see has been given a place.
:func:`sample_world` builds one from the seat's ``view`` and nothing else — it is never handed
the real state, so it cannot peek. The cards it places are the ones the view leaves unseen:
the troop and tactics cards that are on no flag, in no discard pile, not in the seat's hand,
not among the opponent's cards the seat knows (Scout returns it saw drawn) and not among the
deck tops it returned itself. They are dealt uniformly at random to the opponent's hand (as
many troop and tactics cards as the view says it holds), to the deck tops the opponent
returned, and to the decks.

A world *agrees with the view*: ``game.view(world, seat) == view`` — the property test of this
module checks it over many positions. Every sampled world is therefore one the real game could
be in, as far as the seat knows (the uniform draw is the seat's belief with no model of how the
opponent chose its cards).

:class:`DeckOrder` fixes the order in which a world's decks are drawn (a seeded priority per
card), so a world is a whole future of draws, not only a deal: two lines of play searched in
the same world draw the same cards.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.battleline.cards import DECKS, INDEX, NUM_TROOPS, TACTICS, TROOPS
from engine.core import State

_INDEX_OF = INDEX.__getitem__


def unseen_cards(view: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The troop cards and the tactics cards the view's seat has not seen (canonical order):
    in the opponent's hand (less the cards it knows there), the decks, or the deck tops the
    opponent returned."""
    seen: set[str] = set(view["hand"])
    seen.update(view.get("opponent_known", ()))
    for flag in view["flags"]:
        seen.update(flag["sides"][0])
        seen.update(flag["sides"][1])
        seen.update(flag["env"])
    for pile in view["discards"]:
        seen.update(pile)
    for deck in DECKS:
        seen.update(c for c in view["known_tops"][deck] if c is not None)
    return ([c for c in TROOPS if c not in seen], [c for c in TACTICS if c not in seen])


def sample_world(view: Mapping[str, Any], seat: int, rng: random.Random) -> State:
    """A full state that gives ``seat`` exactly ``view``, its hidden cards dealt at random.

    Raises ``ValueError`` if the view's counts cannot be met by its unseen cards (a view that
    no real game produces)."""
    opp = 1 - seat
    troops, tactics = unseen_cards(view)
    rng.shuffle(troops)
    rng.shuffle(tactics)
    pools = {"troop": troops, "tactics": tactics}

    def take(kind: str, n: int) -> list[str]:
        pool = pools[kind]
        if n > len(pool):
            raise ValueError(f"the view hides {n} {kind} cards more than it leaves unseen")
        out, pools[kind] = pool[:n], pool[n:]
        return out

    known = list(view.get("opponent_known", ()))
    counts = dict(view["hands"][opp])
    for card in known:
        counts["troop" if INDEX[card] < NUM_TROOPS else "tactics"] -= 1
    opp_hand = known + take("troop", counts["troop"]) + take("tactics", counts["tactics"])

    tops: dict[str, list[list[Any]]] = {}
    for deck in DECKS:
        stack = []
        for card in reversed(view["known_tops"][deck]):  # the view lists the top first
            if card is None:
                stack.append([take(deck, 1)[0], opp])
            else:
                stack.append([card, seat])
        tops[deck] = stack
    decks = {}
    for deck in DECKS:
        size = view["decks"][deck] - len(tops[deck])
        decks[deck] = sorted(take(deck, size), key=_INDEX_OF)
    if pools["troop"] or pools["tactics"]:
        raise ValueError("the view leaves cards unseen that no hand or deck can hold")

    hands: list[list[str]] = [[], []]
    hands[seat] = list(view["hand"])
    hands[opp] = sorted(opp_hand, key=_INDEX_OF)
    knowledge: list[list[str]] = [[], []]
    knowledge[seat] = sorted(known, key=_INDEX_OF)
    return {
        "num_seats": 2,
        "options": dict(view["options"]),
        "phase": view["phase"],
        "seat": view["turn_of"],
        "hands": hands,
        "decks": decks,
        "tops": tops,
        "flags": [{"sides": [list(f["sides"][0]), list(f["sides"][1])],
                   "env": dict(f["env"]),
                   "claimed": f["claimed"],
                   "order": list(f["complete"])} for f in view["flags"]],
        "discards": [list(view["discards"][0]), list(view["discards"][1])],
        "tactics_played": list(view["tactics_played"]),
        "leaders": list(view["leaders_played"]),
        # What the opponent knows of this seat's hand is not in this seat's view; it changes
        # nothing but the opponent's own view, so a world leaves it empty.
        "known": knowledge,
        "scout": view["scout_draws_left"],
        "returns": view["returns_left"],
        "pending": view["pending_draw"],
        "passes": view["passes"],
        "claimable": list(view["claimable"]),
        "outcome": view["outcome"],
    }


class DeckOrder:
    """The order a world's decks are drawn in: each card gets a random priority once and a
    draw takes the card of the deck with the lowest (a deck shuffled once)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._priority: dict[str, float] = {}

    def pick(self, cards: list[str]) -> str:
        priority = self._priority
        best, best_p = cards[0], 2.0
        for card in cards:
            p = priority.get(card)
            if p is None:
                p = priority[card] = self._rng.random()
            if p < best_p:
                best, best_p = card, p
        return best
