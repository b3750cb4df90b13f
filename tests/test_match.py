"""engine/match.py, the seeded driver, exercised with the test-only Goofspiel (two seats bid at
once; the driver holds the first commitment hidden until the second one is in)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from games.goofspiel import GAME

from engine.core import CHANCE, IllegalAction, MalformedAction, NotToAct, Outcome, canonical_json
from engine.match import (
    FixedOrder,
    Match,
    actions_of,
    entry_for,
    play,
    random_policy,
    replay,
)
from engine.rng import Rng


def started(seed: int = 7, cards: int = 5) -> Match:
    match = Match(GAME, 2, {"cards": cards}, seed)
    match.advance()
    return match


def all_views(match: Match) -> list[Any]:
    return [match.view(0), match.view(1), match.view(None)]


def test_advance_reveals_the_first_prize_and_logs_it_as_chance() -> None:
    match = Match(GAME, 2, None, seed=3)
    assert match.awaiting() == ()  # a chance node: nobody owes an action
    events = match.advance()
    assert [e.type for e in events] == ["prize"]
    prize = events[0].render(None)["card"]
    assert match.log == [{"chance": prize}]
    assert match.state["current"] == prize
    assert match.awaiting() == (0, 1)
    assert match.advance() == []  # nothing more to resolve until the seats act


def test_a_commitment_stays_hidden_until_both_seats_have_committed() -> None:
    match = started()
    before = [canonical_json(v) for v in all_views(match)]
    events = match.submit(0, {"bid": 4})
    # The other seat and spectators learn only that seat 0 is ready; seat 0's own copy
    # acknowledges what was accepted.
    assert [e.render(v) for e in events for v in (1, None)] == [
        {"type": "committed", "seat": 0}] * 2
    assert [e.render(0) for e in events] == [{"type": "committed", "seat": 0,
                                              "action": {"bid": 4}}]
    assert [e.private for e in events] == [{0: {"action": {"bid": 4}}}]
    assert match.committed() == (0,) and match.commitment(0) == {"bid": 4}
    assert match.commitment(1) is None
    assert [canonical_json(v) for v in all_views(match)] == before
    assert "4" not in json.dumps(match.view(1)["bids"])
    assert match.awaiting() == (1,)
    assert match.legal_actions(0) == []  # committed: nothing more to choose
    assert len(match.legal_actions(1)) == 5
    assert len(match.log) == 1  # only the prize: the commitment is not in the log yet

    events = match.submit(1, {"bid": 2})
    reveal = events[0].render(None)
    assert reveal["type"] == "reveal" and reveal["bids"] == [4, 2] and reveal["winner"] == 0
    assert match.log[1] == {"0": {"bid": 4}, "1": {"bid": 2}}
    assert match.view(1)["bids"] == [[4], [2]]
    # After the joint action the next prize is already revealed (chance resolved by submit).
    assert events[1].type == "prize" and list(match.log[2]) == ["chance"]
    assert match.awaiting() == (0, 1)


def test_already_committed_seat_cannot_change_or_repeat_its_bid() -> None:
    match = started()
    match.submit(1, {"bid": 5})
    for again in ({"bid": 5}, {"bid": 1}, "garbage"):
        with pytest.raises(IllegalAction) as error:
            match.submit(1, again)
        assert error.value.rule == "already_committed"
        assert error.value.code == "illegal_action"
    events = match.submit(0, {"bid": 3})
    assert events[0].render(0)["bids"] == [3, 5]  # the first commitment is the one applied


def test_not_your_turn_and_errors_leave_the_match_unchanged() -> None:
    match = started()
    snapshot = (canonical_json(match.state), list(match.log), match.awaiting())
    with pytest.raises(NotToAct) as error:
        match.submit(2, {"bid": 1})  # no seat 2 in a two-seat match: never its turn
    assert error.value.code == "not_your_turn" and error.value.rule == "not_to_act"
    for bad in ({"bid": 1, "extra": True}, {"bid": "1"}, {"bid": 0}, None, {"type": 7}):
        with pytest.raises(MalformedAction):
            match.submit(0, bad)
    assert (canonical_json(match.state), match.log, match.awaiting()) == snapshot


def test_an_illegal_bid_names_the_rule() -> None:
    match = started()
    match.submit(0, {"bid": 2})
    match.submit(1, {"bid": 1})
    with pytest.raises(IllegalAction) as spent:
        match.submit(0, {"bid": 2})  # card 2 is spent
    assert spent.value.rule == "card_not_in_hand"
    assert not isinstance(spent.value, NotToAct)
    assert match.awaiting() == (0, 1)


def test_a_malformed_action_does_not_count_as_a_commitment() -> None:
    match = started()
    with pytest.raises(MalformedAction):
        match.submit(0, {"bid": 99})
    assert match.awaiting() == (0, 1)
    assert match.submit(0, {"bid": 1})[0].type == "committed"


def test_forced_finish_ends_the_match_with_the_given_outcome() -> None:
    match = started()
    match.submit(0, {"bid": 3})  # a pending commitment is dropped by the finish
    resigned = Outcome.win(0, 2, "resignation")
    match.finish(resigned)
    assert match.is_over and match.outcome == resigned
    assert match.awaiting() == () and match.legal_actions(1) == []
    with pytest.raises(IllegalAction) as error:
        match.submit(1, {"bid": 1})
    assert error.value.rule == "game_over"
    assert match.advance() == []
    record = match.record()
    assert record["outcome"] == {"ranks": [0, 1], "reason": "resignation"}
    assert record["log"] == match.log and len(record["log"]) == 1  # the commitment never logged
    assert GAME.outcome(match.state) is None  # the rules themselves did not end the game


def test_record_replays_every_state_exactly() -> None:
    match = started(seed=11, cards=6)
    states = [match.state]
    choose = random_policy(Rng(5))
    while not match.is_over:
        for seat in match.awaiting():
            match.submit(seat, choose(match.view(seat), match.legal_actions(seat), seat))
        states.append(match.state)
    record = json.loads(json.dumps(match.record()))
    assert record["game"] == "goofspiel" and record["seed"] == 11 and record["start"] is None
    assert record["options"] == {"cards": 6}
    assert record["outcome"] == match.outcome.to_json()  # type: ignore[union-attr]
    # Prize, bids, prize, bids, …: chance entries are keyed "chance", seats by number.
    assert [sorted(e) for e in record["log"]] == [["chance"], ["0", "1"]] * 6
    replayed = list(replay(GAME, record))
    assert replayed[-1] == (match.state, None)
    replayed_states = [s for s, _ in replayed]
    # The match was observed after each submit, i.e. after a joint action and the next prize.
    assert replayed_states[1:-1:2] == states[:-1] and replayed_states[-1] == states[-1]
    assert [e for _, e in replayed[:-1]] == record["log"]


def test_record_of_a_match_started_from_a_position_replays_from_it() -> None:
    start = GAME.from_notation("5/3,1/2/4")
    match = Match(GAME, 2, None, seed=2, state=start)
    assert match.awaiting() == (0, 1) and match.state["current"] == 1
    match.submit(0, {"bid": 1})
    match.submit(1, {"bid": 5})
    record = match.record()
    assert record["start"] == start
    assert list(replay(GAME, record))[-1][0] == match.state


def test_same_seed_same_match_and_log_entries_round_trip() -> None:
    def run(seed: int) -> Match:
        return play(GAME, [random_policy(Rng(seed).fork(f"seat-{s}")) for s in (0, 1)],
                    seed=seed, options={"cards": 8})
    first, second, other = run(4), run(4), run(5)
    assert first.log == second.log and first.outcome == second.outcome
    assert first.log != other.log
    for entry in first.log:
        assert entry_for(actions_of(entry)) == entry
    assert actions_of({"chance": 3}) == {CHANCE: 3}


def test_seat_count_is_checked() -> None:
    with pytest.raises(ValueError, match="2–2 seats"):
        Match(GAME, 3)


def _draws(match: Match) -> dict[str, list[Any]]:
    """A finished Battle Line match's chance outcomes: the deal, then each deck's draws."""
    game = match.game
    out: dict[str, list[Any]] = {"deal": [], "troop": [], "tactics": []}
    for state, entry in replay(game, match.record()):
        if entry is not None and "chance" in entry:
            out["deal" if state["phase"] == "deal" else state["pending"]].append(
                entry["chance"])
    return out


def test_a_deck_deals_alike_however_the_games_go() -> None:
    """Two Battle Line matches with one seed and chance from the deck, played differently:
    the same deal, and each deck's n-th draw is the same card in both (the generator's
    draws part ways once the games do)."""
    from engine import registry

    game = registry.get("battleline")
    decks = [play(game, [random_policy(Rng(s)), random_policy(Rng(s + 1))], seed=11,
                  chance="deck") for s in (1, 5)]
    one, two = _draws(decks[0]), _draws(decks[1])
    assert decks[0].log != decks[1].log and one["deal"] == two["deal"]
    for deck in ("troop", "tactics"):
        n = min(len(one[deck]), len(two[deck]))
        assert one[deck][:n] == two[deck][:n]
    assert decks[0].record()["chance"] == "deck"
    rngs = [play(game, [random_policy(Rng(s)), random_policy(Rng(s + 1))], seed=11)
            for s in (1, 5)]
    assert "chance" not in rngs[0].record()
    assert _draws(rngs[0])["troop"][:10] != _draws(rngs[1])["troop"][:10]


def test_the_chance_mode_is_checked_and_a_deck_needs_equal_weights() -> None:
    with pytest.raises(ValueError, match="chance is one of"):
        Match(GAME, 2, None, 0, chance="dice")

    class Loaded:
        info = GAME.info

        @staticmethod
        def chance_outcomes(state: Any) -> list[tuple[Any, int]]:
            return [("a", 1), ("b", 2)]

    with pytest.raises(ValueError, match="unequal weight"):
        FixedOrder(3).pick(Loaded(), {})  # type: ignore[arg-type]
