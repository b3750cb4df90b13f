"""Every action a game can ever list, enumerated once: the fixed action index of the RL envs.

A *catalog* is a tuple of canonical actions sorted by the game's ``action_key``, so that index
``i`` means the same action in every position, every match and every version that keeps the
game's action shapes (what a learned policy needs: PettingZoo's classic games fix theirs the
same way). A position's legal actions are a subset of its game's catalog; the envs turn them
into the action mask. ``tests/envs`` walks random playouts to check that every legal action
is catalogued and that every catalogued action is well formed (``parse_action`` returns it
unchanged).

Catalogs are built from each game's documented action shapes (its package docstring), from
its own tables (cards, hexes, squares), and are cached per game. A game with no catalog here
is indexed by position in its legal list instead (:class:`engine.envs.actions.LegalListIndex`).

Sizes: Battle Line 11,478 · Chexers 331 · Barca 5,882.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache

from engine.core import Action, Game


def _battleline() -> Iterator[Action]:
    from engine.battleline.cards import CARDS, DECKS, ENVIRONMENT, MORALE, TROOPS
    from engine.battleline.rules import NUM_FLAGS, card_kind

    flags = range(1, NUM_FLAGS + 1)
    on_table = TROOPS + MORALE + ENVIRONMENT  # what Redeploy moves and Deserter removes
    yield from ({"type": "claim", "flag": f} for f in flags)
    for card in CARDS:
        kind = card_kind(card)
        if kind in ("slot", "env"):
            yield from ({"type": "play", "card": card, "flag": f} for f in flags)
        elif kind == "Scout":
            yield {"type": "play", "card": card}
        elif kind == "Redeploy":
            for f in flags:
                for target in on_table:
                    for to in (None, *(t for t in flags if t != f)):
                        yield {"type": "play", "card": card, "from_flag": f, "target": target,
                               "to_flag": to}
        elif kind == "Deserter":
            yield from ({"type": "play", "card": card, "flag": f, "target": target}
                        for f in flags for target in on_table)
        elif kind == "Traitor":
            # to_flag may equal from_flag: the troop changes sides at the same flag.
            yield from ({"type": "play", "card": card, "from_flag": f, "target": target,
                         "to_flag": to} for f in flags for target in TROOPS for to in flags)
    yield {"type": "pass"}
    yield from ({"type": "draw", "deck": d} for d in DECKS)
    yield from ({"type": "return", "card": c} for c in CARDS)
    yield {"type": "end_claims"}


def _chexers() -> Iterator[Action]:
    from engine.chexers.geometry import EXIT_HEXES, HEXES, NEIGHBOURS

    exits = {h for hexes in EXIT_HEXES for h in hexes}
    for i, (q, r) in enumerate(HEXES):
        if (q, r) in exits:
            yield {"type": "EXIT", "from": [q, r]}
        for _step, near, far in NEIGHBOURS[i]:
            yield {"type": "MOVE", "from": [q, r], "to": list(HEXES[near])}
            if far >= 0:
                yield {"type": "JUMP", "from": [q, r], "to": list(HEXES[far])}
    yield {"type": "PASS"}


def _barca() -> Iterator[Action]:
    from engine.barca.geometry import DIRECTIONS, ELEPHANT, SIZE, SQUARE_NAMES

    # Every animal slides along the elephant's (queen's) lines, or a subset of them.
    for start, name in enumerate(SQUARE_NAMES):
        file, rank = start % SIZE, start // SIZE
        for df, dr in DIRECTIONS[ELEPHANT]:
            f, r = file + df, rank + dr
            while 0 <= f < SIZE and 0 <= r < SIZE:
                move = {"type": "move", "from": name, "to": SQUARE_NAMES[r * SIZE + f]}
                yield move
                yield {**move, "claim": True}
                f, r = f + df, r + dr
    yield {"type": "pass"}
    yield {"type": "claim"}


_ENUMERATORS: dict[str, Callable[[], Iterator[Action]]] = {
    "battleline": _battleline,
    "chexers": _chexers,
    "barca": _barca,
}


def has_catalog(game: Game) -> bool:
    return game.info.name in _ENUMERATORS


@cache
def _catalog(name: str, game: Game) -> tuple[Action, ...]:
    return tuple(sorted(_ENUMERATORS[name](), key=game.action_key))


def catalog(game: Game) -> tuple[Action, ...]:
    """The game's every possible action, canonical and sorted by ``game.action_key``; raises
    ``KeyError`` for a game without one (:func:`has_catalog`). Callers must not mutate the
    actions (they are shared)."""
    if not has_catalog(game):
        raise KeyError(game.info.name)
    return _catalog(game.info.name, game)

