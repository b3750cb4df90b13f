"""The ISMCTS bot (bots/battleline/ismcts.py) and its world sampler (bots/battleline/worlds.py).

The sampler is the bot's only source of the hidden cards, so its property is the one that
matters: every world it builds from a seat's view gives that seat exactly that view again
(and the same legal actions), over positions of whole games, Scout returns and all.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

from bots import registry
from bots.battleline import ismcts, rollouts
from bots.battleline.deep_barca import DeepBarca
from bots.battleline.ismcts import IsmctsBot
from bots.battleline.rollout_policy import (
    FORMATION,
    IMITATION,
    Policy,
    caps_given,
    formation_given,
    side_cap,
)
from bots.battleline.worlds import DeckOrder, sample_world, unseen_cards
from bots.random_bot import RandomBot
from engine.battleline import GAME
from engine.battleline import formations as engine_formations
from engine.battleline.cards import INDEX, NUM_TROOPS, TACTICS, TROOPS
from engine.core import CHANCE, canonical_json
from tools.bench.strength import play_game, request_for


def positions(seed: int, policy: Any = None) -> list[tuple[Any, int]]:
    """Every seat decision of one game (random play unless ``policy`` is given)."""
    rng = random.Random(seed)
    bot = policy or RandomBot(seed)
    state = GAME.initial_state(2, {})
    out = []
    while not GAME.decision(state).terminal:
        decision = GAME.decision(state)
        if decision.chance:
            card = rng.choice(GAME.chance_outcomes(state))[0]
            state = GAME.apply(state, {CHANCE: card}).state
            continue
        seat = decision.seats[0]
        out.append((state, seat))
        state = GAME.apply(state, {seat: bot.choose(request_for(GAME, state, seat))}).state
    return out


@pytest.mark.parametrize("seed", range(12))
def test_every_sampled_world_gives_the_seat_its_own_view(seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for state, seat in positions(seed):
        for viewer in (0, 1):
            view = GAME.view(state, viewer)
            world = sample_world(view, viewer, rng)
            assert GAME.view(world, viewer) == view
            if viewer == seat:
                assert GAME.legal_actions(world, seat) == GAME.legal_actions(state, seat)
            checked += 1
    assert checked > 100


def test_the_sampler_reads_the_view_only_and_spreads_the_hidden_cards() -> None:
    state, seat = positions(3)[40]
    view = GAME.view(state, seat)
    troops, tactics = unseen_cards(view)
    opp = 1 - seat
    real_hidden = sorted(c for c in state["hands"][opp] if c not in view["opponent_known"])
    # What the seat cannot see is exactly what the sampler deals: the opponent's hand (less
    # what the seat knows) and the decks.
    pool = set(troops) | set(tactics)
    assert set(real_hidden) <= pool
    assert set(state["decks"]["troop"]) | set(state["decks"]["tactics"]) <= pool
    assert not pool & set(view["hand"])
    # Many worlds: the opponent's hand varies and every unseen troop card shows up in it.
    rng = random.Random(1)
    held: Counter[str] = Counter()
    hands = set()
    for _ in range(400):
        world = sample_world(view, seat, rng)
        hand = tuple(world["hands"][opp])
        hands.add(hand)
        held.update(hand)
    assert len(hands) > 300
    assert {c for c in troops} <= set(held)
    assert set(held) <= pool | set(view["opponent_known"])


def test_a_view_that_no_game_produces_is_refused() -> None:
    state, seat = positions(5)[30]
    view = GAME.view(state, seat)
    broken = dict(view, hands=[dict(h) for h in view["hands"]])
    broken["hands"][1 - seat]["troop"] += 60
    with pytest.raises(ValueError, match="hides"):
        sample_world(broken, seat, random.Random(0))


def test_a_deck_order_is_one_shuffle_of_the_deck() -> None:
    order = DeckOrder(random.Random(4))
    cards = list(TROOPS)
    drawn = []
    while cards:
        card = order.pick(cards)
        drawn.append(card)
        cards.remove(card)
    # Whatever was drawn before, the next card is the next one of the same shuffle.
    for n in (1, 17, 59):
        assert order.pick(sorted(drawn[n:])) == drawn[n]
    assert sorted(drawn) == sorted(TROOPS) and drawn != list(TROOPS)
    assert set(TACTICS).isdisjoint(drawn)


def test_ismcts_plays_whole_games_legally_and_reproducibly() -> None:
    bot_a = IsmctsBot(seed=7, leaf="model", iterations=8, time_ms=None)
    bot_b = IsmctsBot(seed=7, leaf="model", iterations=8, time_ms=None)
    searched = 0
    for state, seat in positions(11, DeepBarca())[::3]:
        request = request_for(GAME, state, seat)
        action = bot_a.choose(request)
        assert action in request["legal_actions"]
        assert bot_b.choose(request) == action
        searched += bot_a.stats.iterations > 0
    assert searched > 5


def test_ismcts_takes_a_winning_play_and_claims_without_searching() -> None:
    for state, seat in positions(2, DeepBarca()):
        request = request_for(GAME, state, seat)
        claims = [a for a in request["legal_actions"] if a["type"] == "claim"]
        if claims:
            bot = IsmctsBot(seed=1, iterations=8)
            assert bot.choose(request) == claims[0]
            assert bot.stats.iterations == 0
            return
    pytest.fail("no claim in a whole game")


def test_ismcts_keeps_to_its_iteration_budget_and_reports_its_values() -> None:
    bot = IsmctsBot(seed=3, leaf="model", iterations=12, time_ms=None, width=4)
    for state, seat in positions(4, DeepBarca()):
        if state["phase"] != "play":
            continue
        bot.choose(request_for(GAME, state, seat))
        if bot.stats.iterations:
            assert bot.stats.iterations <= 12 + bot.stats.candidates
            assert 2 <= len(bot.stats.values) <= 5  # the width, plus Deep Barca's own choice
            assert all(0.0 <= v <= 1.0 for v in bot.stats.values.values())
            return
    pytest.fail("no searched decision in a whole game")


def test_ismcts_is_a_registered_bot_with_checked_options() -> None:
    bot = registry.create("ismcts", game="battleline", seed=1, iterations=5)
    assert isinstance(bot, IsmctsBot) and bot.iterations == 5
    with pytest.raises(ValueError, match="reply"):
        IsmctsBot(reply="oracle")
    with pytest.raises(ValueError, match="iterations"):
        IsmctsBot(iterations=0)
    with pytest.raises(ValueError, match="leaf"):
        IsmctsBot(leaf="oracle")
    with pytest.raises(ValueError, match="worlds"):
        IsmctsBot(leaf="rollout", worlds=0)


# ---- leaf="rollout": NumPy rollouts (bots/battleline/rollouts.py) -----------------------------


def _table(state: Any, seat: int) -> tuple[dict[str, Any], rollouts.Table]:
    view = GAME.view(state, seat)
    return view, rollouts.table_of(view, seat, DeepBarca().model(view, seat).flags())


def _open_plays(view: dict[str, Any], table: rollouts.Table) -> list[tuple[int, int]]:
    """The seat's troop plays on flags a rollout plays (free slot, not fixed)."""
    seat = table.seat
    return [(INDEX[card], n) for card in view["hand"] if INDEX[card] < NUM_TROOPS
            for n, f in enumerate(view["flags"])
            if not table.fixed[n] and len(f["sides"][seat]) < 3]


def _to_play(games: int, picked: slice) -> list[tuple[Any, int]]:
    """Positions of ``games`` Deep Barca self-play games (the ``picked`` ones) where ``seat``
    is the one to play a card."""
    return [(state, seat) for state, seat in positions(games, DeepBarca())[picked]
            if state["phase"] == "play" and seat == GAME.decision(state).seats[0]]


def test_rollout_deals_are_the_unseen_troop_cards_and_nothing_else() -> None:
    dealt = 0
    for state, _ in positions(6)[::7]:
        for seat in (0, 1):
            view, table = _table(state, seat)
            opp = 1 - seat
            hand, deck = rollouts.deal(table, 6, np.random.default_rng(dealt))
            known = [INDEX[c] for c in view["opponent_known"] if INDEX[c] < NUM_TROOPS]
            pool = sorted(table.pool)
            # The real hidden cards are among the pool: the pool is what the seat cannot see.
            real = {INDEX[c] for c in state["hands"][opp] + state["decks"]["troop"]
                    if INDEX[c] < NUM_TROOPS} - set(known)
            assert real <= set(pool)
            for w in range(6):
                held = [int(c) for c in hand[w] if c >= 0]
                assert len(held) == view["hands"][opp]["troop"]
                assert set(known) <= set(held)
                drawn = [int(c) for c in deck[w]]
                assert len(drawn) == view["decks"]["troop"] and min(drawn, default=0) >= 0
                if not any(view["known_tops"]["troop"]):
                    assert sorted([c for c in held if c not in known] + drawn) == pool
                dealt += 1
    assert dealt > 20


@pytest.mark.parametrize("policy", [FORMATION, IMITATION], ids=lambda p: p.name)
def test_rollouts_end_on_full_tables_that_keep_the_start_and_use_each_card_once(
        policy: Policy) -> None:
    checked = 0
    for state, seat in _to_play(8, slice(10, None, 12)):
        view, table = _table(state, seat)
        plays = _open_plays(view, table)[:3]
        if not plays:
            continue
        finals = rollouts.play_out(table, plays, 5, np.random.default_rng(checked),
                                   policy=policy)
        assert finals.sides.shape == (len(plays) * 5, 9, 2, 3)
        for row in range(len(plays) * 5):
            card, flag = plays[row // 5]
            sides = finals.sides[row]
            used = [int(c) for c in sides.reshape(-1) if c >= 0]
            assert len(used) == len(set(used))  # no card twice
            assert card in sides[flag, seat]
            assert (finals.count[row] == (sides >= 0).sum(axis=2)).all()
            for n in range(9):
                if table.fixed[n]:
                    assert (sides[n] == -1).all()  # nobody plays on a fixed flag
                    continue
                for s in (0, 1):
                    start = [int(c) for c in table.sides[n, s] if c >= 0]
                    assert [int(c) for c in sides[n, s][:len(start)]] == start
        checked += 1
    assert checked >= 2


def test_rollout_values_follow_claimed_flags_and_common_worlds() -> None:
    state, seat = next((s, k) for s, k in positions(9, DeepBarca())[30:]
                       if s["phase"] == "play" and not s["claimable"])
    view, table = _table(state, seat)
    plays = _open_plays(view, table)[:2]
    rng = np.random.default_rng
    # The same play twice is valued the same: every play is tried in the same worlds.
    values = rollouts.rollout_values(table, [plays[0], plays[0], plays[1]], 40, rng(1))
    assert values[0] == values[1] and all(0.0 <= v <= 1.0 for v in values)
    assert (rollouts.rollout_values(table, plays, 40, rng(2))
            == rollouts.rollout_values(table, plays, 40, rng(2))).all()
    # Three adjacent flags already claimed decide every rollout.
    for owner, expected in ((seat, 1.0), (1 - seat, 0.0)):
        won = dict(view, flags=[dict(f, claimed=owner) if n in (6, 7, 8) else f
                                for n, f in enumerate(view["flags"])])
        _, decided = view, rollouts.table_of(won, seat, [0.5] * 9)
        open_plays = [p for p in plays if p[1] < 6]
        if open_plays:
            assert (rollouts.rollout_values(decided, open_plays, 20, rng(3)) == expected).all()


def test_a_rollout_closes_a_flag_once_a_side_is_proven_to_win_it() -> None:
    idx = {name: INDEX[name] for name in ("10r", "9r", "8r", "5o", "6o", "5y", "3r", "3o",
                                         "3y", "1r", "10o")}
    sides = np.full((4, 9, 2, 3), -1, dtype=np.int16)
    sides[:, 0, 0] = [idx["10r"], idx["9r"], idx["8r"]]          # a straight flush, 10 high
    sides[0, 0, 1, :2] = [idx["5o"], idx["6o"]]                   # can still be a higher one
    sides[1, 0, 1, :2] = [idx["5o"], idx["5y"]]                   # at best three fives
    sides[2:, 0, 0] = -1
    sides[2:, 0, 1] = [idx["3r"], idx["3o"], idx["3y"]]           # three threes
    sides[2, 0, 0, :2] = [idx["1r"], idx["10o"]]                  # at best a host
    sides[3, 0, 0, 0] = idx["1r"]                                 # one card: anything
    count = (sides >= 0).sum(-1)
    claim = np.full((4, 9), -1, dtype=np.int8)
    step = np.zeros((4, 9), dtype=np.int16)
    rollouts._prove(sides, count, claim, step, np.arange(4), np.zeros(4, dtype=np.int64), 7)
    assert claim[:, 0].tolist() == [-1, 0, 1, -1] and step[1:3, 0].tolist() == [7, 7]
    # In whole rollouts: a proven flag stays the prover's, nobody plays on it again, and the
    # other side never ends stronger than the prover's.
    state, seat = next((s, k) for s, k in positions(17, DeepBarca())[40:]
                       if s["phase"] == "play" and not s["claimable"])
    view, table = _table(state, seat)
    finals = rollouts.play_out(table, _open_plays(view, table)[:3], 60,
                               np.random.default_rng(8))
    assert finals.claim is not None
    rows, flags = np.nonzero(finals.claim >= 0)
    assert len(rows) > 0
    prover = finals.claim[rows, flags].astype(np.int64)
    mine = side_cap(finals.sides[rows, flags, prover], finals.count[rows, flags, prover])
    theirs = side_cap(finals.sides[rows, flags, 1 - prover],
                           finals.count[rows, flags, 1 - prover])
    assert (finals.count[rows, flags, prover] == 3).all() and (mine >= theirs).all()
    assert (finals.count[rows, flags, 1 - prover] < 3).all()
    won = rollouts.wins(table, finals, np.random.default_rng(9))
    assert won.shape == (3, 60)
    assert rollouts.play_out(table, _open_plays(view, table)[:3], 5, np.random.default_rng(8),
                             claims=False).claim is None
    assert IsmctsBot(claims=False).claims is False


def test_caps_from_the_unplayed_cards_are_the_engines_best_completions() -> None:
    """``unplayed=True``: the most a side can still become, counted from the cards a rollout's
    table has not played, is exactly the engine's own best completion over its unseen cards
    (the set a claim proof uses), for every side of fewer than three cards."""
    checked = 0
    for state, seat in positions(3, DeepBarca())[::4] + positions(4)[::6]:
        view, table = _table(state, seat)
        mask = engine_formations.unseen_mask(state)
        unplayed = rollouts.unplayed(view)
        assert unplayed.tolist() == [bool(mask >> i & 1) for i in range(NUM_TROOPS)]
        caps = caps_given(unplayed)
        for n, f in enumerate(view["flags"]):
            for cards in f["sides"]:
                if table.fixed[n] or len(cards) >= 3:
                    continue
                best = engine_formations.best_completion(cards, mask)
                want = -1 if best is None else (best.formation.strength // 64 * 100
                                                + best.formation.strength % 64)
                side = np.full((1, 3), -1, dtype=np.int16)
                side[0, :len(cards)] = [INDEX[c] for c in cards]
                assert int(side_cap(side, np.asarray([len(cards)]), caps)[0]) == want, cards
                checked += 1
    assert checked > 300


def test_unplayed_caps_prove_flags_the_kind_alone_cannot_and_steer_the_policy() -> None:
    idx = {name: INDEX[name] for name in ("5r", "5o", "5y", "6g", "7g", "5g", "8g", "4g", "3g")}
    sides = np.full((1, 9, 2, 3), -1, dtype=np.int16)
    sides[0, 0, 0] = [idx["5r"], idx["5o"], idx["5y"]]          # three fives
    sides[0, 0, 1, :2] = [idx["6g"], idx["7g"]]                 # a wedge in the making ...
    count = (sides >= 0).sum(-1)
    every = np.ones(NUM_TROOPS, dtype=bool)
    gone = every.copy()
    for name in ("5r", "5o", "5y", "6g", "7g", "5g", "8g"):
        gone[idx[name]] = False                                  # ... whose 5g and 8g are gone
    for caps, expected in ((None, -1), (caps_given(every), -1), (caps_given(gone), 0)):
        claim = np.full((1, 9), -1, dtype=np.int8)
        rollouts._prove(sides, count, claim, np.zeros((1, 9), dtype=np.int16),
                        np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), 3, caps)
        assert claim[0, 0] == expected
    # With every card unplayed the policy is the formation builder itself; with the wedge's
    # cards gone it no longer courts the wedge: 6g beside 7g scores below 4g beside 5g there.
    assert np.allclose(formation_given(caps_given(every)).own, FORMATION.own, atol=1e-5)
    gone = every.copy()
    gone[[idx["5g"], idx["8g"]]] = False
    hand = np.asarray([[idx["6g"], idx["4g"]]], dtype=np.int16)
    mine = np.full((1, 9, 3), -1, dtype=np.int16)
    mine[0, 0, 0], mine[0, 1, 0] = idx["7g"], idx["3g"]
    own = (mine >= 0).sum(-1)
    theirs = np.full((1, 9, 3), -1, dtype=np.int16)
    plain = FORMATION.scores(hand, mine, own, theirs, np.zeros((1, 9), dtype=np.int64))
    given = formation_given(caps_given(gone)).scores(hand, mine, own, theirs,
                                                     np.zeros((1, 9), dtype=np.int64))
    assert plain[0, 0, 0] > plain[0, 1, 1]       # 6g on 7g (a 10-point wedge hope) ...
    assert given[0, 0, 0] < given[0, 1, 1]       # ... below 4g on 3g once 5g and 8g are gone
    with pytest.raises(ValueError, match="unplayed"):
        IsmctsBot(unplayed="no")  # type: ignore[arg-type]
    assert IsmctsBot(unplayed=False).unplayed is False


def test_ismcts_rollout_leaf_plays_whole_games_legally_and_reproducibly() -> None:
    bot_a = IsmctsBot(seed=5, leaf="rollout", worlds=24, chunk=8, time_ms=None, race=None)
    bot_b = IsmctsBot(seed=5, leaf="rollout", worlds=24, chunk=8, time_ms=None, race=None)
    searched = 0
    for state, seat in positions(12, DeepBarca())[::3]:
        request = request_for(GAME, state, seat)
        action = bot_a.choose(request)
        assert action in request["legal_actions"]
        assert bot_b.choose(request) == action
        if bot_a.stats.iterations:
            searched += 1
            assert bot_a.stats.iterations == 24 * bot_a.stats.candidates
            assert all(0.0 <= v <= 2.0 for v in bot_a.stats.values.values())
    assert searched > 5
    result = play_game(GAME, [IsmctsBot(seed=2, leaf="rollout", worlds=16), DeepBarca()], 4)
    assert result.illegal == [0, 0] and result.reason in ("breakthrough", "five_flags")


def test_the_race_drops_a_candidate_only_when_the_leader_is_surely_ahead() -> None:
    bot = IsmctsBot(seed=1, chunk=10, race=2.0)
    lead, close, poor = (ismcts.Candidate({"n": n}, 0.5) for n in range(3))
    rng = np.random.default_rng(1)
    wins = rng.random(40) < 0.6
    flipped = wins.copy()
    flipped[:3] = ~flipped[:3]                         # three worlds differ: within noise
    results = {id(lead): [wins], id(close): [flipped], id(poor): [np.zeros(40, dtype=bool)]}
    kept = bot._race([lead, close, poor], results, np.ones(40))
    assert kept == [lead, close]
    # Too few common worlds yet (fewer than two chunks): nobody leaves.
    short = {k: [v[0][:15]] for k, v in results.items()}
    assert bot._race([lead, close, poor], short, np.ones(15)) == [lead, close, poor]
    # The prior counts: a candidate behind on rollouts but far ahead in prior stays.
    poor.prior = 2.0
    assert poor in bot._race([lead, close, poor], results, np.ones(40))


def test_a_raced_search_spends_its_worlds_on_the_leaders_within_its_budget() -> None:
    searched = raced = 0
    for state, seat in positions(16, DeepBarca())[::2]:
        if state["phase"] != "play" or state["claimable"]:
            continue
        request = request_for(GAME, state, seat)
        bot = IsmctsBot(seed=3, worlds=400, chunk=40, budget=1200, race=1.0, time_ms=None)
        action = bot.choose(request)
        assert action in request["legal_actions"]
        stats = bot.stats
        if not stats.iterations:
            continue
        searched += 1
        assert stats.iterations <= 1200
        if stats.iterations < min(1200, 400 * stats.candidates):
            raced += 1        # candidates left the race (or the budget ended it) early
        assert canonical_json(action) in stats.values
    assert searched > 5 and raced > 0
    with pytest.raises(ValueError, match="budget"):
        IsmctsBot(budget=0)
    with pytest.raises(ValueError, match="race"):
        IsmctsBot(race=-1.0)
    with pytest.raises(ValueError, match="claims"):
        IsmctsBot(claims="no")  # type: ignore[arg-type]  # as `--option claims=no` passes it


def test_the_opponents_last_play_weighs_worlds_toward_its_real_hand() -> None:
    """``infer``: a world whose dealt hand makes the opponent's last play likely counts more;
    over Deep Barca's games the real hand outweighs most dealt ones."""
    previous: dict[int, Any] = {}
    percentiles: list[float] = []
    skipped = 0
    for state, seat in positions(13, DeepBarca()) + positions(14, DeepBarca()):
        if state["phase"] != "play" or state["claimable"]:
            continue
        view, table = _table(state, seat)
        before = previous.get(seat)
        previous[seat] = view
        if before is None:
            continue
        likelihood = ismcts._last_play_likelihood(before, view, seat, table, 1.0)
        if likelihood is None:
            skipped += 1
            continue
        dealt, _ = rollouts.deal(table, 200, np.random.default_rng(len(percentiles)))
        real = [INDEX[c] for c in state["hands"][1 - seat] if INDEX[c] < NUM_TROOPS]
        row = np.full((1, dealt.shape[1]), -1, dtype=dealt.dtype)
        row[0, :len(real)] = real
        weights = likelihood(np.concatenate([dealt, row]))
        assert weights.shape == (201,) and (weights > 0).all() and weights.max() == 1.0
        percentiles.append(float((weights[:-1] < weights[-1]).mean()))
    assert len(percentiles) > 30 and skipped < len(percentiles)
    assert np.mean(percentiles) > 0.6, np.mean(percentiles)   # 0.5 with no inference


def test_ismcts_infer_plays_whole_games_legally() -> None:
    with pytest.raises(ValueError, match="infer"):
        IsmctsBot(infer=-1.0)
    # first_reply off: the inference is under test, and its tables cost ~130 ms a decision.
    bots = [IsmctsBot(seed=3, worlds=20, chunk=10, infer=1.0, time_ms=None, first_reply=False),
            IsmctsBot(seed=4, worlds=20, chunk=10, infer=0.5, policy="imitation",
                      time_ms=None, first_reply=False)]
    result = play_game(GAME, bots, 6)
    assert result.illegal == [0, 0] and result.reason in ("breakthrough", "five_flags")
    assert [seat for _, seat in bots[0]._previous] == [0]   # one match: one table per seat
    assert [seat for _, seat in bots[1]._previous] == [1]
    # One bot in many matches (a house bot) remembers each match's table apart, a bounded few.
    state, seat = next((s, k) for s, k in positions(15, DeepBarca())
                       if s["phase"] == "play" and not s["claimable"])
    request = request_for(GAME, state, seat)
    house = IsmctsBot(seed=1, worlds=2, chunk=2, infer=1.0, time_ms=None, first_reply=False)
    for n in range(ismcts.PREVIOUS_KEPT + 5):
        house.choose({**request, "match_id": f"m{n}"})
    assert len(house._previous) == ismcts.PREVIOUS_KEPT
    assert ("m0", seat) not in house._previous and (f"m{n}", seat) in house._previous


def test_a_first_reply_table_makes_the_opponents_first_move_its_best_dealt_card() -> None:
    checked = 0
    for state, seat in _to_play(8, slice(6, None, 9)):
        view, table = _table(state, seat)
        plays = _open_plays(view, table)[:3]
        if len(plays) < 2:
            continue
        rng = np.random.default_rng(checked)
        first = rng.random((len(plays), NUM_TROOPS, 9))   # distinct values: one best play
        worlds = 6
        # Two steps: the candidate (step 0), then the opponent's first move (step 1).
        finals = rollouts.play_out(table, plays, worlds, rng, claims=False, first=first,
                                   max_steps=2)
        opp = 1 - seat
        for row in range(len(plays) * worlds):
            i, w = divmod(row, worlds)
            card, flag = plays[i]
            before = table.sides.copy()
            before[flag, seat, (before[flag, seat] >= 0).sum()] = card
            new = [(int(c), n) for n in range(9) for c in finals.sides[row, n, opp]
                   if c >= 0 and c not in before[n, opp]]
            assert len(new) == 1
            hand = [int(c) for c in finals.opp_hand[w] if c >= 0]
            legal = [(c, n) for c in hand for n in range(9)
                     if not table.fixed[n] and (before[n, opp] >= 0).sum() < 3]
            assert new[0] == max(legal, key=lambda cn: first[i, cn[0], cn[1]])
        checked += 1
    assert checked >= 2


def test_first_reply_values_are_deep_barcas_for_what_the_opponent_may_hold() -> None:
    checked = 0
    bot = IsmctsBot(seed=1)
    for state, seat in _to_play(10, slice(8, None, 10)):
        request = request_for(GAME, state, seat)
        view = request["view"]
        actions = [a for a in request["legal_actions"]
                   if a["type"] == "play" and INDEX[a["card"]] < NUM_TROOPS][:4]
        if len(actions) < 2:
            continue
        together = bot._first_reply_values(view, seat, actions)
        # One model serves every action: each table is what a model of its own would give.
        assert all((np.array_equal(t, bot._first_reply_values(view, seat, [a])[0]))
                   for t, a in zip(together, actions, strict=True))
        on_table = {INDEX[c] for f in view["flags"] for side in f["sides"] for c in side}
        on_table |= {INDEX[c] for pile in view["discards"] for c in pile}
        for action, values in zip(actions, together, strict=True):
            opp = 1 - seat
            placed = [list(f["sides"][opp]) for f in view["flags"]]
            for c in range(NUM_TROOPS):
                # The opponent never holds a card on the table, discarded or just laid; our
                # own hand it cannot see, so those count as cards it may hold.
                assert np.isinf(values[c]).all() == (c in on_table or c == INDEX[
                    action["card"]] or not any(
                        len(placed[n]) < 3 and view["flags"][n]["claimed"] is None
                        for n in range(9)))
            finite = values[np.isfinite(values)]
            assert ((finite >= 0.0) & (finite <= 1.0)).all()
        checked += 1
    assert checked >= 2
    with pytest.raises(ValueError, match="first_reply"):
        IsmctsBot(first_reply="yes")  # type: ignore[arg-type]


def test_ismcts_first_reply_plays_whole_games_legally_and_reproducibly() -> None:
    bots = [IsmctsBot(seed=s, worlds=20, chunk=10, first_reply=True, time_ms=None)
            for s in (3, 3)]
    state, seat = next((s, k) for s, k in positions(14, DeepBarca())[20:]
                       if s["phase"] == "play" and not s["claimable"])
    request = request_for(GAME, state, seat)
    assert bots[0].choose(request) == bots[1].choose(request)
    result = play_game(GAME, [bots[0], DeepBarca()], 7)
    assert result.illegal == [0, 0] and result.reason in ("breakthrough", "five_flags")
