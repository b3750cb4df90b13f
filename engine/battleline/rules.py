"""Battle Line rules as pure functions on the JSON state: constants, the state layout,
the helpers every module shares, and the transitions ``apply_unchecked`` dispatches to.

Transitions work on ``s``, a fresh shallow copy of the state: they rebind the fields they
change to new lists or dicts (copy-on-write), so the state they were given is never mutated
and a step costs a few microseconds plus claim proofs.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from typing import Any, Final

from engine.battleline import formations
from engine.battleline.cards import (
    DECKS,
    ENVIRONMENT,
    INDEX,
    LEADERS,
    NUM_TROOPS,
    TACTICS,
    TROOPS,
    WILD_VALUES,
    deck_of,
)
from engine.core import Event, Outcome, State

NUM_FLAGS: Final = 9
HAND_SIZE: Final = 7
SCOUT_DRAWS: Final = 3
SCOUT_RETURNS: Final = 2

OPTION_VALUES: Final[dict[str, tuple[str, ...]]] = {
    "claim_timing": ("start", "after_play"),
    "mud_excess": ("keep", "forbid"),
    "stalemate": ("resolve", "draw"),
}
DEFAULT_OPTIONS: Final = {"claim_timing": "start", "mud_excess": "keep", "stalemate": "resolve"}

ACTION_TYPES: Final = ("claim", "play", "pass", "draw", "return", "end_claims")
_INDEX_OF = INDEX.__getitem__


def card_kind(card: str) -> str:
    """How a card is played: ``"slot"`` (troops and morale tactics take a formation slot),
    ``"env"`` (Fog, Mud) or the guile card's own name."""
    if INDEX[card] < NUM_TROOPS or card in WILD_VALUES:
        return "slot"
    if card in ENVIRONMENT:
        return "env"
    return card


def new_state(options: Mapping[str, Any]) -> State:
    """The state before the deal. Fields:

    ``phase``: ``deal`` (chance: the next card of the deal) · ``play`` (play a card or pass;
    claims too under ``claim_timing="start"``) · ``claim`` (after-play claims when no deck
    choice follows — after a pass, or with a deck empty: claims or ``end_claims``) ·
    ``draw`` (choose a deck; claims too right after a play under ``"after_play"``) ·
    ``chance`` (a card comes from deck ``pending``) · ``return`` (Scout: return a card) ·
    ``over``.
    ``seat``: whose turn. ``hands``: canonical order. ``decks``: the cards of each deck below
    the known stack, canonical order (their order is not modelled: each draw is a chance
    node). ``tops``: per deck the Scout-returned stack, ``[card, seat that returned it]``,
    last entry on top. ``flags``: 9 dicts: ``sides`` (per seat, cards in play order),
    ``env`` (environment card -> seat that played it), ``claimed`` (seat or null), ``order``
    (seats whose side is complete, in completion order). ``discards``: per seat, in order.
    ``tactics_played``/``leaders``: per seat. ``known``: per seat, cards it knows to be in the
    other seat's hand (drawn from its Scout stack). ``scout``: Scout draws left this turn;
    ``returns``: Scout returns left. ``passes``: consecutive turns that ended in a pass.
    ``claimable``: flags the seat to act may claim now (a cache of the claim proofs; empty
    outside a claim window). ``outcome``: the result once over.
    """
    return {
        "num_seats": 2,
        "options": dict(options),
        "phase": "deal",
        "seat": 0,
        "hands": [[], []],
        "decks": {"troop": list(TROOPS), "tactics": list(TACTICS)},
        "tops": {"troop": [], "tactics": []},
        "flags": [{"sides": [[], []], "env": {}, "claimed": None, "order": []}
                  for _ in range(NUM_FLAGS)],
        "discards": [[], []],
        "tactics_played": [0, 0],
        "leaders": [False, False],
        "known": [[], []],
        "scout": 0,
        "returns": 0,
        "pending": None,
        "passes": 0,
        "claimable": [],
        "outcome": None,
    }


# ---- small pure helpers on states ------------------------------------------------------------


def deck_count(state: Mapping[str, Any], deck: str) -> int:
    return len(state["decks"][deck]) + len(state["tops"][deck])


def hidden_cards(state: Mapping[str, Any], seat: int | None) -> list[str]:
    """The cards ``seat`` (``None``: a spectator) cannot see: every undrawn card except the
    deck tops it returned itself (Scout), and the opponent's hand less what it saw go in
    (both hands for a spectator)."""
    hidden: list[str] = []
    for deck in DECKS:
        hidden.extend(state["decks"][deck])
        hidden.extend(card for card, by in state["tops"][deck] if by != seat)
    if seat is None:
        hidden.extend(state["hands"][0])
        hidden.extend(state["hands"][1])
    else:
        known = state["known"][seat]
        hidden.extend(card for card in state["hands"][1 - seat] if card not in known)
    return hidden


def winner_reason(claimed: list[int | None], seat: int) -> str | None:
    """``"breakthrough"`` (3 adjacent flags), ``"five_flags"`` or ``None`` for ``seat``."""
    for n in range(NUM_FLAGS - 2):
        if claimed[n] == seat and claimed[n + 1] == seat and claimed[n + 2] == seat:
            return "breakthrough"
    if sum(1 for c in claimed if c == seat) >= 5:
        return "five_flags"
    return None


def flag_scores(state: Mapping[str, Any]) -> list[int]:
    claimed = [f["claimed"] for f in state["flags"]]
    return [claimed.count(0), claimed.count(1)]


def claim_window_open(state: Mapping[str, Any]) -> bool:
    """Whether the seat to act may claim now (the notation derives ``claimable`` from it)."""
    phase: str = state["phase"]
    if state["options"]["claim_timing"] == "start":
        return phase == "play"
    return phase == "claim" or (phase == "draw" and state["scout"] in (0, SCOUT_DRAWS))


def stalemate_outcome(state: Mapping[str, Any]) -> Outcome:
    """The result of a game ended by the stalemate rule (flags already awarded)."""
    scores = flag_scores(state)
    if state["options"]["stalemate"] == "draw":
        return Outcome.draw(2, "stalemate", scores)
    claimed = [f["claimed"] for f in state["flags"]]
    winners = [s for s in (0, 1) if winner_reason(claimed, s) is not None]
    if len(winners) == 1:
        return Outcome.win(winners[0], 2, "stalemate", scores)
    if scores[0] != scores[1]:
        return Outcome.win(0 if scores[0] > scores[1] else 1, 2, "stalemate", scores)
    return Outcome.draw(2, "stalemate", scores)


def reorder(flag: dict[str, Any], lost: tuple[int, ...], actor: int) -> None:
    """Recompute a (fresh, owned) flag dict's completion order after a change. Seats in
    ``lost`` lost a card there: they drop out and, if still complete, complete again now.
    Sides completed by this change are appended, the acting seat's side first."""
    size = 4 if "Mud" in flag["env"] else 3
    sides = flag["sides"]
    complete = (len(sides[0]) >= size, len(sides[1]) >= size)
    order = [p for p in flag["order"] if complete[p] and p not in lost]
    for p in (actor, 1 - actor):
        if complete[p] and p not in order:
            order.append(p)
    flag["order"] = order


def _insort(hand: list[str], card: str) -> list[str]:
    out = list(hand)
    bisect.insort(out, card, key=_INDEX_OF)
    return out


def _without(cards: list[str], card: str) -> list[str]:
    out = list(cards)
    out.remove(card)
    return out


# ---- transitions ------------------------------------------------------------------------------


def _flag_copy(s: State, n: int) -> dict[str, Any]:
    """A private copy of flag ``n`` (0-based) installed in ``s`` (copy-on-write)."""
    flags = list(s["flags"])
    f = dict(flags[n])
    f["sides"] = [list(f["sides"][0]), list(f["sides"][1])]
    f["env"] = dict(f["env"])
    flags[n] = f
    s["flags"] = flags
    return f


def _set_hand(s: State, seat: int, hand: list[str]) -> None:
    hands = list(s["hands"])
    hands[seat] = hand
    s["hands"] = hands


def _forget(s: State, seat: int, card: str) -> None:
    """``card`` left ``seat``'s hand face up: nobody needs to remember it there."""
    other = 1 - seat
    if card in s["known"][other]:
        known = list(s["known"])
        known[other] = _without(known[other], card)
        s["known"] = known


def holds_four(flag: Mapping[str, Any]) -> bool:
    """Whether a side of this flag holds 4 cards (what ``mud_excess="forbid"`` protects)."""
    return len(flag["sides"][0]) >= 4 or len(flag["sides"][1]) >= 4


def apply_action(s: State, action: Mapping[str, Any], events: list[Event]) -> None:
    """Apply the acting seat's (legal, canonical) action to ``s``, a fresh shallow copy."""
    seat = s["seat"]
    kind = action["type"]
    if kind == "play":
        _play(s, seat, action, events)
    elif kind == "claim":
        _claim(s, seat, action["flag"], events)
    elif kind == "draw":
        s["claimable"] = []
        _draw_from(s, action["deck"], events)
    elif kind == "return":
        _return(s, seat, action["card"], events)
    elif kind == "pass":
        _pass(s, seat, events)
    else:  # end_claims
        s["claimable"] = []
        _close_claims(s, events)


def apply_chance(s: State, card: str, events: list[Event]) -> None:
    """Apply a chance outcome (the card dealt or drawn) to ``s``, a fresh shallow copy."""
    if s["phase"] == "deal":
        h0, h1 = s["hands"]
        seat = 0 if len(h0) <= len(h1) else 1
        s["decks"] = {"troop": _without(s["decks"]["troop"], card),
                      "tactics": s["decks"]["tactics"]}
        _set_hand(s, seat, _insort(s["hands"][seat], card))
        events.append(Event("deal", {"seat": seat}, {seat: {"card": card}}))
        if len(s["hands"][1]) == HAND_SIZE:
            _start_turn(s, 0)
        return
    deck = s["pending"]
    seat = s["seat"]
    decks = dict(s["decks"])
    decks[deck] = _without(decks[deck], card)
    s["decks"] = decks
    s["pending"] = None
    _set_hand(s, seat, _insort(s["hands"][seat], card))
    events.append(Event("draw", {"seat": seat, "deck": deck}, {seat: {"card": card}}))
    _after_draw(s, events)


def _start_turn(s: State, seat: int) -> None:
    s["seat"] = seat
    s["phase"] = "play"
    s["scout"] = 0
    s["returns"] = 0
    s["claimable"] = (formations.claimable_flags(s, seat)
                      if s["options"]["claim_timing"] == "start" else [])


def _end_turn(s: State) -> None:
    _start_turn(s, 1 - s["seat"])


def _claim(s: State, seat: int, flag: int, events: list[Event]) -> None:
    f = _flag_copy(s, flag - 1)
    f["claimed"] = seat
    s["claimable"] = [c for c in s["claimable"] if c != flag]
    events.append(Event("claim", {"seat": seat, "flag": flag}))
    reason = winner_reason([g["claimed"] for g in s["flags"]], seat)
    if reason is not None:
        _finish(s, Outcome.win(seat, 2, reason, flag_scores(s)), events)
    elif s["phase"] == "claim" and not s["claimable"]:
        _close_claims(s, events)


def _finish(s: State, outcome: Outcome, events: list[Event]) -> None:
    s["phase"] = "over"
    s["claimable"] = []
    s["scout"] = 0
    s["returns"] = 0
    s["pending"] = None
    s["outcome"] = outcome.to_json()
    events.append(Event("game_over", outcome.to_json()))


def _pass(s: State, seat: int, events: list[Event]) -> None:
    s["claimable"] = []
    s["passes"] = s["passes"] + 1
    events.append(Event("pass", {"seat": seat}))
    if s["options"]["claim_timing"] == "after_play":
        # The claim window follows the play step, a pass included (a seat whose sides are
        # all full must still be able to claim).
        claimable = formations.claimable_flags(s, seat)
        if claimable:
            s["claimable"] = claimable
            s["phase"] = "claim"
            return
    _after_pass(s, events)


def _close_claims(s: State, events: list[Event]) -> None:
    """The after-play claim phase ends: the turn goes on with its draw, or ends after a pass
    (``passes`` is reset by every play, so a non-zero count means this turn passed)."""
    if s["passes"]:
        _after_pass(s, events)
    else:
        _draw_step(s, events)


def _after_pass(s: State, events: list[Event]) -> None:
    if s["passes"] < 2:
        _end_turn(s)
        return
    # Stalemate: every unclaimed flag with exactly one complete side goes to that side.
    if s["options"]["stalemate"] == "resolve":
        for n, f in enumerate(s["flags"]):
            if f["claimed"] is None and len(f["order"]) == 1:
                winner = f["order"][0]
                _flag_copy(s, n)["claimed"] = winner
                events.append(Event("claim", {"seat": winner, "flag": n + 1,
                                              "by": "stalemate"}))
    _finish(s, stalemate_outcome(s), events)


def _play(s: State, seat: int, action: Mapping[str, Any], events: list[Event]) -> None:
    card = action["card"]
    s["claimable"] = []
    s["passes"] = 0
    _set_hand(s, seat, _without(s["hands"][seat], card))
    _forget(s, seat, card)
    events.append(Event("play", {"seat": seat, **action}))
    if INDEX[card] >= NUM_TROOPS:
        played = list(s["tactics_played"])
        played[seat] += 1
        s["tactics_played"] = played
        if card in LEADERS:
            leaders = list(s["leaders"])
            leaders[seat] = True
            s["leaders"] = leaders
    if card == "Scout":
        s["scout"] = SCOUT_DRAWS
    move_cards(s, seat, action)
    _after_play(s, events)


def move_cards(s: State, seat: int, action: Mapping[str, Any]) -> set[int]:
    """The table part of ``seat``'s legal ``play`` action: the card goes to its slot, beside
    its flag or to the discard pile, and guile tactics move their target. Works on a state or
    on any dict with the same ``flags`` and ``discards`` (a bot's board of public cards).
    Copy-on-write: the lists and flags it changes are replaced, never mutated. Returns the
    flags (0-based) it changed."""
    card = action["card"]
    opp = 1 - seat
    touched: set[int] = set()

    def flag(n: int) -> dict[str, Any]:
        touched.add(n)
        return _flag_copy(s, n)

    kind = card_kind(card)
    if kind == "slot":
        f = flag(action["flag"] - 1)
        f["sides"][seat].append(card)
        reorder(f, (), seat)
        return touched
    if kind == "env":
        f = flag(action["flag"] - 1)
        f["env"][card] = seat
        reorder(f, (), seat)
        return touched
    _discard(s, seat, card)
    if card == "Redeploy":
        target = action["target"]
        src = flag(action["from_flag"] - 1)
        env = target in ENVIRONMENT
        if env:
            del src["env"][target]
            reorder(src, (), seat)
        else:
            src["sides"][seat].remove(target)
            reorder(src, (seat,), seat)
        if action["to_flag"] is None:
            _discard(s, seat, target)
            return touched
        dst = flag(action["to_flag"] - 1)
        if env:
            dst["env"][target] = seat
        else:
            dst["sides"][seat].append(target)
        reorder(dst, (), seat)
    elif card == "Deserter":
        f = flag(action["flag"] - 1)
        target = action["target"]
        if target in ENVIRONMENT:
            del f["env"][target]
            reorder(f, (), seat)
        else:
            f["sides"][opp].remove(target)
            reorder(f, (opp,), seat)
        _discard(s, opp, target)
    elif card == "Traitor":
        src = flag(action["from_flag"] - 1)
        src["sides"][opp].remove(action["target"])
        reorder(src, (opp,), seat)
        dst = flag(action["to_flag"] - 1)
        dst["sides"][seat].append(action["target"])
        reorder(dst, (), seat)
    return touched


def _discard(s: State, seat: int, card: str) -> None:
    piles = list(s["discards"])
    piles[seat] = piles[seat] + [card]
    s["discards"] = piles


def _after_play(s: State, events: list[Event]) -> None:
    """The claim window of ``claim_timing="after_play"``, then the draw (or Scout's draws)."""
    if s["options"]["claim_timing"] == "after_play":
        claimable = formations.claimable_flags(s, s["seat"])
        if claimable:
            s["claimable"] = claimable
            if deck_count(s, "troop") and deck_count(s, "tactics"):
                s["phase"] = "draw"  # claims are offered beside the deck choice
            else:
                s["phase"] = "claim"
            return
    _draw_step(s, events)


def _draw_step(s: State, events: list[Event]) -> None:
    """The next draw of the turn: a deck choice, a forced deck, or none at all."""
    troop = deck_count(s, "troop")
    tactics = deck_count(s, "tactics")
    if troop and tactics:
        s["phase"] = "draw"
        return
    if not troop and not tactics:
        if s["scout"]:
            s["scout"] = 0
            _start_returns(s, events)
        else:
            _end_turn(s)
        return
    _draw_from(s, "troop" if troop else "tactics", events)


def _draw_from(s: State, deck: str, events: list[Event]) -> None:
    seat = s["seat"]
    tops = s["tops"][deck]
    if not tops:
        s["phase"] = "chance"
        s["pending"] = deck
        return
    card, owner = tops[-1]
    new_tops = dict(s["tops"])
    new_tops[deck] = tops[:-1]
    s["tops"] = new_tops
    _set_hand(s, seat, _insort(s["hands"][seat], card))
    private: dict[int, dict[str, Any]] = {seat: {"card": card}}
    if owner != seat:
        private[owner] = {"card": card}
        known = list(s["known"])
        known[owner] = _insort(known[owner], card)
        s["known"] = known
    events.append(Event("draw", {"seat": seat, "deck": deck}, private))
    _after_draw(s, events)


def _after_draw(s: State, events: list[Event]) -> None:
    if s["scout"]:
        s["scout"] -= 1
        if s["scout"]:
            _draw_step(s, events)
        else:
            _start_returns(s, events)
    else:
        _end_turn(s)


def _start_returns(s: State, events: list[Event]) -> None:
    returns = min(SCOUT_RETURNS, len(s["hands"][s["seat"]]))
    seat = s["seat"]
    if s["known"][1 - seat]:
        # The opponent can no longer tell which of the cards it knew are still in this hand.
        known = list(s["known"])
        known[1 - seat] = []
        s["known"] = known
    if returns:
        s["phase"] = "return"
        s["returns"] = returns
    else:
        _end_turn(s)


def _return(s: State, seat: int, card: str, events: list[Event]) -> None:
    deck = deck_of(card)
    _set_hand(s, seat, _without(s["hands"][seat], card))
    tops = dict(s["tops"])
    tops[deck] = tops[deck] + [[card, seat]]
    s["tops"] = tops
    s["returns"] -= 1
    events.append(Event("return", {"seat": seat, "deck": deck}, {seat: {"card": card}}))
    if not s["returns"]:
        _end_turn(s)


