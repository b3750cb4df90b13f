"""Battle Line position notation: one line of text for a full state (hidden parts included).

Grammar (fields separated by single spaces; the options field may be left out)::

    position := flags SP hands SP discards SP tops SP known SP turn [SP options]
    flags    := flag 8("/" flag)                   flags 1..9, left to right
    flag     := side mark side [";" env *("," env)] ["#" seat]
    side     := "-" | card *("," card)             seat 0's side, then seat 1's; play order
    mark     := "|" | "<" | ">"                    "<": both sides complete, seat 0 completed
                                                   first; ">": seat 1 first; "|" otherwise
    env      := ("Fog" | "Mud") "@" seat           environment card and the seat that played it
    hands    := cards "/" cards                    seat 0's hand / seat 1's hand
    discards := cards "/" cards                    discard piles, oldest first
    tops     := stack "/" stack                    Scout-returned cards on the troop deck /
    stack    := "-" | card "@" seat *("," card "@" seat)     on the tactics deck, top first,
                                                   each with the seat that returned it
    known    := cards "/" cards                    cards seat 0 knows are in seat 1's hand /
                                                   the reverse (drawn from its Scout stack)
    turn     := seat ":" phase *(":" param)
    phase    := "deal" | "play" | "claim" | "draw" | "chance=" deck | "return" | "over"
              | "stalemate"
    param    := "s" digit   Scout draws left (1-3)   | "r" digit   Scout returns left (1-2)
              | "p" digit   turns in a row that ended in a pass (1)
    options  := name "=" value *("," name "=" value)   e.g. claim_timing=after_play
    cards    := "-" | card *("," card)
    card     := value colour ("7r", "10b") | Alexander | Darius | Cavalry | Shield | Fog | Mud
              | Scout | Redeploy | Deserter | Traitor
    seat     := "0" | "1"

Everything else is derived: each deck holds every card named nowhere else (the troop deck
during the deal); tactics counts and Leader use (each tactics card a seat played stays on its
side, beside a flag under its name, or in its discard pile); the completion order (a side is
complete when it holds 3 cards, 4 under Mud, plus the mark); the claimable flags; the outcome
(``over``: the seat holding five or three adjacent flags won; ``stalemate``: the stalemate
rule on the flags as written).

Example, seat 1 to play, flag 2 won by seat 0 with a wedge, Fog beside flag 5::

    -|-/8r,9r,10r|3b,5g#0/-|-/-|-/7p|-;Fog@1/-|-/-|-/-|-/-|-
    1o,2o,4y,6y,9y,10y,Alexander/1b,2b,4b,6p,8p,9p,Mud 5r/- -/- -/- 1:play
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.battleline import formations
from engine.battleline.cards import (
    CARDS,
    DECKS,
    ENVIRONMENT,
    INDEX,
    LEADERS,
    NUM_TROOPS,
    WILD_VALUES,
)
from engine.battleline.game import BattleLine
from engine.battleline.rules import (
    NUM_FLAGS,
    OPTION_VALUES,
    claim_window_open,
    deck_count,
    new_state,
    reorder,
    stalemate_outcome,
    winner_reason,
)
from engine.core import BadNotation, BadOptions, Outcome, State

_PHASES = ("deal", "play", "claim", "draw", "return", "over", "stalemate")


def _cards(cards: list[str]) -> str:
    return ",".join(cards) if cards else "-"


def _stack(stack: list[list[Any]]) -> str:
    return ",".join(f"{c}@{p}" for c, p in reversed(stack)) if stack else "-"


def write(state: State) -> str:
    """The notation of ``state`` (see the module docstring)."""
    flags = []
    for f in state["flags"]:
        order = f["order"]
        mark = "|" if len(order) < 2 else ("<" if order[0] == 0 else ">")
        text = _cards(f["sides"][0]) + mark + _cards(f["sides"][1])
        env = [f"{e}@{f['env'][e]}" for e in ENVIRONMENT if e in f["env"]]
        if env:
            text += ";" + ",".join(env)
        if f["claimed"] is not None:
            text += f"#{f['claimed']}"
        flags.append(text)
    phase = state["phase"]
    if phase == "chance":
        phase = f"chance={state['pending']}"
    elif phase == "over" and state["outcome"]["reason"] == "stalemate":
        phase = "stalemate"
    turn = f"{state['seat']}:{phase}"
    for letter, key in (("s", "scout"), ("r", "returns"), ("p", "passes")):
        if state[key]:
            turn += f":{letter}{state[key]}"
    options = ",".join(f"{k}={state['options'][k]}" for k in OPTION_VALUES)
    return " ".join([
        "/".join(flags),
        _cards(state["hands"][0]) + "/" + _cards(state["hands"][1]),
        _cards(state["discards"][0]) + "/" + _cards(state["discards"][1]),
        _stack(state["tops"]["troop"]) + "/" + _stack(state["tops"]["tactics"]),
        _cards(state["known"][0]) + "/" + _cards(state["known"][1]),
        turn,
        options,
    ])


class _Reader:
    """Parses one position, remembering every card named so each appears once."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def card(self, token: str) -> str:
        if token not in INDEX:
            raise BadNotation(f"unknown card {token!r}")
        if token in self.seen:
            raise BadNotation(f"card {token} appears twice")
        self.seen.add(token)
        return token

    def cards(self, text: str) -> list[str]:
        if text == "-":
            return []
        if not text:
            raise BadNotation("an empty card list is written '-'")
        return [self.card(t) for t in text.split(",")]

    def pair(self, text: str, what: str) -> tuple[str, str]:
        parts = text.split("/")
        if len(parts) != 2:
            raise BadNotation(f"{what} must be two lists separated by '/', got {text!r}")
        return parts[0], parts[1]


def _seat(text: str, what: str) -> int:
    if text not in ("0", "1"):
        raise BadNotation(f"{what}: a seat is 0 or 1, got {text!r}")
    return int(text)


def read(game: BattleLine, text: str, options: Mapping[str, Any] | None = None) -> State:
    """Parse a position; raises :class:`BadNotation` for anything malformed or impossible."""
    if not isinstance(text, str):
        raise BadNotation("a position is a string")
    fields = text.split(" ")
    if len(fields) not in (6, 7):
        raise BadNotation(f"a position has 6 or 7 space-separated fields, got {len(fields)}")
    merged = dict(options or {})
    if len(fields) == 7:
        for item in fields[6].split(","):
            key, sep, value = item.partition("=")
            if not sep:
                raise BadNotation(f"an option is written name=value, got {item!r}")
            merged[key] = value
    try:
        opts = game.normalize_options(merged)
    except BadOptions as exc:
        raise BadNotation(f"bad options: {exc.message}") from None
    state = new_state(opts)
    r = _Reader()

    # Flags.
    flag_texts = fields[0].split("/")
    if len(flag_texts) != NUM_FLAGS:
        raise BadNotation(f"there are {NUM_FLAGS} flags separated by '/', got {len(flag_texts)}")
    flags: list[dict[str, Any]] = []
    marks: list[str] = []
    for n, ftext in enumerate(flag_texts, start=1):
        claimed = None
        if "#" in ftext:
            ftext, _, who = ftext.partition("#")
            claimed = _seat(who, f"flag {n} claim")
        env: dict[str, int] = {}
        if ";" in ftext:
            ftext, _, etext = ftext.partition(";")
            for token in etext.split(","):
                name, sep, who = token.partition("@")
                if not sep or name not in ENVIRONMENT or name in env:
                    raise BadNotation(f"flag {n}: bad environment card {token!r}")
                r.card(name)
                env[name] = _seat(who, f"flag {n} {name}")
        found = [c for c in ftext if c in "|<>"]
        if len(found) != 1:
            raise BadNotation(f"flag {n}: the two sides are separated by one of | < >, "
                              f"got {ftext!r}")
        mark = found[0]
        left, _, right = ftext.partition(mark)
        sides = [r.cards(left), r.cards(right)]
        size = 4 if "Mud" in env else 3
        for p, side in enumerate(sides):
            for card in side:
                if INDEX[card] >= NUM_TROOPS and card not in WILD_VALUES:
                    raise BadNotation(f"flag {n}: {card} cannot stand in a formation")
            if len(side) > 4 or (len(side) > size and "Mud" in env):
                raise BadNotation(f"flag {n}: seat {p}'s side holds too many cards")
        flags.append({"sides": sides, "env": env, "claimed": claimed, "order": []})
        marks.append(mark)

    hands = [r.cards(t) for t in r.pair(fields[1], "hands")]
    discards = [r.cards(t) for t in r.pair(fields[2], "discards")]
    tops: dict[str, list[list[Any]]] = {}
    for deck, stext in zip(DECKS, r.pair(fields[3], "tops"), strict=True):
        stack: list[list[Any]] = []
        if stext != "-":
            for token in stext.split(","):
                name, sep, who = token.partition("@")
                if not sep:
                    raise BadNotation(f"a Scout-returned card is written card@seat, "
                                      f"got {token!r}")
                card = r.card(name)
                if (INDEX[card] < NUM_TROOPS) != (deck == "troop"):
                    raise BadNotation(f"{card} cannot lie on the {deck} deck")
                stack.append([card, _seat(who, f"{card} on the {deck} deck")])
        tops[deck] = stack[::-1]
    known_texts = r.pair(fields[4], "known")
    known = []
    for p, ktext in enumerate(known_texts):
        cards = [] if ktext == "-" else ktext.split(",")
        for card in cards:
            if card not in hands[1 - p]:
                raise BadNotation(f"seat {p} cannot know {card!r} in seat {1 - p}'s hand: "
                                  "it is not there")
        known.append(sorted(cards, key=INDEX.__getitem__))

    # Turn.
    parts = fields[5].split(":")
    if len(parts) < 2:
        raise BadNotation(f"the turn field is seat:phase[:params], got {fields[5]!r}")
    seat = _seat(parts[0], "turn")
    phase, _, pending = parts[1].partition("=")
    if phase == "chance":
        if pending not in DECKS:
            raise BadNotation(f"chance names the deck drawn from, got {parts[1]!r}")
    elif phase not in _PHASES or pending:
        raise BadNotation(f"unknown phase {parts[1]!r}")
    params = {"s": 0, "r": 0, "p": 0}
    for token in parts[2:]:
        if len(token) != 2 or token[0] not in params or not token[1].isdigit():
            raise BadNotation(f"unknown turn parameter {token!r}")
        params[token[0]] = int(token[1])
    if params["s"] > 3 or params["r"] > 2 or params["p"] > 2:
        raise BadNotation("turn parameter out of range")

    # Assemble.
    troop_rest = [c for c in CARDS[:NUM_TROOPS] if c not in r.seen]
    tactics_rest = [c for c in CARDS[NUM_TROOPS:] if c not in r.seen]
    state.update({
        "seat": seat,
        "phase": "over" if phase == "stalemate" else phase,
        "hands": [sorted(h, key=INDEX.__getitem__) for h in hands],
        "decks": {"troop": troop_rest, "tactics": tactics_rest},
        "tops": tops,
        "flags": flags,
        "discards": discards,
        "known": known,
        "scout": params["s"],
        "returns": params["r"],
        "passes": params["p"],
        "pending": pending or None,
    })
    played = [0, 0]
    leaders = [0, 0]
    for p in (0, 1):
        mine = [c for f in flags for c in f["sides"][p]] + discards[p]
        mine += [e for f in flags for e, q in f["env"].items() if q == p]
        played[p] = sum(1 for c in mine if INDEX[c] >= NUM_TROOPS)
        leaders[p] = sum(1 for c in mine if c in LEADERS)
    if max(leaders) > 1:
        raise BadNotation("a seat may play only one Leader per game")
    state["tactics_played"] = played
    state["leaders"] = [bool(n) for n in leaders]
    for n, (f, mark) in enumerate(zip(flags, marks, strict=True), start=1):
        reorder(f, (), 0)
        if len(f["order"]) == 2:
            if mark == "|":
                raise BadNotation(f"flag {n}: both sides are complete; write < or > for who "
                                  "completed first")
            f["order"] = [0, 1] if mark == "<" else [1, 0]
        elif mark != "|":
            raise BadNotation(f"flag {n}: {mark} is only for two complete sides")
    _check_phase(state, phase)
    if state["phase"] != "over" and claim_window_open(state):
        state["claimable"] = formations.claimable_flags(state, seat)
    if phase == "over":
        holders: list[int | None] = [f["claimed"] for f in flags]
        for p in (0, 1):
            reason = winner_reason(holders, p)
            if reason is not None:
                state["outcome"] = Outcome.win(p, 2, reason,
                                               [holders.count(0), holders.count(1)]).to_json()
                break
        else:
            raise BadNotation("'over' needs a seat holding five flags or three adjacent ones")
    elif phase == "stalemate":
        state["outcome"] = stalemate_outcome(state).to_json()
    return state


def _check_phase(state: State, phase: str) -> None:
    """Reject turn fields no game can reach (so every parsed position can be played on)."""
    hands = state["hands"]
    scout, returns, pending = state["scout"], state["returns"], state["pending"]
    if phase == "deal":
        h0, h1 = len(hands[0]), len(hands[1])
        busy = (any(f["sides"][0] or f["sides"][1] or f["env"] or f["claimed"] is not None
                    for f in state["flags"]) or state["discards"] != [[], []]
                or state["tops"] != {"troop": [], "tactics": []} or state["known"] != [[], []])
        if busy or any(INDEX[c] >= NUM_TROOPS for h in hands for c in h) \
                or h0 not in (h1, h1 + 1) or h1 >= 7 or state["seat"] != 0:
            raise BadNotation("during the deal only hands of troop cards exist, dealt "
                              "alternately from seat 0 (turn 0:deal)")
    if (scout or returns) and phase in ("play", "over", "stalemate", "deal"):
        raise BadNotation(f"Scout parameters make no sense in phase {phase}")
    if returns and phase != "return" or phase == "return" and not returns:
        raise BadNotation("phase return goes with r1 or r2 (and only it)")
    if phase == "chance" and (not state["decks"][pending] or state["tops"][pending]):
        raise BadNotation(f"a chance draw from the {pending} deck needs unknown cards there "
                          "and no Scout-returned card on top")
    if phase == "draw" and not (deck_count(state, "troop") and deck_count(state, "tactics")):
        raise BadNotation("a deck choice needs cards in both decks")
