"""The fast searches against plain references (tests/bots/chexers/chexers_reference.py):
paranoid = minimax of the root's utility, shallow pruning never changes maxⁿ's choice, the leaf
scan gives the same vectors as playing every child, offensive = its plain definition."""

from __future__ import annotations

import pytest
from chexers_reference import maxn_root, minimax_root, sample_positions

from bots.chexers import Evaluator, Search
from engine.chexers import Position

# Hand-made positions where the last ply of a search can end the game: 4th exits, the turn
# limit, and conversions next to exit hexes.
ENDGAME_CXN = [
    "4/5/6/3bg1r/6/5/4 r 3,0,0 765",          # rules C12: Red can win by exiting
    "4/5/5r/b2g2r/6/g4/4 r 3,1,3 600",          # Red and Blue one exit from winning
    "4/5/5r/b2g2r/6/g4/4 g 3,1,3 601",
    "4/5/5r/b2g2r/6/g4/4 b 3,1,3 602",
    "gggg/5/6/r5b/r4b/r3b/r2b g 0,0,0 766",    # turn limit two plies ahead
    "1g2/1rb2/6/2rgb2/6/5/4 r 2,2,2 300",      # crowded centre: jumps and conversions
]

POSITIONS = (
    sample_positions(8, seed=11)
    + sample_positions(6, seed=12, repeat_bias=True, every=5)
    + [Position.from_cxn(c) for c in ENDGAME_CXN]
)


def _ids() -> list[str]:
    return [p.to_cxn() for p in POSITIONS]


def _unchanged(pos: Position, before: str) -> None:
    assert pos.to_notation() == before and pos._stack == []


@pytest.mark.parametrize("pos", POSITIONS, ids=_ids())
def test_paranoid_value_equals_plain_minimax(pos: Position) -> None:
    ev = Evaluator.for_position(pos)
    before = pos.to_notation()
    for depth in (1, 2, 3):
        action, value = minimax_root(pos, ev, depth)
        result = Search(pos, ev).paranoid(depth)
        assert result.value == value, depth
        assert str(result.action) == action, depth
    _unchanged(pos, before)


@pytest.mark.parametrize("pos", POSITIONS[::4] + [Position.start()], ids=lambda p: p.to_cxn())
def test_paranoid_depth_4_equals_plain_minimax(pos: Position) -> None:
    ev = Evaluator.for_position(pos)
    action, value = minimax_root(pos, ev, 4)
    result = Search(pos, ev).paranoid(4)
    assert (str(result.action), result.value) == (action, value)


@pytest.mark.parametrize("pos", POSITIONS, ids=_ids())
def test_maxn_matches_plain_maxn_with_and_without_pruning(pos: Position) -> None:
    ev = Evaluator.for_position(pos)
    before = pos.to_notation()
    for depth in (1, 2, 3):
        action, vector = maxn_root(pos, ev, depth)
        pruned = Search(pos, ev, prune=True).maxn(depth)
        plain = Search(pos, ev, prune=False).maxn(depth)
        # Pruning never changes the chosen action (nor the root value: ties at the root are
        # searched exactly); without it the leaf scan must reproduce the reference exactly.
        assert str(pruned.action) == str(plain.action) == action, depth
        assert isinstance(pruned.value, tuple)
        assert plain.value == tuple(vector) and pruned.value[pos.turn % 3] == vector[
            pos.turn % 3]
        assert [str(a) for a, _ in plain.children] == [str(a) for a in pos.legal_actions()]
    _unchanged(pos, before)


@pytest.mark.parametrize("pos", POSITIONS[::2], ids=lambda p: p.to_cxn())
def test_offensive_matches_its_plain_definition(pos: Position) -> None:
    ev = Evaluator.for_position(pos)
    root = pos.turn % 3
    for target in ((root + 1) % 3, (root + 2) % 3):
        action, vector = maxn_root(pos, ev, 3, target)
        result = Search(pos, ev).offensive(3, target)
        assert (str(result.action), result.value) == (action, tuple(vector))


@pytest.mark.parametrize("variant", ["average", "best4"])
def test_other_cost_variants_search_like_the_reference(variant: str) -> None:
    for pos in POSITIONS[:3] + POSITIONS[-3:]:
        ev = Evaluator.for_position(pos, variant)
        assert (str(Search(pos, ev).maxn(2).action), ) == (maxn_root(pos, ev, 2)[0], )
        action, value = minimax_root(pos, ev, 3)
        result = Search(pos, ev).paranoid(3)
        assert (str(result.action), result.value) == (action, value)


def test_shallow_pruning_cuts_somewhere_and_stays_exact() -> None:
    """Pruning must be live (not a no-op flag), yet choose the same actions."""
    cutoffs = 0
    for pos in POSITIONS:
        ev = Evaluator.for_position(pos)
        pruned, plain = Search(pos, ev, prune=True), Search(pos, ev, prune=False)
        a, b = pruned.maxn(3), plain.maxn(3)
        assert a.action == b.action
        cutoffs += pruned.stats.cutoffs
        assert plain.stats.cutoffs == 0
    assert cutoffs > 0


def _cycle_positions() -> list[Position]:
    """Rules C10's shuffle (each colour steps out and back) played until the start has
    occurred three times, then stepped out again: positions whose children include a 4th
    occurrence (a repetition draw) one or two plies ahead."""
    out = []
    pos = Position.start()
    steps = [((-3, 3), (-2, 3)), ((0, -3), (0, -2)), ((3, 0), (2, 0))]
    acts = []
    for frm, to in steps:
        acts.append(next(a for a in pos.legal_actions() if a.to_json().get("from") == list(frm)
                         and a.to_json().get("to") == list(to)))
        pos.apply(acts[-1])
    for _ in range(3):
        pos.undo()
    for turn in range(17):
        k = turn % 6
        if k < 3:
            act = acts[k]
        else:
            j = k - 3
            act = next(a for a in pos.legal_actions() if (a.frm, a.to) == (acts[j].to,
                                                                          acts[j].frm))
        pos.apply(act)
        if turn >= 13:
            out.append(Position.from_notation(pos.to_notation()))
    assert max(out[-1].history.values()) == 3
    return out


CYCLE = _cycle_positions()


@pytest.mark.parametrize("pos", POSITIONS + CYCLE, ids=lambda p: p.to_cxn())
def test_leaf_scan_equals_playing_each_child(pos: Position) -> None:
    ev = Evaluator.for_position(pos)
    scanned = Search(pos, ev).child_vectors()
    played = []
    for act in pos.legal_actions():
        pos.apply(act)
        played.append((act, ev.vector(pos), pos.result))
        pos.undo()
    assert [(a, v) for a, v in scanned] == [(a, v) for a, v, _ in played]


def test_cycle_positions_reach_repetition_draws_inside_the_search() -> None:
    """The last cycle position's children include the start's 4th occurrence: a draw."""
    pos = CYCLE[-1]
    draws = [v for _, v in Search(pos).child_vectors() if v == [10, 10, 10]]
    assert len(draws) == 1
    for p in CYCLE:
        ev = Evaluator.for_position(p)
        assert Search(p, ev).paranoid(3).value == minimax_root(p, ev, 3)[1]
        assert str(Search(p, ev, prune=False).maxn(3).action) == maxn_root(p, ev, 3)[0]


def test_switching_the_leaf_scan_off_changes_nothing_but_speed() -> None:
    for pos in POSITIONS[::3] + CYCLE:
        ev = Evaluator.for_position(pos)
        for depth in (2, 3):
            on, off = Search(pos, ev), Search(pos, ev, leaf_scan=False)
            assert on.maxn(depth) == off.maxn(depth)
            on, off = Search(pos, ev), Search(pos, ev, leaf_scan=False)
            assert on.paranoid(depth) == off.paranoid(depth)


def test_pruning_keeps_every_root_tie_exact_for_random_maxn() -> None:
    """RandomMaxn draws among root actions tied for the best: pruning must not hide a tie
    nor invent one."""
    for pos in POSITIONS[::2] + [Position.start()]:
        root = pos.turn % 3
        ties = []
        for prune in (True, False):
            result = Search(pos, prune=prune).maxn(3)
            assert isinstance(result.value, tuple)
            top = result.value[root]
            ties.append([a for a, v in result.children
                         if isinstance(v, tuple) and v[root] == top])
        assert ties[0] == ties[1]


@pytest.mark.parametrize("pos", POSITIONS[::2] + CYCLE[-2:], ids=lambda p: p.to_cxn())
def test_cautious_ties_match_the_plain_definition(pos: Position) -> None:
    """Cautious maxⁿ and offensive (opponents' ties against the root, the root's offensive
    ties for itself) equal the plain recursion, with pruning and the leaf scan on or off."""
    ev = Evaluator.for_position(pos)
    root = pos.turn % 3
    for depth in (1, 2, 3, 4):
        action, vector = maxn_root(pos, ev, depth, cautious=True)
        for prune in (True, False):
            for scan in (True, False):
                if depth == 4 and not (prune and scan):
                    continue  # the slow combinations at depth 4 add time, not cover
                result = Search(pos, ev, prune=prune, leaf_scan=scan,
                                cautious=True).maxn(depth)
                assert str(result.action) == action, (depth, prune, scan)
                assert isinstance(result.value, tuple)
                assert result.value[root] == vector[root]
                if not prune:
                    assert result.value == tuple(vector)
        if depth == 4:
            continue
        for target in ((root + 1) % 3, (root + 2) % 3):
            action, vector = maxn_root(pos, ev, depth, target, cautious=True)
            result = Search(pos, ev, cautious=True).offensive(depth, target)
            assert (str(result.action), result.value) == (action, tuple(vector)), depth


def test_cautious_ties_change_some_choices_and_are_exact_at_depth_4() -> None:
    """The flag is live: on sampled positions some offensive choices and some maxⁿ child
    vectors differ from the first-tie ones; and depth 4 (where the root moves again at the
    last ply) is exact too."""
    offensive = vectors = 0
    for pos in POSITIONS:
        ev = Evaluator.for_position(pos)
        target = (pos.turn + 1) % 3
        offensive += (Search(pos, ev).offensive(3, target).action
                      != Search(pos, ev, cautious=True).offensive(3, target).action)
        plain, cautious = Search(pos, ev).maxn(3), Search(pos, ev, cautious=True).maxn(3)
        vectors += sum(u != v for (_, u), (_, v) in zip(plain.children, cautious.children,
                                                       strict=True))
    assert offensive > 0 and vectors > 0
    for pos in POSITIONS[1:8:3]:
        ev = Evaluator.for_position(pos)
        action, vector = maxn_root(pos, ev, 4, cautious=True)
        assert str(Search(pos, ev, cautious=True).maxn(4).action) == action
