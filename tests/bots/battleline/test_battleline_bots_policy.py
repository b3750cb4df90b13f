"""Deep Barca's rules around the model (paper sections 3.1, 3.5, 3.6) and the greedy baseline,
on positions written in the game's notation. Every decision is made from the seat's view."""

from __future__ import annotations

from typing import Any

import pytest

from bots import registry as bots
from bots.battleline.deep_barca import Decision, DeepBarca
from bots.battleline.greedy import GreedyBot
from engine.battleline import GAME
from engine.battleline.formations import can_claim
from engine.rng import Rng

EMPTY = "-|-"


def position(flags: dict[int, str], hands: str, discards: str = "-/-",
             turn: str = "0:play") -> Any:
    text = "/".join(flags.get(n, EMPTY) for n in range(1, 10))
    return GAME.from_notation(f"{text} {hands} {discards} -/- -/- {turn}")


def decide(state: Any, **options: Any) -> Decision:
    seat = state["seat"]
    return DeepBarca(**options).decide(GAME.view(state, seat), GAME.legal_actions(state, seat),
                                       seat)


OPP_HAND = "10p,10y,10g,10b,9p,8p,7p"


def test_claims_come_first() -> None:
    state = position({2: "10r,9r,8r|5b", 4: "1o|2o"}, f"1g,2y,3p,1b,2g,3o,4y/{OPP_HAND}")
    assert decide(state).action == {"type": "claim", "flag": 2}


def test_a_tactics_card_that_wins_the_game_now_is_played() -> None:
    # Flags 1 and 2 held; the Leader as the 8r makes flag 3 unbeatable: three in a row.
    state = position({1: "4r,5r,6r|-#0", 2: "4o,5o,6o|-#0", 3: "10r,9r|5b"},
                     "Alexander,1g,2y,3p,1b,2o,3g/7p,7y,7g,7b,1p,2p,3b")
    d = decide(state)
    assert d.rule == "win"
    assert d.action == {"type": "play", "card": "Alexander", "flag": 3}


def test_no_tactics_card_without_a_reason() -> None:
    state = position({3: "10r,9r|5b"}, "Alexander,1g,2y,3p,1b,2o,3g/7p,7y,7g,7b,1p,2p,3b")
    d = decide(state)
    assert d.rule == "model" and d.action["card"] != "Alexander"


LOSING = {4: "1r,2r,3r<4g,5g,6g#1", 5: "2b,7g|9r,9o,9y", 6: "1y,2y,3y<4b,5b,6b#1"}


def test_a_tactics_card_saves_a_flag_whose_loss_loses_the_game() -> None:
    state = position(LOSING, f"Deserter,1g,2g,3o,1p,2p,3p/{OPP_HAND}")
    assert can_claim(state, 1, 5)  # the opponent would take 4-5-6: three in a row
    d = decide(state)
    assert d.rule == "save"
    assert d.action["card"] == "Deserter" and d.action["flag"] == 5
    assert d.action["target"] in ("9r", "9o", "9y")


def test_no_save_when_the_flag_stays_weak_and_the_game_is_not_at_stake() -> None:
    # The Deserter would break the phalanx, but two nines still beat 2b,7g: not above 50%,
    # and losing flag 5 alone does not lose the game. Discard on it instead (3.5).
    state = position({5: "2b,7g|9r,9o,9y"}, f"Deserter,1g,2g,3o,1p,4p,5y/{OPP_HAND}")
    d = decide(state)
    assert d.rule == "discard"
    assert d.action["flag"] == 5 and d.action["card"] != "Deserter"


def test_discard_on_a_lost_flag_gives_up_the_card_the_opponent_wants() -> None:
    # Flag 1 is lost (an unbeatable wedge); the opponent's 7b,6b on flag 2 want the 5b.
    state = position({1: "2y|10r,9r,8r", 2: "-|7b,6b"}, f"5b,1o,2g,4y,3p,1r,2r/{OPP_HAND}")
    d = decide(state)
    assert d.rule == "discard"
    assert d.action == {"type": "play", "card": "5b", "flag": 1}
    # Without the rule the model plays on a live flag instead.
    plain = decide(state, discard=False)
    assert plain.rule == "model" and plain.action["flag"] != 1


def test_discard_keeps_the_card_its_own_formations_want() -> None:
    # Same, but the 5b is also our third five on flag 3: the 1o goes instead.
    state = position({1: "2y|10r,9r,8r", 2: "-|7b,3b", 3: "5g,5o|1p"},
                     f"5b,1o,9g,4y,3p,1r,2r/{OPP_HAND}")
    d = decide(state)
    assert d.rule == "discard" and d.action["flag"] == 1
    assert d.action["card"] != "5b"


def test_draws_a_tactics_card_against_a_threat_troops_cannot_meet() -> None:
    threat = {1: "2b,3g|10r,9r"}
    d = decide(position(threat, f"5b,1o,2g,4y,3p,1r,2r/{OPP_HAND}", turn="0:draw"))
    assert d.action == {"type": "draw", "deck": "tactics"}
    # No threat: the troop deck.
    calm = {1: "2b,3g|10r,4o"}
    d = decide(position(calm, f"5b,1o,2g,4y,3p,1r,2r/{OPP_HAND}", turn="0:draw"))
    assert d.action == {"type": "draw", "deck": "troop"}


def test_never_draws_a_tactics_card_it_could_not_play() -> None:
    # One tactics card played (the Scout in the discard pile), the opponent none and none in
    # its hand: a new one would stay in hand.
    state = position({1: "2b,3g|10r,9r"}, f"5b,1o,2g,4y,3p,1r/{OPP_HAND}",
                     discards="Scout/-", turn="0:draw")
    assert decide(state).action == {"type": "draw", "deck": "troop"}
    # Already holding a useful tactics card: no second one.
    state = position({1: "2b,3g|10r,9r"}, f"5b,1o,2g,4y,3p,1r,Fog/{OPP_HAND}", turn="0:draw")
    assert decide(state).action == {"type": "draw", "deck": "troop"}


def test_scout_returns_an_unplayable_leader_first() -> None:
    state = position({1: "Alexander,4b|5r"}, f"Darius,9b,2g,1o,10r,7y,5p/{OPP_HAND}",
                     discards="Scout/-", turn="0:return:r2")
    d = decide(state)
    assert d.action == {"type": "return", "card": "Darius"}


def test_parameters_are_checked() -> None:
    with pytest.raises(ValueError):
        DeepBarca(top_formations=0)
    with pytest.raises(ValueError):
        DeepBarca(no_such_option=1)
    assert DeepBarca(top_formations=4).params.top_formations == 4


def test_decisions_depend_on_the_view_alone() -> None:
    # Re-deal every card this seat cannot see: its view is the same, so is its decision.
    rng = Rng(5)
    state = GAME.initial_state(2, {})
    checked = 0
    for step in range(400):
        decision = GAME.decision(state)
        if decision.terminal:
            break
        if decision.chance:
            outcomes = GAME.chance_outcomes(state)
            state = GAME.apply(state, {-1: outcomes[rng.below(len(outcomes))][0]}).state
            continue
        seat = decision.seats[0]
        legal = GAME.legal_actions(state, seat)
        if step % 7 == 0 and len(legal) > 1:
            other = GAME.resample_hidden(state, seat, Rng(step))
            assert GAME.view(other, seat) == GAME.view(state, seat)
            for bot in (DeepBarca(), GreedyBot()):
                a = bot.choose({"seat": seat, "view": GAME.view(state, seat),
                                "legal_actions": legal})
                b = bot.choose({"seat": seat, "view": GAME.view(other, seat),
                                "legal_actions": GAME.legal_actions(other, seat)})
                assert a == b
            checked += 1
        state = GAME.apply(state, {seat: legal[rng.below(len(legal))]}).state
    assert checked > 10


def test_greedy_claims_and_plays_its_best_formation() -> None:
    state = position({2: "10r,9r,8r|5b"}, f"1g,2y,3p,1b,2g,3o,4y/{OPP_HAND}")
    request = {"seat": 0, "view": GAME.view(state, 0), "legal_actions":
               GAME.legal_actions(state, 0)}
    assert GreedyBot().choose(request) == {"type": "claim", "flag": 2}
    # 7r next to 8r,9r makes a wedge: the best immediate formation.
    state = position({3: "8r,9r|5b"}, f"7r,2y,3p,1b,2g,3o,4y/{OPP_HAND}")
    request = {"seat": 0, "view": GAME.view(state, 0), "legal_actions":
               GAME.legal_actions(state, 0)}
    assert GreedyBot().choose(request) == {"type": "play", "card": "7r", "flag": 3}


def test_registry_names() -> None:
    assert isinstance(bots.create("deep-barca", seed=1), DeepBarca)
    assert isinstance(bots.create("greedy", seed=1, game="battleline"), GreedyBot)
    assert "deep-barca" in bots.names()
    # "greedy" alone is still the Chexers agent.
    assert not isinstance(bots.create("greedy", seed=1), GreedyBot)
    assert DeepBarca.games == ("battleline",) and GreedyBot.games == ("battleline",)
