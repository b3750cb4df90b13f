"""Barca in the browser: whole games played by clicking against the Barca house bots, one of
them watched live from a spectator's page.

The moves are chosen in Python by the Barca agent itself (2 plies, the rule book's starting
weights, like the house bots of :mod:`tests.web.web_arena`), from the open request, and made
by clicking: a piece, then a highlighted square — with "Claim with my move" first when the
chosen move carries a claim. Both sides decide deterministically, so each game plays the
same way every run: White (the page) beats the greedy house bot on the watering holes; as
Black against the agent the page ends the game with a move that claims a threefold
repetition. At every turn the board must show exactly the request's view (pieces, holes,
scared/forced/trapped marks, hole counts, ply, side to move), offer exactly the animals and
squares of the legal actions, and put the viewer's side at the bottom.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from web_arena import BARCA_TEST_WEIGHTS, WebArena
from web_pages import TIMEOUT_MS, FrameLog, console_errors, open_app, shot, wait_until

from bots.barca.agents import BarcaBot

BOARD = """() => {
    const root = document.querySelector('.bc-root');
    if (!root) return null;
    const all = (sel) => [...root.querySelectorAll(sel)];
    const at = (sq) => {
        const r = root.querySelector(`.bc-square[data-square="${sq}"]`).getBoundingClientRect();
        return [r.x, r.y];
    };
    return {
        request: root.dataset.request || null,
        over: root.dataset.over || null,
        bottom: root.dataset.bottom,
        squares: all('.bc-square').length,
        holes: all('[data-hole]').map((e) => e.dataset.hole).sort(),
        pieces: all('.bc-piece').map((e) =>
            `${e.dataset.colour} ${e.dataset.piece} ${e.dataset.square}`).sort(),
        scared: all('.bc-piece[data-scared]').map((e) => e.dataset.square).sort(),
        status: Object.fromEntries(all('.bc-piece[data-status]')
            .map((e) => [e.dataset.square, e.dataset.status])),
        marks: Object.fromEntries(all('.bc-piece .bc-badge')
            .map((e) => [e.closest('.bc-piece').dataset.square, e.dataset.mark])),
        movable: all('.bc-piece.movable').map((e) => e.dataset.square).sort(),
        targets: all('.bc-square.is-target').map((e) => e.dataset.square).sort(),
        files: all('[data-file-label]').map((e) => e.dataset.fileLabel).join(''),
        ranks: all('[data-rank-label]').map((e) => e.dataset.rankLabel).join(','),
        a1: at('a1'),
        j10: at('j10'),
        ply: root.querySelector('[data-ply]').dataset.ply,
        toMove: root.querySelector('[data-to-move]').dataset.toMove,
        held: Object.fromEntries(all('[data-holes]')
            .map((e) => [e.dataset.holes, e.querySelector('.hole-count').textContent])),
        buttons: all('.bl-prompt [data-action]').map((e) => e.dataset.action).sort(),
    };
}"""

MAX_TURNS = 150  # the ply cap (300) ends any game within 150 moves of one side
Chooser = Callable[[dict[str, Any]], dict[str, Any]]


def agent() -> Chooser:
    """The page's player: the Barca agent at 2 plies on the pinned weights."""
    bot = BarcaBot(depth=2, weights=BARCA_TEST_WEIGHTS)
    return lambda request: dict(bot.choose(request))


def shown(view: dict[str, Any]) -> dict[str, Any]:
    """What the board must show for ``view``, in the shape of :data:`BOARD`."""
    status = view["status"]
    marked = set(view["scared"]) | {sq for sq, st in status.items() if st != "calm"}
    owned = {side: {sq for squares in types.values() for sq in squares}
             for side, types in view["pieces"].items()}
    return {
        "squares": 100,
        "holes": sorted(view["holes"]),
        "pieces": sorted(f"{side} {type_} {sq}" for side, types in view["pieces"].items()
                         for type_, squares in types.items() for sq in squares),
        "scared": sorted(view["scared"]),
        "status": dict(status),
        "marks": {sq: status[sq] if status.get(sq) in ("forced", "trapped") else "scared"
                  for sq in marked},
        "ply": str(view["ply"]),
        "toMove": view["to_move"] or "",
        "held": {side: f"{len(owned[side] & set(view['holes']))}/4" for side in owned},
    }


def board_shows(board: dict[str, Any], view: dict[str, Any]) -> bool:
    expected = shown(view)
    return all(board[key] == value for key, value in expected.items())


def assert_board_shows(board: dict[str, Any], view: dict[str, Any]) -> None:
    expected = shown(view)
    for key, value in expected.items():
        assert board[key] == value, (key, board[key], value)


def assert_orientation(board: dict[str, Any], bottom: str) -> None:
    """``bottom``'s first rank nearest the viewer: White sees a1 bottom left, Black top right."""
    assert board["bottom"] == bottom
    (a1x, a1y), (j10x, j10y) = board["a1"], board["j10"]
    if bottom == "white":
        assert board["files"] == "abcdefghij" and board["ranks"] == "10,9,8,7,6,5,4,3,2,1"
        assert a1y > j10y and a1x < j10x
    else:
        assert board["files"] == "jihgfedcba" and board["ranks"] == "1,2,3,4,5,6,7,8,9,10"
        assert a1y < j10y and a1x > j10x


def move_targets(legal: list[dict[str, Any]], frm: str, claim: bool) -> list[str]:
    return sorted(a["to"] for a in legal
                  if a["type"] == "move" and a["from"] == frm and bool(a.get("claim")) == claim)


def play_turn(page: Any, frames: FrameLog, match_id: str, choose: Chooser,
              artifacts: Path | None = None) -> dict[str, Any]:
    """Check the board against the open request, then make ``choose``'s action by clicking;
    returns the action (checked to be what the page sent). ``artifacts``: take a screenshot
    with the piece picked."""
    board = page.evaluate(BOARD)
    request = next(m for m in frames.received_of("request", match_id=match_id)
                   if m["request_id"] == board["request"])
    view, legal = request["view"], request["legal_actions"]
    assert_board_shows(board, view)
    moves = [a for a in legal if a["type"] == "move"]
    assert board["movable"] == sorted({a["from"] for a in moves if not a.get("claim")})
    assert board["targets"] == []
    expected_buttons = {"resign"}
    if any(a.get("claim") for a in moves):
        expected_buttons.add("claim-move")
    for kind in ("pass", "claim"):
        if {"type": kind} in legal:
            expected_buttons.add(kind)
    assert board["buttons"] == sorted(expected_buttons)

    action = choose(request)
    assert action in legal
    if action["type"] == "move":
        claim = bool(action.get("claim"))
        if claim:
            page.click(".bc-root [data-action='claim-move']")
            assert page.evaluate(BOARD)["movable"] == sorted({a["from"] for a in moves
                                                              if a.get("claim")})
        page.click(f'.bc-piece.movable[data-square="{action["from"]}"]')
        assert page.evaluate(BOARD)["targets"] == move_targets(legal, action["from"], claim)
        if artifacts is not None:
            shot(page, artifacts, "barca-piece-selected.png")
        before = len(frames.sent_of("action"))
        page.click(f'.bc-square.is-target[data-square="{action["to"]}"]')
    else:
        before = len(frames.sent_of("action"))
        page.click(f".bc-root [data-action='{action['type']}']")
    sent = wait_until(page, lambda: frames.sent_of("action")[before:], what="the action frame")
    assert sent[0]["action"] == action and sent[0]["request_id"] == request["request_id"]
    page.wait_for_function(
        "(id) => { const r = document.querySelector('.bc-root');"
        " return r.dataset.over || (r.dataset.request && r.dataset.request !== id); }",
        arg=request["request_id"], timeout=TIMEOUT_MS)
    return action


def start_against(page: Any, arena: WebArena, bot: str, seat: int) -> None:
    """From the lobby's Barca tab, play house bot ``bot`` in ``seat``."""
    deadline = time.monotonic() + 20
    while not arena.autoplay_offered("barca"):
        assert time.monotonic() < deadline, "no Barca house bot offered to play"
        time.sleep(0.05)
    open_app(page, arena.http_url)
    page.click(".game-tabs [data-game='barca']")
    options = page.eval_on_selector_all("#play-bot option", "els => els.map(e => e.value)")
    assert {"house-barca-1", "house-greedy-1", "house-random-1"} <= set(options), options
    page.select_option("#play-bot", bot)
    page.select_option("#play-seat", str(seat))
    page.select_option("#play-clock", label="30 min + 10 s")
    page.click("#play-go")
    page.wait_for_selector(f".bc-root[data-viewer='seat-{seat}']", timeout=TIMEOUT_MS)


def final_view(frames: FrameLog, match_id: str) -> dict[str, Any]:
    end = frames.received_of("match_end", match_id=match_id)[0]
    if end.get("view"):
        return dict(end["view"])
    return dict(frames.received_of("events", match_id=match_id)[-1]["view"])


def wait_for_turn(page: Any) -> bool:
    """Wait until the page may act or the game is over; ``True`` when over."""
    page.wait_for_selector(".bc-root[data-request], .bc-root[data-over]", timeout=TIMEOUT_MS)
    return bool(page.get_attribute(".bc-root", "data-over"))


@pytest.mark.timeout(300)
def test_a_whole_barca_game_by_clicking_against_the_greedy_house_bot(
        arena: WebArena, context: Any, artifacts: Path) -> None:
    page = context.new_page()
    errors = console_errors(page)
    frames = FrameLog(page)
    start_against(page, arena, "house-greedy-1", 0)
    start = frames.received_of("match_start")[-1]
    match_id = start["match_id"]
    assert start["game"] == "barca" and start["seats"][1]["name"] == "house-greedy-1"
    assert_orientation(page.evaluate(BOARD), "white")
    shot(page, artifacts, "barca-start.png")

    choose = agent()
    actions = []
    for turn in range(MAX_TURNS):
        if wait_for_turn(page):
            break
        actions.append(play_turn(page, frames, match_id, choose,
                                 artifacts if turn == 0 else None))
    else:
        raise AssertionError(f"no result after {MAX_TURNS} moves")

    page.wait_for_selector(".bc-root .banner", timeout=TIMEOUT_MS)
    end = frames.received_of("match_end", match_id=match_id)[0]
    assert end["outcome"] == {"ranks": [0, 1], "reason": "holes"}
    assert page.inner_text(".bc-root .banner").startswith("You win — three watering holes")
    board = page.evaluate(BOARD)
    view = final_view(frames, match_id)
    assert_board_shows(board, view)
    assert board["held"]["white"] in ("3/4", "4/4") and board["toMove"] == ""
    assert board["movable"] == [] and board["buttons"] == []
    assert page.inner_text(".bc-root .prompt-text") == "The game is over."
    # The scared animals of both sides were marked on the way (the view said so).
    scared_seen = [m for m in frames.received_of("request", match_id=match_id)
                   if m["view"]["scared"]]
    assert scared_seen and len(actions) == (view["ply"] + 1) // 2
    shot(page, artifacts, "barca-won.png")

    # The replay draws the same board, step by step, ending on the final position.
    page.goto(f"{arena.http_url}/#/replay/{match_id}")
    page.wait_for_selector(".bc-root[data-viewer='spectator']", timeout=TIMEOUT_MS)
    page.click("[data-action='last']")
    wait_until(page, lambda: board_shows(page.evaluate(BOARD), view),
               what="the replay's last step to show the final position")
    assert not errors, errors


@pytest.mark.timeout(300)
def test_barca_as_black_drawn_by_a_claim_while_a_spectator_watches(
        arena: WebArena, browser: Any, artifacts: Path) -> None:
    contexts = [browser.new_context(viewport={"width": 1400, "height": 960}) for _ in range(2)]
    try:
        page, watcher = (ctx.new_page() for ctx in contexts)
        errors = [console_errors(p) for p in (page, watcher)]
        frames = FrameLog(page)
        watched = FrameLog(watcher)
        start_against(page, arena, "house-barca-1", 1)
        match_id = frames.received_of("match_start")[-1]["match_id"]
        assert_orientation(page.evaluate(BOARD), "black")

        open_app(watcher, arena.http_url, f"#/m/{match_id}")
        watcher.wait_for_selector(".bc-root[data-viewer='spectator']", timeout=TIMEOUT_MS)
        assert watched.received_of("match_start", match_id=match_id)[0]["your_seat"] is None
        assert_orientation(watcher.evaluate(BOARD), "white")

        choose = agent()
        actions = []
        for _turn in range(MAX_TURNS):
            if wait_for_turn(page):
                break
            request_id = page.get_attribute(".bc-root", "data-request")
            view = next(m for m in frames.received_of("request", match_id=match_id)
                        if m["request_id"] == request_id)["view"]
            # The spectator's board follows the game: it shows this position too, and
            # offers nothing to click.
            wait_until(watcher, lambda v=view: board_shows(watcher.evaluate(BOARD), v),
                       what=f"the spectator's board at ply {view['ply']}")
            seen = watcher.evaluate(BOARD)
            assert seen["movable"] == [] and seen["buttons"] == []
            actions.append(play_turn(page, frames, match_id, choose))
        else:
            raise AssertionError(f"no result after {MAX_TURNS} moves")

        # The page ended the game: its last move carried the claim of a threefold repetition.
        assert actions[-1]["type"] == "move" and actions[-1].get("claim") is True
        end = frames.received_of("match_end", match_id=match_id)[0]
        assert end["outcome"] == {"ranks": [0, 0], "reason": "claim"}
        view = final_view(frames, match_id)
        for p in (page, watcher):
            p.wait_for_selector(".bc-root .banner", timeout=TIMEOUT_MS)
            assert p.inner_text(".bc-root .banner").startswith(
                "Draw — claimed on a threefold repetition")
            wait_until(p, lambda p=p: board_shows(p.evaluate(BOARD), view),
                       what="the final position")
        assert view["repetitions"] >= 3
        assert [m["type"] for m in watched.sent_of("action")] == []
        shot(page, artifacts, "barca-claimed-black.png")
        shot(watcher, artifacts, "barca-spectator.png")
        assert not errors[0] and not errors[1], errors
    finally:
        for ctx in contexts:
            ctx.close()


# A board of barca.js mounted on its own in the page, fed engine views as the server would.
MOUNT = """async ([seats, me]) => {
    const { Board } = await import('./games/barca.js');
    document.querySelector('#main').replaceChildren();
    const root = document.createElement('div');
    document.querySelector('#main').append(root);
    window.sentActions = [];
    window.barcaBoard = new Board(root, { seats, me,
                                          send: (action) => window.sentActions.push(action) });
}"""
FEED = """([view, legal]) => {
    const board = window.barcaBoard;
    board.start({ seats: board.seats, view, seq: 1, status: 'live', clocks_ms: null });
    if (legal) {
        board.onRequest({ request_id: `r${view.ply}`, seat: board.me, view,
                          legal_actions: legal, clock_ms: null });
    }
}"""


def engine_request(state: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from engine.barca import Barca
    game = Barca()
    seat = game.decision(state).seats[0]
    return game.view(state, seat), game.legal_actions(state, seat)


@pytest.mark.timeout(120)
def test_the_board_draws_rule_book_positions_trapped_forced_pass_and_claim(
        arena: WebArena, context: Any, artifacts: Path) -> None:
    """Positions a game between the bots seldom reaches, from the rule book's cases (B4: a
    trapped mouse that may still move; B5: a forced mouse freezes the trapped one; B12: only
    ``pass``; B15: a threefold repetition to claim), drawn from the engine's own views and
    legal actions by the same module the match pages use."""
    from engine.barca import Barca
    game = Barca()
    page = context.new_page()
    errors = console_errors(page)
    open_app(page, arena.http_url)
    page.evaluate(MOUNT, [[{"name": "ann"}, {"name": "bob"}], 0])

    for case, bpn, marks in (
            ("B4", "10/10/10/10/10/10/10/E9/1l8/M1L7 w 0", {"a1": "trapped", "b2": "scared"}),
            ("B5", "10/8l1/7M2/10/10/10/10/E9/1l8/M1L7 w 0",
             {"a1": "trapped", "b2": "scared", "h8": "forced"})):
        view, legal = engine_request(game.from_notation(bpn))
        page.evaluate(FEED, [view, legal])
        board = page.evaluate(BOARD)
        assert_board_shows(board, view)
        assert board["marks"] == marks, case
        assert board["movable"] == sorted({a["from"] for a in legal}), case
        shot(page, artifacts, f"barca-{case}.png")
    # B4's trapped mouse may move, into danger: both its squares are offered.
    view, legal = engine_request(game.from_notation("10/10/10/10/10/10/10/E9/1l8/M1L7 w 0"))
    page.evaluate(FEED, [view, legal])
    page.click('.bc-piece.movable[data-square="a1"]')
    assert page.evaluate(BOARD)["targets"] == ["a2", "b1"]
    page.click('.bc-square.is-target[data-square="b1"]')
    assert page.evaluate("() => window.sentActions") == [{"type": "move", "from": "a1",
                                                          "to": "b1"}]

    # B12: no move at all; the only action is the pass button.
    view, legal = engine_request(game.from_notation("10/10/10/10/10/10/10/10/e9/Me8 w 0"))
    assert legal == [{"type": "pass"}]
    page.evaluate(FEED, [view, legal])
    board = page.evaluate(BOARD)
    assert board["movable"] == [] and board["buttons"] == ["pass"]
    page.click(".bc-root [data-action='pass']")
    assert page.evaluate("() => window.sentActions")[-1] == {"type": "pass"}

    # B15: after d2-c3 d9-c8 c3-d2 c8-d9 twice, the start has occurred 3 times: White may
    # claim (bare), and a move back into a twice-seen position may carry the claim.
    state = game.initial_state(2, {})
    for text in ("d2-c3", "d9-c8", "c3-d2", "c8-d9") * 2:
        frm, to = text.split("-")
        state = game.apply_unchecked(state, {game.decision(state).seats[0]:
                                             {"type": "move", "from": frm, "to": to}}).state
    view, legal = engine_request(state)
    assert view["claim_available"] and legal[-1] == {"type": "claim"}
    page.evaluate(FEED, [view, legal])
    board = page.evaluate(BOARD)
    assert board["buttons"] == ["claim", "claim-move"]
    assert page.get_attribute("[data-repetitions]", "data-repetitions") == "3"
    page.click(".bc-root [data-action='claim-move']")
    claiming = sorted({a["from"] for a in legal if a.get("claim")})
    assert page.evaluate(BOARD)["movable"] == claiming == ["d2"]
    page.click('.bc-piece.movable[data-square="d2"]')
    assert page.evaluate(BOARD)["targets"] == ["c3"]
    shot(page, artifacts, "barca-claim-with-move.png")
    page.click(".bc-root [data-action='claim-move']")  # off again: the plain moves return
    assert page.evaluate(BOARD)["movable"] == sorted({a["from"] for a in legal
                                                      if a["type"] == "move"})
    page.click(".bc-root [data-action='claim']")
    assert page.evaluate("() => window.sentActions")[-1] == {"type": "claim"}
    assert not errors, errors
