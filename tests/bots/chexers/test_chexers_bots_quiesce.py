"""Quiescence (``quiesce``): a leaf reached by a converting jump is searched on by converting
jumps. Exact against the plain references, off by default (nothing else changes), parsed and
validated as an option, deterministic, and it sees a recapture the static leaf misses."""

from __future__ import annotations

from typing import Any

import pytest
from chexers_reference import maxn_root, minimax_root, sample_positions

from bots.chexers import AGENTS, Evaluator, MaxnBot, MPMixBot, ParanoidBot, Search
from engine.chexers import Position
from engine.chexers.geometry import INDEX
from tools.commands.bench_strength import make_bot, parse_agent

# Crowded positions from seeded games (conversions all over the tree) and a cycle-biased set
# (repetition draws inside the extension).
POSITIONS = (sample_positions(5, seed=21, every=11)
             + sample_positions(3, seed=22, repeat_bias=True, every=5)
             + [Position.from_cxn("1g2/1rb2/6/2rgb2/6/5/4 r 2,2,2 300")])


def exchange_position() -> Position:
    """Red to move with two converting jumps: (0,0) over Green's (1,0) to (2,0) gains more
    statically (+18) but Green's (2,1) then jumps (2,0) back; (-3,2) over (-2,2) to (-1,2)
    gains less (+15) and cannot be answered. (-1,0) guards (0,0) against (1,0)."""
    cells = [-1] * 37
    for (q, r), colour in {(0, 0): 0, (-1, 0): 0, (1, 0): 1, (2, 1): 1,
                           (-3, 2): 0, (-2, 2): 1, (0, -3): 2}.items():
        cells[INDEX[(q, r)]] = colour
    return Position(cells, [0, 0, 0], 0)


def _child(result: Any, text: str) -> Any:
    return next(v for a, v in result.children if str(a) == text)


# ---- the pending exchange ---------------------------------------------------------------------


def test_the_extension_sees_the_recapture_a_static_leaf_misses() -> None:
    pos = exchange_position()
    greedy_jump, safe_jump = "JUMP 0,0 2,0", "JUMP -3,2 -1,2"
    static = Search(pos).maxn(1)
    assert str(static.action) == greedy_jump
    assert _child(static, greedy_jump) == (59, 33, 18)
    # After the greedy jump, Green's best reply is the recapture; its vector is exactly what
    # the extended search gives that child.
    pos.apply(next(a for a in pos.legal_actions() if str(a) == greedy_jump))
    pos.apply(next(a for a in pos.legal_actions() if str(a) == "JUMP 2,1 2,-1"))
    recaptured = tuple(Evaluator.for_position(pos).vector(pos))
    pos.undo()
    pos.undo()
    assert recaptured == (42, 46, 18)
    for quiesce in (1, 2):
        extended = Search(pos, quiesce=quiesce).maxn(1)
        assert _child(extended, greedy_jump) == recaptured
        assert str(extended.action) == safe_jump and extended.value == (56, 31, 18)
        for cautious in (False, True):
            assert str(Search(pos, quiesce=quiesce, cautious=cautious).maxn(1).action) \
                == safe_jump
        paranoid = Search(pos, quiesce=quiesce).paranoid(1)
        assert (str(paranoid.action), paranoid.value) == (safe_jump, 56)
    assert str(Search(pos).paranoid(1).action) == greedy_jump
    # The bots: MP-Mix at depth 1 (maxⁿ mode here) changes its mind only with the option.
    assert str(MPMixBot(depth=1).decide(pos)) == greedy_jump
    assert str(MPMixBot(depth=1, quiesce=1).decide(pos)) == safe_jump


def test_a_quiet_leaf_is_not_extended() -> None:
    # Green's (1,0) could take nothing after Red's quiet moves, so a depth-1 search with the
    # option gives every non-converting child its static vector.
    pos = exchange_position()
    static = Search(pos).maxn(1)
    extended = Search(pos, quiesce=2).maxn(1)
    for (act, v0), (_, v1) in zip(static.children, extended.children, strict=True):
        if not (act.kind == 2 and pos.cells[act.mid] not in (-1, 0)):
            assert v0 == v1, str(act)


# ---- exact against the references ---------------------------------------------------------------


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: p.to_cxn())
def test_maxn_and_offensive_with_quiescence_match_the_reference(pos: Position) -> None:
    ev = Evaluator.for_position(pos)
    root = pos.turn % 3
    before = pos.to_notation()
    for quiesce in (1, 2):
        for depth in (1, 2, 3):
            for cautious in (False, True):
                action, vector = maxn_root(pos, ev, depth, cautious=cautious, quiesce=quiesce)
                for scan in (True, False):
                    plain = Search(pos, ev, prune=False, leaf_scan=scan, cautious=cautious,
                                   quiesce=quiesce).maxn(depth)
                    assert (str(plain.action), plain.value) == (action, tuple(vector))
                    pruned = Search(pos, ev, leaf_scan=scan, cautious=cautious,
                                    quiesce=quiesce).maxn(depth)
                    assert str(pruned.action) == action
                    assert isinstance(pruned.value, tuple)
                    assert pruned.value[root] == vector[root]
            target = (root + 1) % 3
            for cautious in (False, True):
                action, vector = maxn_root(pos, ev, depth, target, cautious, quiesce)
                result = Search(pos, ev, cautious=cautious, quiesce=quiesce).offensive(
                    depth, target)
                assert (str(result.action), result.value) == (action, tuple(vector))
    assert pos.to_notation() == before and pos._stack == []


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: p.to_cxn())
def test_paranoid_with_quiescence_equals_plain_minimax(pos: Position) -> None:
    ev = Evaluator.for_position(pos)
    for quiesce in (1, 2):
        for depth in (1, 2, 3):
            action, value = minimax_root(pos, ev, depth, quiesce)
            for scan in (True, False):
                result = Search(pos, ev, leaf_scan=scan, quiesce=quiesce).paranoid(depth)
                assert (str(result.action), result.value) == (action, value), (quiesce, depth)


def test_quiescence_changes_some_values_in_real_positions() -> None:
    # Not a no-op: on the sampled positions the extension moves some root vectors.
    changed = sum(Search(p, quiesce=2).maxn(2).value != Search(p).maxn(2).value
                  for p in POSITIONS)
    assert changed >= 1


# ---- off by default, options, determinism --------------------------------------------------------


def test_off_by_default_and_zero_is_the_old_search() -> None:
    for name, cls in AGENTS.items():
        assert cls().quiesce == 0, name
    for pos in POSITIONS[:4]:
        for depth in (1, 2, 3):
            a, b = Search(pos, cautious=True).maxn(depth), Search(
                pos, cautious=True, quiesce=0).maxn(depth)
            assert (a.action, a.value, a.children) == (b.action, b.value, b.children)
            a, b = Search(pos).paranoid(depth), Search(pos, quiesce=0).paranoid(depth)
            assert (a.action, a.value) == (b.action, b.value)
        assert MPMixBot(quiesce=0).decide(pos) == MPMixBot().decide(pos)


@pytest.mark.parametrize("value", [-1, True, "2", 1.5, None])
def test_malformed_quiesce_is_rejected(value: Any) -> None:
    with pytest.raises(ValueError, match="quiesce"):
        MPMixBot(quiesce=value)
    with pytest.raises(ValueError, match="quiesce"):
        Search(Position.start(), quiesce=value)


def test_bench_specs_parse_quiesce() -> None:
    assert parse_agent("mp-mix:quiesce=2") == ("mp-mix", {"quiesce": 2})
    bot = make_bot("mp-mix:quiesce=2:depth=3", 1, "chexers")
    assert (bot.quiesce, bot.depth) == (2, 3)
    assert make_bot("paranoid:quiesce=1", 1, "chexers").quiesce == 1
    with pytest.raises(ValueError, match="quiesce"):
        make_bot("maxn:quiesce=-2", 1, "chexers")


def test_quiescence_is_deterministic_in_every_bot_that_searches_with_it() -> None:
    pos = POSITIONS[0]
    for make in (lambda: MPMixBot(quiesce=2), lambda: MaxnBot(quiesce=2),
                 lambda: ParanoidBot(quiesce=2)):
        first, second = make(), make()
        assert first.decide(pos) == second.decide(pos)
        assert first.last is not None and second.last is not None
        assert (first.last.value, first.last.nodes) == (second.last.value, second.last.nodes)
    # Under a node budget too: the extension's nodes count against it like any other.
    budgeted = [MPMixBot(quiesce=2, max_nodes=500) for _ in range(2)]
    assert budgeted[0].decide(pos) == budgeted[1].decide(pos)
    assert budgeted[0].last is not None and budgeted[1].last is not None
    assert budgeted[0].last.depth == budgeted[1].last.depth
