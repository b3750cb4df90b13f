"""Battle Line rules behind the engine contract (see the package docstring for the tables).

The state is a plain JSON dict; :func:`new_state` documents its fields. ``apply`` copies only
what a transition changes (the top-level dict and the touched lists), so a step costs a few
microseconds plus claim proofs.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from typing import Any, Final

from engine.battleline import formations
from engine.battleline.cards import (
    CARDS,
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
from engine.core import (
    CHANCE,
    CHANCE_DECISION,
    TERMINAL,
    Action,
    BadOptions,
    Decision,
    Event,
    Game,
    GameInfo,
    IllegalAction,
    MalformedAction,
    Outcome,
    State,
    Transition,
    check_fields,
    turn,
)

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
_TYPE_ORDER: Final = {t: n for n, t in enumerate(ACTION_TYPES)}

_INDEX_OF = INDEX.__getitem__
_TURN = (turn(0), turn(1))
_PLAY_FIELDS: Final = {
    # card kind -> the fields of its play action besides "type" and "card"
    "slot": ("flag",),
    "env": ("flag",),
    "Scout": (),
    "Redeploy": ("from_flag", "target", "to_flag"),
    "Deserter": ("flag", "target"),
    "Traitor": ("from_flag", "target", "to_flag"),
}


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
    claims too under ``claim_timing="start"``) · ``claim`` (after-play claims with no draw
    choice following: claims or ``end_claims``) · ``draw`` (choose a deck; claims too right
    after a play under ``"after_play"``) · ``chance`` (a card comes from deck ``pending``) ·
    ``return`` (Scout: return a card) · ``over``.
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


# ---- the game --------------------------------------------------------------------------------


class BattleLine(Game):
    """Battle Line for two seats (seat 0 "north" moves first)."""

    info = GameInfo(
        name="battleline",
        title="Battle Line",
        min_seats=2,
        max_seats=2,
        chance=True,
        hidden_information=True,
        simultaneous=False,
        seat_names=("north", "south"),
        default_options=DEFAULT_OPTIONS,
        summary="Nine flags, poker-like three-card formations, ten tactics cards; win five "
                "flags or three adjacent ones.",
    )

    # ---- options and set-up ----------------------------------------------------------------

    def check_options(self, options: Mapping[str, Any]) -> None:
        for key, allowed in OPTION_VALUES.items():
            if options[key] not in allowed:
                raise BadOptions(f"option {key!r} must be one of {', '.join(allowed)}",
                                 option=key)

    def initial_state(self, num_seats: int, options: Mapping[str, Any]) -> State:
        if num_seats != 2:
            raise BadOptions("Battle Line is for two seats")
        return new_state(self.normalize_options(options))

    # ---- who acts ----------------------------------------------------------------------------

    def decision(self, state: State) -> Decision:
        phase = state["phase"]
        if phase == "deal" or phase == "chance":
            return CHANCE_DECISION
        if phase == "over":
            return TERMINAL
        return _TURN[state["seat"]]

    def chance_outcomes(self, state: State) -> list[tuple[Action, int]]:
        phase = state["phase"]
        if phase == "deal":
            return [(c, 1) for c in state["decks"]["troop"]]
        if phase == "chance":
            return [(c, 1) for c in state["decks"][state["pending"]]]
        raise ValueError("not a chance node")

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        phase = state["phase"]
        if seat != state["seat"] or phase in ("deal", "chance", "over"):
            return []
        out: list[Action] = [{"type": "claim", "flag": f} for f in state["claimable"]]
        if phase == "play":
            out.extend(self._play_actions(state, seat))
        elif phase == "draw":
            out.extend({"type": "draw", "deck": d} for d in DECKS if deck_count(state, d))
        elif phase == "return":
            out.extend({"type": "return", "card": c} for c in state["hands"][seat])
        elif phase == "claim":
            out.append({"type": "end_claims"})
        return out

    def _play_actions(self, state: State, seat: int) -> list[Action]:
        """Plays and the pass, generated directly in ``action_key`` order: Scout (no flag)
        first, then per flag the hand's cards in canonical order, then the pass."""
        hand = state["hands"][seat]
        flags = state["flags"]
        opp = 1 - seat
        tactics_ok = state["tactics_played"][seat] <= state["tactics_played"][opp]
        forbid_mud = state["options"]["mud_excess"] == "forbid"
        open_flags = [n for n in range(NUM_FLAGS) if flags[n]["claimed"] is None]
        free = [False] * NUM_FLAGS
        for n in open_flags:
            f = flags[n]
            free[n] = len(f["sides"][seat]) < (4 if "Mud" in f["env"] else 3)
        out: list[Action] = []
        has_troop = False
        has_tactics = False
        for card in hand:
            if INDEX[card] < NUM_TROOPS:
                has_troop = True
            else:
                has_tactics = True
        any_free = any(free)
        if has_tactics and tactics_ok and "Scout" in hand:
            out.append({"type": "play", "card": "Scout"})
        for n in open_flags:
            flag_no = n + 1
            f = flags[n]
            for card in hand:
                i = INDEX[card]
                if i < NUM_TROOPS:
                    if free[n]:
                        out.append({"type": "play", "card": card, "flag": flag_no})
                    continue
                if not tactics_ok:
                    break  # tactics follow troops in canonical order
                if card in WILD_VALUES:
                    if free[n] and not (card in LEADERS and state["leaders"][seat]):
                        out.append({"type": "play", "card": card, "flag": flag_no})
                elif card in ENVIRONMENT:
                    if card not in f["env"]:
                        out.append({"type": "play", "card": card, "flag": flag_no})
                elif card == "Redeploy":
                    targets = list(f["sides"][seat])
                    targets.extend(e for e, p in f["env"].items() if p == seat)
                    for target in sorted(targets, key=_INDEX_OF):
                        if target == "Mud" and forbid_mud and _holds_four(f):
                            continue
                        out.append({"type": "play", "card": card, "from_flag": flag_no,
                                    "target": target, "to_flag": None})
                        env_target = target in ENVIRONMENT
                        for m in open_flags:
                            if m != n and (free[m] if not env_target
                                           else target not in flags[m]["env"]):
                                out.append({"type": "play", "card": card, "from_flag": flag_no,
                                            "target": target, "to_flag": m + 1})
                elif card == "Deserter":
                    targets = list(f["sides"][opp])
                    targets.extend(e for e, p in f["env"].items() if p == opp)
                    for target in sorted(targets, key=_INDEX_OF):
                        if target == "Mud" and forbid_mud and _holds_four(f):
                            continue
                        out.append({"type": "play", "card": card, "flag": flag_no,
                                    "target": target})
                elif card == "Traitor":
                    targets = [c for c in f["sides"][opp] if INDEX[c] < NUM_TROOPS]
                    for target in sorted(targets, key=_INDEX_OF):
                        for m in open_flags:
                            # Any flag with a free slot of ours, flag n itself included.
                            if free[m]:
                                out.append({"type": "play", "card": card, "from_flag": flag_no,
                                            "target": target, "to_flag": m + 1})
        if not (has_troop and any_free):
            out.append({"type": "pass"})
        return out

    def action_key(self, action: Action) -> Any:
        if not isinstance(action, dict):
            return (9, INDEX.get(action, -1) if isinstance(action, str) else -1, 0, 0, 0)
        kind = _TYPE_ORDER.get(str(action.get("type")), 8)
        card = action.get("card")
        target = action.get("target")
        if kind == 3:
            return (3, 0, DECKS.index(action["deck"]), 0, 0)
        return (kind,
                action.get("flag") or action.get("from_flag") or 0,
                INDEX.get(card, -1) if card is not None else -1,
                INDEX.get(target, -1) if target is not None else -1,
                action.get("to_flag") or 0)

    # ---- checking actions --------------------------------------------------------------------

    def parse_action(self, raw: Any) -> Action:
        if not isinstance(raw, dict):
            raise MalformedAction(f"an action must be a JSON object, got {type(raw).__name__}")
        kind = raw.get("type")
        if not isinstance(kind, str) or kind not in _TYPE_ORDER:
            raise MalformedAction(f"unknown action type {kind!r}; one of "
                                  f"{', '.join(ACTION_TYPES)}", field="type")
        if kind == "claim":
            check_fields(raw, {"type": str, "flag": int})
            return {"type": "claim", "flag": _flag(raw, "flag")}
        if kind in ("pass", "end_claims"):
            check_fields(raw, {"type": str})
            return {"type": kind}
        if kind == "draw":
            check_fields(raw, {"type": str, "deck": str})
            if raw["deck"] not in DECKS:
                raise MalformedAction(f"unknown deck {raw['deck']!r}; one of troop, tactics",
                                      field="deck")
            return {"type": "draw", "deck": raw["deck"]}
        if kind == "return":
            check_fields(raw, {"type": str, "card": str})
            return {"type": "return", "card": _card(raw, "card")}
        # play
        card = raw.get("card")
        if not isinstance(card, str):
            raise MalformedAction("a play needs a card name", field="card")
        _card(raw, "card")
        fields = _PLAY_FIELDS[card_kind(card)]
        shape: dict[str, Any] = {"type": str, "card": str}
        for name in fields:
            shape[name] = str if name == "target" else (
                (int, type(None)) if (name == "to_flag" and card == "Redeploy") else int)
        check_fields(raw, shape)
        out: dict[str, Any] = {"type": "play", "card": card}
        for name in fields:
            if name == "target":
                out[name] = _card(raw, name)
            elif raw[name] is None:
                out[name] = None
            else:
                out[name] = _flag(raw, name)
        return out

    def explain_illegal(self, state: State, seat: int, action: Action) -> IllegalAction:
        return _explain(state, seat, action)

    # ---- transitions -------------------------------------------------------------------------

    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        s = dict(state)
        events: list[Event] = []
        if CHANCE in actions:
            _chance(s, actions[CHANCE], events)
            return Transition(s, events)
        seat = s["seat"]
        action = actions[seat]
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
        return Transition(s, events)

    # ---- what seats see ----------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        phase = state["phase"]
        acting = phase not in ("deal", "chance", "over")
        out: dict[str, Any] = {
            "seat": seat,
            "phase": phase,
            "to_act": state["seat"] if acting else None,
            "turn_of": state["seat"],
            "options": dict(state["options"]),
            "flags": [{"flag": n + 1,
                       "sides": [list(f["sides"][0]), list(f["sides"][1])],
                       "env": dict(f["env"]),
                       "claimed": f["claimed"],
                       "complete": list(f["order"])}
                      for n, f in enumerate(state["flags"])],
            "discards": [list(state["discards"][0]), list(state["discards"][1])],
            "decks": {d: deck_count(state, d) for d in DECKS},
            "hands": [_kinds(h) for h in state["hands"]],
            "tactics_played": list(state["tactics_played"]),
            "leaders_played": list(state["leaders"]),
            "claimable": list(state["claimable"]),
            "pending_draw": state["pending"],
            "scout_draws_left": state["scout"],
            "returns_left": state["returns"],
            "passes": state["passes"],
            "outcome": state["outcome"],
        }
        if seat is not None:
            out["hand"] = list(state["hands"][seat])
            out["known_tops"] = {d: [c if p == seat else None
                                     for c, p in reversed(state["tops"][d])] for d in DECKS}
            out["opponent_known"] = list(state["known"][seat])
        return out

    def resample_hidden(self, state: State, seat: int | None, rng: Any) -> State:
        hidden: list[str] = []
        for d in DECKS:
            hidden.extend(state["decks"][d])
            hidden.extend(c for c, p in state["tops"][d] if p != seat)
        if seat is None:
            hidden.extend(state["hands"][0])
            hidden.extend(state["hands"][1])
        else:
            known = state["known"][seat]
            hidden.extend(c for c in state["hands"][1 - seat] if c not in known)
        mapping: dict[str, str] = {}
        for is_troop in (True, False):
            pool = sorted((c for c in hidden if (INDEX[c] < NUM_TROOPS) == is_troop),
                          key=_INDEX_OF)
            shuffled = list(pool)
            rng.shuffle(shuffled)
            mapping.update(zip(pool, shuffled, strict=True))
        get = mapping.get
        s = dict(state)
        s["hands"] = [sorted((get(c, c) for c in h), key=_INDEX_OF) for h in state["hands"]]
        s["decks"] = {d: sorted((get(c, c) for c in state["decks"][d]), key=_INDEX_OF)
                      for d in DECKS}
        s["tops"] = {d: [[get(c, c), p] for c, p in state["tops"][d]] for d in DECKS}
        s["known"] = [sorted((get(c, c) for c in k), key=_INDEX_OF) for k in state["known"]]
        return s

    def outcome(self, state: State) -> Outcome | None:
        data = state["outcome"]
        return None if data is None else Outcome.from_json(data)

    # ---- notation ----------------------------------------------------------------------------

    def to_notation(self, state: State) -> str:
        from engine.battleline.notation import write
        return write(state)

    def from_notation(self, text: str, options: Mapping[str, Any] | None = None) -> State:
        from engine.battleline.notation import read
        return read(self, text, options)

    def action_text(self, action: Action) -> str:
        return action_text(action)


# ---- parsing helpers ---------------------------------------------------------------------------


def _flag(raw: Mapping[str, Any], name: str) -> int:
    value = raw[name]
    if type(value) is not int or not 1 <= value <= NUM_FLAGS:
        raise MalformedAction(f"{name} must be a flag number 1-9, got {value!r}", field=name)
    return value


def _card(raw: Mapping[str, Any], name: str) -> str:
    value = raw[name]
    if not isinstance(value, str) or value not in INDEX:
        raise MalformedAction(f"unknown card {value!r} (troops like '7r' or '10b', tactics "
                              f"{', '.join(TACTICS)})", field=name)
    return value


def _holds_four(flag: Mapping[str, Any]) -> bool:
    return len(flag["sides"][0]) >= 4 or len(flag["sides"][1]) >= 4


def _kinds(hand: list[str]) -> dict[str, int]:
    troops = sum(1 for c in hand if INDEX[c] < NUM_TROOPS)
    return {"troop": troops, "tactics": len(hand) - troops}


def action_text(action: Action) -> str:
    """Short readable form: ``claim 3``, ``7r→3``, ``Fog→5``, ``Scout``, ``Redeploy 5b 2→4``,
    ``Redeploy 5b 2→discard``, ``Deserter 9g@4``, ``Traitor 9g 2→4``, ``draw troop``,
    ``return 7r``, ``pass``, ``end claims``; a chance outcome is the card drawn."""
    if isinstance(action, str):
        return action
    if not isinstance(action, dict):
        return repr(action)
    kind = action.get("type")
    if kind == "claim":
        return f"claim {action['flag']}"
    if kind == "draw":
        return f"draw {action['deck']}"
    if kind == "return":
        return f"return {action['card']}"
    if kind == "pass":
        return "pass"
    if kind == "end_claims":
        return "end claims"
    card = action.get("card")
    if card == "Scout":
        return "Scout"
    if card == "Deserter":
        return f"Deserter {action['target']}@{action['flag']}"
    if card in ("Redeploy", "Traitor"):
        to = "discard" if action["to_flag"] is None else action["to_flag"]
        return f"{card} {action['target']} {action['from_flag']}→{to}"
    return f"{card}→{action.get('flag')}"


# ---- transitions (each works on ``s``, a fresh shallow copy it may rebind fields of) ------------


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


def _chance(s: State, card: str, events: list[Event]) -> None:
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
    opp = 1 - seat
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
    kind = card_kind(card)
    if kind == "slot":
        f = _flag_copy(s, action["flag"] - 1)
        f["sides"][seat].append(card)
        reorder(f, (), seat)
    elif kind == "env":
        f = _flag_copy(s, action["flag"] - 1)
        f["env"][card] = seat
        reorder(f, (), seat)
    else:
        _discard(s, seat, card)
        if card == "Scout":
            s["scout"] = SCOUT_DRAWS
        elif card == "Redeploy":
            _redeploy(s, seat, action)
        elif card == "Deserter":
            f = _flag_copy(s, action["flag"] - 1)
            target = action["target"]
            if target in ENVIRONMENT:
                del f["env"][target]
                reorder(f, (), seat)
            else:
                f["sides"][opp].remove(target)
                reorder(f, (opp,), seat)
            _discard(s, opp, target)
        else:  # Traitor
            src = _flag_copy(s, action["from_flag"] - 1)
            src["sides"][opp].remove(action["target"])
            reorder(src, (opp,), seat)
            dst = _flag_copy(s, action["to_flag"] - 1)
            dst["sides"][seat].append(action["target"])
            reorder(dst, (), seat)
    _after_play(s, events)


def _redeploy(s: State, seat: int, action: Mapping[str, Any]) -> None:
    target = action["target"]
    src = _flag_copy(s, action["from_flag"] - 1)
    env = target in ENVIRONMENT
    if env:
        del src["env"][target]
        reorder(src, (), seat)
    else:
        src["sides"][seat].remove(target)
        reorder(src, (seat,), seat)
    if action["to_flag"] is None:
        _discard(s, seat, target)
        return
    dst = _flag_copy(s, action["to_flag"] - 1)
    if env:
        dst["env"][target] = seat
    else:
        dst["sides"][seat].append(target)
    reorder(dst, (), seat)


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


# ---- explaining illegal actions ---------------------------------------------------------------


def _illegal(message: str, rule: str, **details: Any) -> IllegalAction:
    return IllegalAction(message, rule, **details)


def _explain(state: State, seat: int, action: Mapping[str, Any]) -> IllegalAction:
    phase = state["phase"]
    kind = action["type"]
    if phase == "over":
        return _illegal("the game is over", "game_over")
    if kind == "claim":
        flag = action["flag"]
        if not claim_window_open(state):
            return _illegal("claims are made at the start of the turn" if
                            state["options"]["claim_timing"] == "start" else
                            "claims are made right after the play", "wrong_phase")
        proof = formations.prove_claim(state, seat, flag)
        if proof.rule == "flag_claimed":
            return _illegal(f"flag {flag} is already claimed", "flag_claimed", flag=flag)
        if proof.rule == "side_incomplete":
            return _illegal(f"your side of flag {flag} is not complete", "side_incomplete",
                            flag=flag)
        if proof.rule == "claim_not_proven":
            details: dict[str, Any] = {"flag": flag}
            if proof.formation is not None:
                details["formation"] = proof.formation.to_json()
            if proof.opponent is not None:
                details["opponent"] = proof.opponent.to_json()
                message = (f"flag {flag}: the opponent's complete formation is not beaten "
                           f"by yours")
            else:
                assert proof.counter_example is not None
                details["counter_example"] = proof.counter_example.to_json()
                cards = ", ".join(proof.counter_example.cards) or "its cards"
                message = (f"flag {flag} cannot be proven: the opponent could complete with "
                           f"{cards} ({proof.counter_example.formation.category} "
                           f"{proof.counter_example.formation.total})")
            return _illegal(message, "claim_not_proven", **details)
        return _illegal("that claim is not legal now", "not_legal")
    if kind == "end_claims":
        return _illegal("there is no claim phase to end now", "wrong_phase")
    if kind == "draw":
        if phase != "draw":
            return _illegal("no deck choice is due now", "wrong_phase")
        return _illegal(f"the {action['deck']} deck is empty", "deck_empty")
    if kind == "return":
        if phase != "return":
            return _illegal("cards are returned only after a Scout's draws", "wrong_phase")
        return _illegal(f"{action['card']} is not in your hand", "not_in_hand")
    if phase != "play":
        return _illegal("a card is played (or a pass made) only in the play phase",
                        "wrong_phase")
    if kind == "pass":
        return _illegal("you may pass only when no troop card in your hand has a free slot",
                        "pass_not_allowed")
    return _explain_play(state, seat, action)


def _explain_play(state: State, seat: int, action: Mapping[str, Any]) -> IllegalAction:
    card = action["card"]
    opp = 1 - seat
    flags = state["flags"]
    if card not in state["hands"][seat]:
        return _illegal(f"{card} is not in your hand", "not_in_hand", card=card)
    if INDEX[card] >= NUM_TROOPS:
        played = state["tactics_played"]
        if played[seat] > played[opp]:
            return _illegal("you have played more tactics cards than your opponent",
                            "tactics_limit")
        if card in LEADERS and state["leaders"][seat]:
            return _illegal("you have already played a Leader this game", "second_leader")
    kind = card_kind(card)

    def open_flag(name: str) -> IllegalAction | None:
        flag = action[name]
        if flag is not None and flags[flag - 1]["claimed"] is not None:
            return _illegal(f"flag {flag} is claimed", "flag_claimed", flag=flag)
        return None

    def slot_free(flag: int) -> bool:
        f = flags[flag - 1]
        return len(f["sides"][seat]) < formations.flag_size(f["env"])

    for name in ("flag", "from_flag", "to_flag"):
        if name in action:
            error = open_flag(name)
            if error is not None:
                return error
    if kind == "slot":
        return _illegal(f"your side of flag {action['flag']} is full", "slot_full",
                        flag=action["flag"])
    if kind == "env":
        return _illegal(f"{card} is already beside flag {action['flag']}", "environment_present")
    if card == "Scout":
        return _illegal("Scout cannot be played now", "not_legal")
    target = action["target"]
    if card == "Redeploy":
        f = flags[action["from_flag"] - 1]
        if target not in f["sides"][seat] and f["env"].get(target) != seat:
            return _illegal(f"{target} is not one of your cards beside flag "
                            f"{action['from_flag']}", "no_such_card", card=target)
        if target == "Mud" and _holds_four(f):
            return _illegal("Mud stays while a side of its flag holds 4 cards "
                            "(mud_excess=forbid)", "mud_excess")
        if action["to_flag"] == action["from_flag"]:
            return _illegal("Redeploy moves a card to another flag", "same_flag")
        if target not in ENVIRONMENT and action["to_flag"] is not None \
                and not slot_free(action["to_flag"]):
            return _illegal(f"your side of flag {action['to_flag']} is full", "slot_full")
        return _illegal("that Redeploy is not legal now", "not_legal")
    if card == "Deserter":
        f = flags[action["flag"] - 1]
        if target not in f["sides"][opp] and f["env"].get(target) != opp:
            return _illegal(f"{target} is not an opponent's card beside flag {action['flag']}",
                            "no_such_card", card=target)
        if target == "Mud" and _holds_four(f):
            return _illegal("Mud stays while a side of its flag holds 4 cards "
                            "(mud_excess=forbid)", "mud_excess")
        return _illegal("that Deserter is not legal now", "not_legal")
    # Traitor
    f = flags[action["from_flag"] - 1]
    if target not in f["sides"][opp]:
        return _illegal(f"{target} is not an opponent's card beside flag "
                        f"{action['from_flag']}", "no_such_card", card=target)
    if INDEX[target] >= NUM_TROOPS:
        return _illegal("Traitor takes troop cards only", "not_a_troop", card=target)
    if not slot_free(action["to_flag"]):
        return _illegal(f"your side of flag {action['to_flag']} is full", "slot_full")
    return _illegal("that Traitor is not legal now", "not_legal")


GAME: Final = BattleLine()
CARD_NAMES: Final = CARDS
