"""The pairing logic (server/scheduler.py): fairness, caps, seats, windows — deterministic
under an injected random generator and clock."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from server.scheduler import HOUR_S, Candidate, Pairing, PairLog, Policy, plan


def pool(n: int, *, free: int = 1, ordinals: list[float] | None = None,
         accounts: list[str] | None = None) -> list[Candidate]:
    return [Candidate(entity=i + 1, account=(accounts or [f"acct{i}" for i in range(n)])[i],
                      free=free, games=0,
                      ordinal=0.0 if ordinals is None else ordinals[i])
            for i in range(n)]


def simulate(candidates: list[Candidate], policy: Policy, rounds: int, seed: int,
             step_s: float = 60.0) -> tuple[list[Pairing], dict[int, Candidate]]:
    """Plan round after round; every match ends before the next round (slots come back),
    seat counts and games carry over as the server keeps them."""
    rng = random.Random(seed)
    log = PairLog()
    state = {c.entity: replace(c, seat_counts=(0,) * policy.num_seats) for c in candidates}
    played: list[Pairing] = []
    for r in range(rounds):
        now = r * step_s
        pairings = plan(list(state.values()), policy, log, now, rng)
        for p in pairings:
            for seat, e in enumerate(p.seats):
                c = state[e]
                counts = list(c.seat_counts)
                counts[seat] += 1
                state[e] = replace(c, games=c.games + 1, last_played=now,
                                   seat_counts=tuple(counts))
        played += pairings
    return played, state


def test_the_seed_is_the_fewest_games_then_the_longest_idle() -> None:
    cands = [Candidate(1, "a", 1, games=5, ordinal=0, last_played=10.0),
             Candidate(2, "b", 1, games=2, ordinal=0, last_played=50.0),
             Candidate(3, "c", 1, games=2, ordinal=0, last_played=20.0),
             Candidate(4, "d", 1, games=9, ordinal=0, last_played=None)]
    (first, second) = plan(cands, Policy(2, window=3), PairLog(), 100.0, random.Random(0))
    # entity 3 (2 games, idle since 20) seeds the first match; entity 2 the next one
    assert 3 in first.seats
    assert 2 in first.seats or 2 in second.seats


def test_a_new_version_plays_its_placement_matches_first() -> None:
    veterans = [Candidate(i, f"v{i}", 1, games=40 + i, ordinal=float(i), last_played=0.0)
                for i in range(1, 6)]
    newcomer = Candidate(99, "new", 1, games=0, ordinal=-5.0)
    pairings = plan([*veterans, newcomer], Policy(2, window=2), PairLog(), 1.0,
                    random.Random(3))
    assert 99 in pairings[0].seats


def test_an_account_never_plays_itself() -> None:
    cands = pool(6, free=3, accounts=["a", "a", "a", "b", "b", "c"])
    for seats in (2, 3):
        played, _ = simulate(cands, Policy(seats, window=6, pair_cap_per_hour=1000), 40, 7)
        assert played
        account = {c.entity: c.account for c in cands}
        for p in played:
            assert len({account[e] for e in p.seats}) == seats, p


def test_no_candidate_gets_more_matches_than_its_free_slots() -> None:
    frees = [1, 2, 3, 4, 1, 2]
    cands = [replace(c, free=f) for c, f in zip(pool(6), frees, strict=True)]
    for seats in (2, 3):
        pairings = plan(cands, Policy(seats, window=6, pair_cap_per_hour=1000), PairLog(), 0.0,
                        random.Random(1))
        counts = Counter(e for p in pairings for e in p.seats)
        assert pairings
        for c in cands:
            assert counts[c.entity] <= c.free
        # as many matches as the slots allow: no two candidates with slots left unpaired
        left = [c for c in cands if counts[c.entity] < c.free]
        assert len(left) < seats


def test_the_hourly_pair_cap_holds_and_lifts_after_an_hour() -> None:
    cands = pool(2, free=5)
    log = PairLog()
    policy = Policy(2, pair_cap_per_hour=3)
    rng = random.Random(0)
    assert len(plan(cands, policy, log, 0.0, rng)) == 3
    assert plan(cands, policy, log, 600.0, rng) == []
    assert plan(cands, policy, log, HOUR_S - 1.0, rng) == []
    assert len(plan(cands, policy, log, HOUR_S + 1.0, rng)) == 3


@pytest.mark.parametrize(("bots", "cap"), [(2, 3), (3, 3), (4, 4), (6, 6)])
def test_the_pair_cap_grows_with_the_bots_on_the_ladder(bots: int, cap: int) -> None:
    # max(3, 1 × bots): each pair of a bigger ladder may meet more often in an hour.
    policy = Policy(2, window=bots, pair_cap_per_hour=3, pair_cap_per_bot=1)
    assert policy.pair_cap(bots) == cap
    log = PairLog()
    cands = pool(bots, free=1000)
    pairings = plan(cands, policy, log, 0.0, random.Random(3))
    pairs = Counter(frozenset(p.seats) for p in pairings)
    # every pair played exactly its cap: the cap, not the slots, ended the round
    assert len(pairs) == bots * (bots - 1) // 2 and set(pairs.values()) == {cap}
    assert plan(cands, policy, log, 60.0, random.Random(3)) == []
    # a bot that joins raises every pair's cap: the stalled pairs play again
    more = pool(bots + 1, free=1000)
    again = plan(more, policy, log, 120.0, random.Random(3))
    assert any(set(p.seats) <= {c.entity for c in cands} for p in again) == (
        policy.pair_cap(bots + 1) > cap)


def test_the_pair_cap_counts_every_pair_of_a_three_seat_match() -> None:
    cands = pool(4, free=10)
    log = PairLog()
    pairings = plan(cands, Policy(3, window=3, pair_cap_per_hour=2), log, 0.0,
                    random.Random(5))
    pairs = Counter(frozenset((a, b)) for p in pairings for a in p.seats for b in p.seats
                    if a < b)
    assert pairings and max(pairs.values()) <= 2
    for a in range(1, 5):
        for b in range(a + 1, 5):
            assert log.count(a, b, 0.0) == pairs[frozenset((a, b))]


def test_opponents_come_from_the_rating_window() -> None:
    ordinals = [0.0, 1.0, 2.0, 10.0, 11.0, 30.0]
    cands = pool(6, ordinals=ordinals)
    by_id = {c.entity: c for c in cands}
    for seed in range(20):
        # the seed is entity 1 (all have 0 games; ties go to the lowest id)
        first = plan(cands, Policy(2, window=1), PairLog(), 0.0, random.Random(seed))[0]
        assert set(first.seats) == {1, 2}
        first = plan(cands, Policy(2, window=2), PairLog(), 0.0, random.Random(seed))[0]
        opponent = next(e for e in first.seats if e != 1)
        assert by_id[opponent].ordinal in (1.0, 2.0)
    # over many seeds both members of the window are drawn
    drawn = {next(e for e in plan(cands, Policy(2, window=2), PairLog(), 0.0,
                                  random.Random(s))[0].seats if e != 1) for s in range(40)}
    assert drawn == {2, 3}


def test_plan_is_deterministic_under_the_injected_rng_and_clock() -> None:
    cands = pool(10, free=2, ordinals=[float(i % 4) for i in range(10)])
    a, _ = simulate(cands, Policy(2, window=4, pair_cap_per_hour=5), 30, seed=11)
    b, _ = simulate(cands, Policy(2, window=4, pair_cap_per_hour=5), 30, seed=11)
    c, _ = simulate(cands, Policy(2, window=4, pair_cap_per_hour=5), 30, seed=12)
    assert a == b
    assert a != c


@pytest.mark.parametrize("seats", [2, 3])
def test_seats_rotate_evenly(seats: int) -> None:
    cands = pool(7, free=2, ordinals=[float(i) for i in range(7)])
    played, state = simulate(cands, Policy(seats, window=3, pair_cap_per_hour=10_000), 200,
                             seed=2)
    assert len(played) > 300
    for c in state.values():
        assert sum(c.seat_counts) == c.games
        assert max(c.seat_counts) - min(c.seat_counts) <= 2, c


def test_games_stay_fair_between_candidates() -> None:
    cands = pool(9, free=1, ordinals=[float(i * 3) for i in range(9)])
    _, state = simulate(cands, Policy(2, window=2, pair_cap_per_hour=10_000), 100, seed=4)
    games = [c.games for c in state.values()]
    # 9 candidates, one slot each: one sits out each round. The seed of each match is the
    # one with the fewest games, so nobody falls behind by more than a match or two.
    assert sum(games) == 100 * 8
    assert max(games) - min(games) <= 2


def test_a_seed_without_any_allowed_opponent_is_skipped() -> None:
    cands = [Candidate(1, "a", 1, 0, 0.0), Candidate(2, "a", 1, 1, 0.0),
             Candidate(3, "b", 1, 2, 0.0)]
    (only,) = plan(cands, Policy(2), PairLog(), 0.0, random.Random(0))
    assert set(only.seats) in ({1, 3}, {2, 3})
    assert plan(cands[:2], Policy(2), PairLog(), 0.0, random.Random(0)) == []


def test_a_free_bot_waits_a_while_for_a_busy_opponent_of_its_window() -> None:
    # entity 1 is free; its nearest (2) is busy, a far one (3) is free
    near_busy = [Candidate(1, "a", 1, 0, ordinal=10.0, waiting_since=100.0),
                 Candidate(2, "b", 0, 0, ordinal=11.0, waiting_since=100.0),
                 Candidate(3, "c", 1, 5, ordinal=30.0, waiting_since=100.0)]
    policy = Policy(2, window=1, patience_s=5.0)
    assert plan(near_busy, policy, PairLog(), 103.0, random.Random(0)) == []
    # (had 3 been waiting for long, it could take 1 at once: its own patience is out)
    impatient = [*near_busy[:2], replace(near_busy[2], waiting_since=0.0)]
    (taken,) = plan(impatient, policy, PairLog(), 103.0, random.Random(0))
    assert set(taken.seats) == {1, 3}
    # patience runs out: the nearest free opponent will do
    (late,) = plan(near_busy, policy, PairLog(), 105.5, random.Random(0))
    assert set(late.seats) == {1, 3}
    # the busy one is free again in time: the near pair plays
    freed = [replace(near_busy[1], free=1), *near_busy[::2]]
    (near,) = plan(freed, policy, PairLog(), 103.0, random.Random(0))
    assert set(near.seats) == {1, 2}


def test_busy_bots_count_for_the_window_but_are_never_seated() -> None:
    cands = [Candidate(1, "a", 1, 0, 0.0, waiting_since=0.0),
             Candidate(2, "b", 0, 0, 0.5, waiting_since=0.0),
             Candidate(3, "c", 1, 0, 1.0, waiting_since=0.0),
             Candidate(4, "d", 1, 0, 9.0, waiting_since=0.0)]
    for seed in range(10):
        pairings = plan(cands, Policy(2, window=2, patience_s=60.0), PairLog(), 1.0,
                        random.Random(seed))
        assert pairings == [Pairing((1, 3))] or pairings == [Pairing((3, 1))]
