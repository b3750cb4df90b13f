"""Battle Line cards: names, canonical order, and the bit layout the formation code uses.

Every card has a text name and an index ``0..69``; the index order is the canonical order
(hands, decks and chance outcomes are listed in it).

* Troop cards ``0..59``: ``index = colour * 10 + (value - 1)``, named value then colour
  letter (``"1r"`` … ``"10p"``). Colours in order: ``r`` red, ``o`` orange, ``y`` yellow,
  ``g`` green, ``b`` blue, ``p`` purple.
* Tactics cards ``60..69`` in the order of :data:`TACTICS`.

A set of troop cards is a Python ``int`` bitmask with bit ``index`` set per card; the value
bits of one colour are ``(mask >> (10 * colour)) & 0x3FF`` with bit ``value - 1``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

COLOURS: Final = ("r", "o", "y", "g", "b", "p")
VALUES: Final = tuple(range(1, 11))

LEADERS: Final = ("Alexander", "Darius")
MORALE: Final = ("Alexander", "Darius", "Cavalry", "Shield")
ENVIRONMENT: Final = ("Fog", "Mud")
GUILE: Final = ("Scout", "Redeploy", "Deserter", "Traitor")
TACTICS: Final = MORALE + ENVIRONMENT + GUILE
"""Tactics names in canonical order. ``Cavalry`` is Companion Cavalry, ``Shield`` is Shield
Bearers."""

TROOPS: Final = tuple(f"{v}{c}" for c in COLOURS for v in VALUES)
CARDS: Final = TROOPS + TACTICS
INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(CARDS)}
"""Card name -> canonical index."""

NUM_TROOPS: Final = 60
ALL_TROOPS_MASK: Final = (1 << NUM_TROOPS) - 1

WILD_VALUES: Final[dict[str, int]] = {
    # card -> bitmask of the values it may take (bit v-1); any colour for all of them.
    "Alexander": 0x3FF,
    "Darius": 0x3FF,
    "Cavalry": 1 << 7,
    "Shield": 0b111,
}
WILD_MAX: Final[dict[str, int]] = {"Alexander": 10, "Darius": 10, "Cavalry": 8, "Shield": 3}

TROOP_DECK: Final = "troop"
TACTICS_DECK: Final = "tactics"
DECKS: Final = (TROOP_DECK, TACTICS_DECK)


def is_troop(card: str) -> bool:
    return INDEX[card] < NUM_TROOPS


def deck_of(card: str) -> str:
    """The deck a card belongs to (and goes back on under Scout)."""
    return TROOP_DECK if INDEX[card] < NUM_TROOPS else TACTICS_DECK


def value_of(card: str) -> int:
    """A troop card's value (1..10)."""
    return INDEX[card] % 10 + 1


def colour_of(card: str) -> str:
    """A troop card's colour letter."""
    return COLOURS[INDEX[card] // 10]


def sort_cards(cards: list[str]) -> list[str]:
    """A new list in canonical order."""
    return sorted(cards, key=INDEX.__getitem__)


def troop_mask(cards: Iterable[str]) -> int:
    """The bitmask of the troop cards among ``cards`` (tactics ignored)."""
    mask = 0
    for card in cards:
        i = INDEX[card]
        if i < NUM_TROOPS:
            mask |= 1 << i
    return mask


def cards_of_mask(mask: int) -> list[str]:
    """Troop card names of a bitmask, in canonical order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(TROOPS[low.bit_length() - 1])
        mask ^= low
    return out
