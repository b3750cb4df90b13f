"""server/tournaments.py: pairings, seats, scoring and tie-breaks, checked by hand."""

from __future__ import annotations

import itertools
import random

import pytest

from server.tournaments import (
    Entrant,
    Tournament,
    TournamentError,
    game_points,
    max_swiss_rounds,
    round_robin,
)

WIN, LOSS, DRAW = (0, 1), (1, 0), (0, 0)


def swiss(names: str, rounds: int) -> Tournament:
    """A Swiss whose entrants are rated in the order named (the first highest)."""
    t = Tournament("t", "test", "battleline", "swiss", 2, rounds, "ann", "t0")
    for i, name in enumerate(names):
        t.join(Entrant(name, "bot", float(len(names) - i)))
    return t


def play(t: Tournament, results: dict[tuple[str, str], tuple[int, int]]) -> None:
    """Record this round's results, given as (higher, lower) -> ranks of those two; then
    advance."""
    for p in t.round_pairings(t.current_round):
        if p.is_bye:
            continue
        a, b = p.seats
        ranks = results[(a, b)] if (a, b) in results else results[(b, a)][::-1]
        t.record(p.round, p.board, "over", ranks, "flags")
    t.advance("t1")


def pairs(t: Tournament, number: int) -> set[frozenset[str]]:
    return {frozenset(p.seats) for p in t.round_pairings(number)}


def test_a_swiss_of_six_over_three_rounds_with_its_tie_breaks_by_hand() -> None:
    t = swiss("ABCDEF", 3)
    t.start("t0")
    # Round 1, all on 0: by rating, top against next.
    assert pairs(t, 1) == {frozenset("AB"), frozenset("CD"), frozenset("EF")}
    play(t, {("A", "B"): WIN, ("C", "D"): DRAW, ("E", "F"): LOSS})
    # Placing: A 1, F 1, C ½, D ½, B 0, E 0 (points, then rating). A-F; C has met D: C-B;
    # D-E.
    assert pairs(t, 2) == {frozenset("AF"), frozenset("BC"), frozenset("DE")}
    play(t, {("A", "F"): WIN, ("C", "B"): LOSS, ("D", "E"): DRAW})
    # Placing: A 2; B 1, D 1, F 1 (by rating); C ½, E ½. A-D (met B and F); B-F; C-E.
    assert pairs(t, 3) == {frozenset("AD"), frozenset("BF"), frozenset("CE")}
    play(t, {("A", "D"): DRAW, ("B", "F"): WIN, ("C", "E"): WIN})
    assert t.status == "over"
    table = {s.name: s for s in t.standings()}
    # Final points: A 2½, B 2, C 1½, D 1½, F 1, E ½.
    assert {n: s.points for n, s in table.items()} == {
        "A": 2.5, "B": 2.0, "C": 1.5, "D": 1.5, "E": 0.5, "F": 1.0}
    # Buchholz: the opponents' points. A: B 2 + F 1 + D 1½; B: A 2½ + C 1½ + F 1; …
    assert {n: s.buchholz for n, s in table.items()} == {
        "A": 4.5, "B": 5.0, "C": 4.0, "D": 4.5, "E": 4.0, "F": 5.0}
    # Sonneborn-Berger: beaten opponents' points + half the drawn ones'. A: B 2 + F 1 +
    # ½·D 1½; B: C 1½ + F 1; C: ½·D 1½ + E ½; D: ½·(C 1½ + E ½ + A 2½); E: ½·D 1½; F: E ½.
    assert {n: s.sonneborn_berger for n, s in table.items()} == {
        "A": 3.75, "B": 2.5, "C": 1.25, "D": 2.25, "E": 0.75, "F": 0.5}
    # C and D are level on points; D's Buchholz is higher.
    assert [(s.rank, s.name) for s in t.standings()] == [
        (1, "A"), (2, "B"), (3, "D"), (4, "C"), (5, "F"), (6, "E")]
    assert (table["D"].wins, table["D"].draws, table["D"].losses) == (0, 3, 0)
    cross = t.crosstable()
    a, d = cross["names"].index("A"), cross["names"].index("D")
    assert cross["cells"][a][d] == [0.5] and cross["cells"][a][a] is None


def test_an_odd_field_gives_the_bye_to_the_lowest_placed_without_one() -> None:
    t = swiss("ABCDE", 4)
    t.start("t0")
    assert pairs(t, 1) == {frozenset("AB"), frozenset("CD"), frozenset("E")}
    play(t, {("A", "B"): WIN, ("C", "D"): WIN})
    # A 1, C 1, E 1 (the bye scores a win), B 0, D 0: the bye goes to D (E had one).
    assert pairs(t, 2) == {frozenset("AC"), frozenset("BE"), frozenset("D")}
    assert t.points() == {"A": 1, "B": 0, "C": 1, "D": 1, "E": 1}  # D's bye counts at once
    table = {s.name: s for s in t.standings()}
    assert table["E"].byes == 1 and table["E"].games == 0 and table["E"].buchholz == 0
    for _ in range(3):
        play(t, {p: WIN for p in itertools.permutations("ABCDE", 2)
                 if p[0] < p[1]})
    assert t.status == "over"
    byes = [p.seats[0] for p in t.pairings if p.is_bye]
    assert len(byes) == 4 == len(set(byes))


def test_no_repeat_pairing_over_as_many_rounds_as_there_can_be() -> None:
    for n in (4, 5, 6, 7, 8):
        for seed in range(10):
            rng = random.Random(seed)
            t = swiss("ABCDEFGH"[:n], max_swiss_rounds(n))
            t.start("t0")
            while t.status == "running":
                for p in t.round_pairings(t.current_round):
                    if not p.done:
                        t.record(p.round, p.board, "over", rng.choice([WIN, LOSS, DRAW]),
                                 "x")
                t.advance("t1")
            met = [frozenset(p.seats) for p in t.pairings if not p.is_bye]
            assert len(met) == len(set(met)), (n, seed)
            assert len(t.had_bye()) == (n if n % 2 else 0)


def test_round_robins_two_and_three_seats() -> None:
    rounds = round_robin(list("ABCDE"), 2)
    assert len(rounds) == 5 and all(len(r) == 2 for r in rounds)
    met = [frozenset(g) for r in rounds for g in r]
    assert sorted(map(sorted, met)) == sorted(map(sorted, itertools.combinations("ABCDE", 2)))
    t = Tournament("t", "rr", "chexers", "round_robin", 3, 0, "ann", "t0")
    for name in "ABCD":
        t.join(Entrant(name, "bot"))
    t.start("t0")
    assert t.rounds == 4
    while t.status == "running":
        for p in t.round_pairings(t.current_round):
            t.record(p.round, p.board, "over", (0, 1, 1), "exits")
        t.advance("t1")
    assert t.seat_counts() == {name: [1, 1, 1] for name in "ABCD"}
    # Each game: first 1, the two tied for second ¼ each (½ of a pairwise draw, over two
    # opponents); a game of three always gives 1½ in all.
    assert sum(t.points().values()) == 4 * 1.5
    assert game_points((0, 1, 1)) == [1.0, 0.25, 0.25]
    assert game_points((0, 1, 2)) == [1.0, 0.5, 0.0]


def test_forfeits_voids_and_refusals() -> None:
    t = swiss("AB", 1)
    t.start("t0")
    (p,) = t.round_pairings(1)
    t.record(1, p.board, "forfeit", (1, 1), "forfeit")  # neither was there
    assert t.points() == {"A": 0.0, "B": 0.0}
    v = swiss("AB", 1)
    v.start("t0")
    v.record(1, 1, "void", None, "void")
    assert v.points() == {"A": 0.5, "B": 0.5}
    with pytest.raises(TournamentError) as refused:
        v.join(Entrant("C", "human"))
    assert refused.value.reason == "started"
    with pytest.raises(TournamentError) as refused:
        Tournament("t", "x", "chexers", "swiss", 3, 3, "ann", "t0")
    assert refused.value.reason == "seats"
    lone = swiss("A", 1)
    with pytest.raises(TournamentError) as refused:
        lone.start("t0")
    assert refused.value.reason == "too_few"
    many = swiss("ABCD", 4)
    with pytest.raises(TournamentError) as refused:
        many.start("t0")
    assert refused.value.reason == "too_many_rounds"
