"""The :class:`BattleLine` game object: the engine contract (see the package docstring).

Who acts, legal actions, parsing, views, resampling and notation live here; the
transitions are in :mod:`engine.battleline.rules`, the illegal-action explanations in
:mod:`engine.battleline.explain`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from engine.battleline.cards import (
    DECKS,
    ENVIRONMENT,
    INDEX,
    LEADERS,
    NUM_TROOPS,
    TACTICS,
    WILD_VALUES,
)
from engine.battleline.explain import explain
from engine.battleline.rules import (
    ACTION_TYPES,
    DEFAULT_OPTIONS,
    HAND_SIZE,
    NUM_FLAGS,
    OPTION_VALUES,
    apply_action,
    apply_chance,
    card_kind,
    claim_window_open,
    deck_count,
    flag_scores,
    hidden_cards,
    holds_four,
    new_state,
    reorder,
    stalemate_outcome,
    winner_reason,
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

_TYPE_ORDER: Final = {t: n for n, t in enumerate(ACTION_TYPES)}
_INDEX_OF = INDEX.__getitem__
_TURN = (turn(0), turn(1))
_TROOP_CARDS: Final = frozenset(card for card, i in INDEX.items() if i < NUM_TROOPS)
_TROOP_PLAYS: Final = tuple(
    {card: {"type": "play", "card": card, "flag": n + 1}
     for card, i in INDEX.items() if i < NUM_TROOPS}
    for n in range(NUM_FLAGS))
"""Per flag (0-based), each troop card's play there. Legal-action lists share these objects
(as they share the lists a match memoises): callers read actions, never change them."""
_PLAY_FIELDS: Final = {
    # card kind -> the fields of its play action besides "type" and "card"
    "slot": ("flag",),
    "env": ("flag",),
    "Scout": (),
    "Redeploy": ("from_flag", "target", "to_flag"),
    "Deserter": ("flag", "target"),
    "Traitor": ("from_flag", "target", "to_flag"),
}


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
        timeout="loss",  # a seat that misses its deadline loses (no move is "neutral" here)
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
        # The hand is in canonical order: its troops first, then its tactics.
        troops = [card for card in hand if card in _TROOP_CARDS]
        tactics = hand[len(troops):] if tactics_ok else ()
        if "Scout" in tactics:
            out.append({"type": "play", "card": "Scout"})
        for n in open_flags:
            flag_no = n + 1
            f = flags[n]
            if free[n] and troops:
                plays = _TROOP_PLAYS[n]
                out.extend([plays[card] for card in troops])
            for card in tactics:
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
                        if target == "Mud" and forbid_mud and holds_four(f):
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
                        if target == "Mud" and forbid_mud and holds_four(f):
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
        if not (troops and any(free)):
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
        return explain(state, seat, action)

    # ---- transitions -------------------------------------------------------------------------

    def apply_unchecked(self, state: State, actions: Mapping[int, Action]) -> Transition:
        s = dict(state)
        events: list[Event] = []
        if CHANCE in actions:
            apply_chance(s, actions[CHANCE], events)
        else:
            apply_action(s, actions[s["seat"]], events)
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
        hidden = hidden_cards(state, seat)
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


def _kinds(hand: list[str]) -> dict[str, int]:
    troops = len([c for c in hand if c in _TROOP_CARDS])
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


GAME: Final = BattleLine()

# The state helpers lived here before rules.py took them; bots import some from this module.
__all__ = [
    "ACTION_TYPES", "DEFAULT_OPTIONS", "GAME", "HAND_SIZE", "NUM_FLAGS", "OPTION_VALUES",
    "BattleLine", "action_text", "card_kind", "claim_window_open", "deck_count", "flag_scores",
    "new_state", "reorder", "stalemate_outcome", "winner_reason",
]
