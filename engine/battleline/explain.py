"""Why an action is illegal: the precise rule broken, for :meth:`BattleLine.explain_illegal`.

Called only for well-formed actions that are not in the legal list, so every branch names a
rule; the details never depend on information hidden from the acting seat (a failed claim's
counter-example uses the unseen troop cards, the same set whatever the hands hold).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.battleline import formations
from engine.battleline.cards import ENVIRONMENT, INDEX, LEADERS, NUM_TROOPS
from engine.battleline.rules import card_kind, claim_window_open, holds_four
from engine.core import IllegalAction, State


def _illegal(message: str, rule: str, **details: Any) -> IllegalAction:
    return IllegalAction(message, rule, **details)


def explain(state: State, seat: int, action: Mapping[str, Any]) -> IllegalAction:
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
        if target == "Mud" and holds_four(f):
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
        if target == "Mud" and holds_four(f):
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
