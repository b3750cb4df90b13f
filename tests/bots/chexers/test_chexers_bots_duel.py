"""The zero-sum duel search (``Search(..., rival=c)``, the bots' ``zero_sum`` option, on by
default for MP-Mix): paranoid alpha-beta of ``U_root − U_rival`` equals plain minimax of that
difference, with the leaf scan on or off, and MP-Mix uses it once an opponent is knocked out."""

from __future__ import annotations

import pytest
from chexers_reference import minimax_root, sample_positions

from bots.chexers import Evaluator, Search
from bots.chexers.agents import MaxnBot, MPMixBot
from engine.chexers import Position


def _without(pos: Position, colour: int) -> Position:
    """``pos`` with every piece of ``colour`` taken off (a knocked-out seat)."""
    cells = [-1 if c == colour else c for c in pos.cells[:37]]
    return Position(cells, pos.exits, pos.turn)


def _duels() -> list[Position]:
    """Duel positions: seeded random-game positions with the seat after or before the mover
    knocked out, plus hand-made ones where the last ply can end the game."""
    out = []
    for k, pos in enumerate(sample_positions(8, seed=21, every=5)):
        gone = (pos.turn + 1 + k % 2) % 3
        duel = _without(pos, gone)
        if duel.bb[(gone + 1) % 3] and duel.bb[(gone + 2) % 3] and len(duel.legal_actions()) > 1:
            out.append(duel)
    out += [
        Position.from_cxn("gggg/5/6/r6/r5/r4/r3 r 0,0,3 30"),    # Blue knocked out
        Position.from_cxn("4/5/5r/3g2r/6/g4/4 r 3,1,3 600"),     # both one exit from a win
        Position.from_cxn("4/5/5r/3g2r/6/g4/4 g 3,1,3 601"),
        Position.from_cxn("4/5/6/3g2r/6/5/4 b 3,2,0 764"),       # turn limit two plies ahead
    ]
    return out


DUELS = _duels()


def _rival(pos: Position) -> int:
    me = pos.turn % 3
    return next(c for c in (me + 1, me + 2) if pos.bb[c % 3]) % 3


def test_the_duel_positions_are_duels() -> None:
    assert len(DUELS) >= 8
    for pos in DUELS:
        assert sum(1 for c in range(3) if pos.bb[c]) == 2 and pos.result is None


@pytest.mark.parametrize("pos", DUELS, ids=lambda p: p.to_cxn())
def test_duel_value_equals_plain_minimax_of_the_difference(pos: Position) -> None:
    ev = Evaluator.for_position(pos)
    before = pos.to_notation()
    rival = _rival(pos)
    for depth in (1, 2, 3, 4):
        action, value = minimax_root(pos, ev, depth, rival=rival)
        scanned = Search(pos, ev, rival=rival).paranoid(depth)
        played = Search(pos, ev, rival=rival, leaf_scan=False).paranoid(depth)
        assert (str(scanned.action), scanned.value) == (action, value), depth
        assert scanned == played, depth
    assert pos.to_notation() == before and pos._stack == []


@pytest.mark.parametrize("pos", sample_positions(4, seed=22, every=9), ids=lambda p: p.to_cxn())
def test_a_rival_works_with_three_seats_in_play_too(pos: Position) -> None:
    ev = Evaluator.for_position(pos)
    me = pos.turn % 3
    for rival in ((me + 1) % 3, (me + 2) % 3):
        action, value = minimax_root(pos, ev, 3, rival=rival)
        result = Search(pos, ev, rival=rival).paranoid(3)
        assert (str(result.action), result.value) == (action, value)


def test_the_difference_changes_some_choices() -> None:
    """Against the root's own utility alone (the report's reduction), the zero-sum value also
    counts the rival's progress, so some duel decisions differ (3 of these 12 at MP-Mix's
    duel depth 6)."""
    changed = 0
    for pos in DUELS:
        own = Search(pos).paranoid(6).action
        zero_sum = Search(pos, rival=_rival(pos)).paranoid(6).action
        changed += own != zero_sum
    assert changed >= 2


def test_wins_and_losses_are_worth_the_full_swing() -> None:
    # Red to move with three exits and a piece on its exit hex: it exits and wins at once.
    red = Position.from_cxn("4/5/5r/3g2r/6/g4/4 r 3,1,3 600")
    ev = Evaluator.for_position(red)
    assert Search(red, ev, rival=1).paranoid(1).value == ev.win
    # Green to move next: Blue (knocked out) passes, then Red wins whatever Green does, and
    # that is the whole swing against Green, not just Green's own utility dropping to 0.
    green = Position.from_cxn("4/5/5r/3g2r/6/g4/4 g 3,1,3 601")
    assert Search(green, ev, rival=0).paranoid(3).value == -ev.win
    assert Search(green, ev).paranoid(3).value == 0


def test_mp_mix_searches_a_duel_as_zero_sum_by_default() -> None:
    duel = Position.from_cxn("gggg/5/6/r6/r5/r4/r3 r 0,0,3 30")  # Blue has no pieces left
    bot = MPMixBot()
    assert bot.two_player and bot.zero_sum
    bot.decide(duel)
    assert bot.last is not None and (bot.last.mode, bot.last.depth) == ("two_player", 6)
    assert bot.last.action == Search(duel, rival=1).paranoid(6).action
    report = MPMixBot(zero_sum=False)
    report.decide(duel)
    assert report.last is not None and report.last.action == Search(duel).paranoid(6).action
    plain = MPMixBot(two_player=False)
    plain.decide(duel)
    assert plain.last is not None and plain.last.mode == "maxn"
    # Three seats in play: the duel search is not used.
    three = Position.from_cxn("gggg/5/6/r6/r5/r3b/r3 r 0,0,2 30")
    bot.decide(three)
    assert bot.last is not None and bot.last.mode != "two_player"


def test_other_agents_keep_the_reports_reduction_unless_asked() -> None:
    duel = Position.from_cxn("gggg/5/6/r6/r5/r4/r3 r 0,0,3 30")
    assert not MaxnBot().zero_sum
    bot = MaxnBot(two_player=True, zero_sum=True)
    bot.decide(duel)
    assert bot.last is not None and bot.last.mode == "two_player"
    assert bot.last.action == Search(duel, rival=1).paranoid(5).action


def test_bad_rivals_and_options_are_refused() -> None:
    pos = Position.start()
    with pytest.raises(ValueError, match="rival"):
        Search(pos, rival=pos.turn % 3)
    with pytest.raises(ValueError, match="rival"):
        Search(pos, rival=3)
    with pytest.raises(ValueError, match="rival"):
        Search(pos, rival=1, quiesce=1)
    with pytest.raises(ValueError, match="zero_sum"):
        MPMixBot(zero_sum="yes")  # type: ignore[arg-type]
