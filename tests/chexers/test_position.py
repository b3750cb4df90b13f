"""The fast core (:class:`Position`) against an independent plain model of the rules
(tests/chexers/oracle.py), its undo, its history and its agreement with the JSON contract."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from engine.chexers import GAME, PASS_ACT, Act, Position, to_referee_tuple
from engine.chexers.position import DRAW, key_pieces, key_text
from engine.match import Match
from engine.rng import Rng

from .helpers import START
from .oracle import OracleGame

Chooser = Callable[[Position, list[Act], Rng], Act]


def uniform(pos: Position, legal: list[Act], rng: Rng) -> Act:
    return legal[rng.below(len(legal))]


def shuffler(pos: Position, legal: list[Act], rng: Rng) -> Act:
    """Prefers stepping back where it came from, so positions repeat and repetition draws
    happen often (uniform play almost never repeats a position four times)."""
    if pos._stack and rng.below(4):
        last = pos._stack[-3][0] if len(pos._stack) >= 3 else None
        if last is not None and last.kind == 1:
            for act in legal:
                if act.kind == 1 and act.frm == last.to and act.to == last.frm:
                    return act
    return legal[rng.below(len(legal))]


def exiter(pos: Position, legal: list[Act], rng: Rng) -> Act:
    """Exits whenever it can, else moves at random: games end by exits more often."""
    for act in legal:
        if act.kind == 0:
            return act
    return legal[rng.below(len(legal))]


def _snapshot(pos: Position) -> tuple:
    return (list(pos.cells), list(pos.bb), list(pos.exits), pos.turn, dict(pos.history),
            pos.result)


@pytest.mark.parametrize(("chooser", "seeds"), [
    (uniform, range(0, 6)), (shuffler, range(6, 16)), (exiter, range(16, 26))])
def test_fast_core_agrees_with_the_plain_model_move_by_move(chooser: Chooser,
                                                             seeds: range) -> None:
    reasons: dict[str, int] = {}
    for seed in seeds:
        rng = Rng(seed)
        pos, oracle = Position.start(), OracleGame.from_cxn(START)
        while pos.result is None:
            legal = pos.legal_actions()
            assert [to_referee_tuple(a.to_json()) for a in legal] == oracle.actions()
            assert sorted(legal, key=lambda a: a.order) == legal
            assert pos.has_action() == (legal != [PASS_ACT])
            act = chooser(pos, legal, rng)
            pos.apply(act)
            oracle.play(to_referee_tuple(act.to_json()))
            assert pos.count() == oracle.history[oracle.snap()]
            assert (pos.result is None) == (oracle.result is None)
        assert oracle.result is not None
        winner, reason = pos.result
        if winner == DRAW:
            assert oracle.result == ("draw", reason)
        else:
            assert oracle.result == ("win", winner) and reason == "exits"
        reasons[reason] = reasons.get(reason, 0) + 1
    if chooser is shuffler:
        assert reasons.get("repetition", 0) >= 5
    if chooser is exiter:
        assert reasons.get("exits", 0) >= 5


def test_undo_restores_everything_along_random_walks() -> None:
    rng = Rng(99)
    for _ in range(30):
        pos = Position.start()
        snapshots = []
        while pos.result is None and pos.turn < 200:
            snapshots.append(_snapshot(pos))
            pos.apply(uniform(pos, pos.legal_actions(), rng))
            if rng.below(3) == 0:  # back up a few plies and diverge
                for _ in range(min(len(snapshots), 1 + rng.below(4))):
                    pos.undo()
                    assert _snapshot(pos) == snapshots.pop()
        while snapshots:
            pos.undo()
            assert _snapshot(pos) == snapshots.pop()


def test_undo_of_a_converting_jump_and_an_exit() -> None:
    pos = Position.from_cxn("4/gg3/1r4/2b4/6/5/4 g 0,0,0 1")
    before = _snapshot(pos)
    (jump,) = [a for a in pos.legal_actions() if str(a) == "JUMP 0,-2 -2,0"]
    pos.apply(jump)
    assert pos.to_cxn() == "4/g4/1g4/1gb4/6/5/4 b 0,0,0 2"
    assert pos.last_converted() == 0 and pos.num_pieces(0) == 0
    pos.undo()
    assert _snapshot(pos) == before
    pos = Position.from_cxn("4/5/5r/6b/5r/3g1/2bg r 2,0,0 0")
    before = _snapshot(pos)
    (exit_act,) = [a for a in pos.legal_actions() if a.kind == 0]
    pos.apply(exit_act)
    assert pos.to_cxn() == "4/5/6/6b/5r/3g1/2bg g 3,0,0 1" and pos.result is None
    pos.undo()
    assert _snapshot(pos) == before


def test_search_path_counts_towards_repetition() -> None:
    """A search that walks the C10 cycle three times sees the draw; undoing clears it."""
    pos = Position.start()
    cycle = ["MOVE -3,3 -2,3", "MOVE 0,-3 0,-2", "MOVE 3,0 2,0",
             "MOVE -2,3 -3,3", "MOVE 0,-2 0,-3", "MOVE 2,0 3,0"]
    for n in range(18):
        (act,) = [a for a in pos.legal_actions() if str(a) == cycle[n % 6]]
        pos.apply(act)
    assert pos.result == (DRAW, "repetition") and pos.count() == 4
    pos.undo()
    assert pos.result is None and pos.history[Position.start().key()] == 3
    for _ in range(17):
        pos.undo()
    assert pos.history == Position.start().history


def _game_states(seed: int, chooser: Chooser, limit: int = 768):
    """Plays one game through both the JSON contract and a Position, yielding both."""
    rng = Rng(seed)
    match = Match(GAME, 3, seed=seed)
    pos = Position.start()
    while True:
        yield match, pos
        if match.is_over or pos.turn >= limit:
            return
        act = chooser(pos, pos.legal_actions(), rng)
        seat = pos.to_move
        assert match.legal_actions(seat) == [a.to_json() for a in pos.legal_actions()]
        match.submit(seat, act.to_json())
        pos.apply(act)


@pytest.mark.parametrize(("seed", "chooser"), [(1, uniform), (2, shuffler), (3, exiter),
                                               (4, shuffler), (5, exiter)])
def test_json_contract_and_fast_core_agree(seed: int, chooser: Chooser) -> None:
    for match, pos in _game_states(seed, chooser):
        state = match.state
        if pos.turn % 5 and not match.is_over:
            continue  # the full comparison costs O(history); every 5th position suffices
        assert pos.to_state() == state
        assert json.loads(json.dumps(state)) == state
        back = Position.from_state(state)
        assert back.to_cxn() == pos.to_cxn() and back.result == pos.result
        # the state's history is the fast core's, less keys that can never occur again
        pieces = sum(b.bit_count() for b in pos.bb)
        assert back.history == {k: n for k, n in pos.history.items()
                                if key_pieces(k) == pieces}
        view = GAME.view(state, 0)
        assert view == GAME.view(state, None) == GAME.view(state, 2)
        if not match.is_over:
            from_view = Position.from_view(view)
            assert from_view.history == back.history and from_view.turn == pos.turn
            assert view["repetitions"] == pos.count()
    outcome = GAME.outcome(match.state)
    assert outcome is not None and pos.result is not None
    assert outcome.reason == pos.result[1]
    assert outcome.scores == tuple(pos.exits)


def test_history_is_pruned_at_exits_without_changing_results() -> None:
    """After an exit no earlier key can recur (pieces on the board only decrease)."""
    s = GAME.from_notation("4/5/5r/6b/5r/3g1/2bg r 0,0,0 0")
    after = GAME.apply(s, {0: {"type": "EXIT", "from": [3, -1]}}).state
    assert after["history"] == {"4/5/6/6b/5r/3g1/2bg g": 1}


def test_view_is_the_whole_public_position() -> None:
    s = GAME.from_notation("4/gg3/1r4/2b4/6/5/4 g 0,1,2 1")
    view = GAME.view(s, 1)
    assert view == {
        "cxn": "4/gg3/1r4/2b4/6/5/4 g 0,1,2 1",
        "pieces": {"red": [[-1, -1]], "green": [[-1, -2], [0, -2]], "blue": [[-1, 0]]},
        "exits": {"red": 0, "green": 1, "blue": 2},
        "turn": 1,
        "to_move": "green",
        "to_move_seat": 1,
        "repetitions": 1,
        "history": {"4/gg3/1r4/2b4/6/5/4 g": 1},
    }
    assert key_text(Position.from_view(view).key()) == "4/gg3/1r4/2b4/6/5/4 g"


def test_copy_is_independent() -> None:
    pos = Position.start()
    twin = pos.copy()
    twin.apply(twin.legal_actions()[0])
    assert pos.to_cxn() == START and pos.history == Position.start().history
    assert twin.turn == 1


def test_check_on_the_fast_core_names_the_rule() -> None:
    from engine.core import IllegalAction
    pos = Position.start()
    with pytest.raises(IllegalAction) as err:
        pos.check({"type": "PASS"})
    assert err.value.rule == "pass_not_allowed"
    assert pos.check({"type": "MOVE", "from": [-3, 0], "to": [-2, 0]}) is pos.legal_actions()[1]
