"""Boundary in the browser: turns planned by dragging pieces against the adaptive house bot,
while a spectator's page follows, then the match's replay.

The page plays Blue from the lobby. Every turn its board must show exactly the request's
view (pieces with their blobs, treasures, scores, the territory picture) and one disc per own
piece, as the request's action space gives them. The turn is planned with the mouse: pieces
dragged inside their discs get exactly the pixel under the pointer, a piece dragged past its
disc stops on the rim, and "Submit plan" sends exactly the targets drawn. The house bot plans
at once, so its "plan in" flag shows first; then the resolution plays back tick by tick
(the tick counter runs up to the event's ``ticks``) and the pieces end where the next view
puts them. A refused plan shows its rule and leaves the request open.
"""

from __future__ import annotations

import math
import re
import time
from pathlib import Path
from typing import Any

import pytest
from web_arena import WebArena
from web_pages import TIMEOUT_MS, FrameLog, console_errors, open_app, shot, wait_until

BOARD = """() => {
    const root = document.querySelector('.bd-root');
    if (!root) return null;
    const all = (sel) => [...root.querySelectorAll(sel)];
    const num = (v) => (v === undefined ? null : Number(v));
    const byId = (a, b) => a.id - b.id;
    const territory = root.querySelector('.bd-territory');
    return {
        request: root.dataset.request || null,
        over: Boolean(root.dataset.over),
        phase: root.dataset.phase || null,
        turn: num(root.dataset.turn),
        animating: Boolean(root.dataset.animating),
        tick: num(root.dataset.tick),
        ticks: num(root.dataset.ticks),
        resolvedTurn: num(root.dataset.resolvedTurn),
        pieces: all('.bd-piece').map((e) => ({ id: +e.dataset.piece, team: +e.dataset.team,
            x: +e.dataset.x, y: +e.dataset.y, blob: +e.dataset.blob })).sort(byId),
        movable: all('.bd-piece.movable').map((e) => +e.dataset.piece).sort((a, b) => a - b),
        treasures: all('.bd-treasure').map((e) => ({ id: +e.dataset.treasure, x: +e.dataset.x,
            y: +e.dataset.y, value: +e.dataset.value })).sort(byId),
        treasuresLeft: num(root.querySelector('[data-treasures-left]')?.dataset.treasuresLeft),
        discs: Object.fromEntries(all('.bd-disc').map((e) =>
            [e.dataset.disc, [+e.dataset.x, +e.dataset.y, +e.dataset.r]])),
        targets: Object.fromEntries(all('.bd-plan').map((e) =>
            [e.dataset.target, [+e.dataset.x, +e.dataset.y]])),
        ready: all('.bd-player[data-ready]').map((e) => +e.dataset.seat),
        scores: all('[data-score]').map((e) => +e.textContent),
        territory: territory ? [+territory.dataset.blue, +territory.dataset.red,
                                +territory.dataset.neutral] : null,
        prompt: root.querySelector('.bd-prompt')?.dataset.state || null,
        error: root.querySelector('[data-error]')?.dataset.error || null,
        buttons: all('.bd-prompt [data-action]').map((e) => e.dataset.action).sort(),
    };
}"""

# Field pixel -> viewport point (where the mouse must go to be over that pixel).
TO_SCREEN = """([x, y]) => {
    const svg = document.querySelector('.bd-root .bd-field');
    const p = new DOMPoint(x + 0.5, y + 0.5).matrixTransform(svg.getScreenCTM());
    return [p.x, p.y];
}"""

# The territory picture's colour at some cells, read back from the image the page draws.
CELL_COLOURS = """async (cells) => {
    const href = document.querySelector('.bd-root .bd-territory').getAttribute('href');
    const image = new Image();
    image.src = href;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(image, 0, 0);
    return [[image.width, image.height],
            cells.map(([i, j]) => [...ctx.getImageData(i, j, 1, 1).data.slice(0, 3)])];
}"""

# Every value data-tick takes on the board's root, with the turn it belongs to.
RECORD_TICKS = """() => {
    const root = document.querySelector('.bd-root');
    window.bdTicks = [];
    new MutationObserver(() => window.bdTicks.push([Number(root.dataset.resolvedTurn),
                                                    Number(root.dataset.tick)]))
        .observe(root, { attributes: true, attributeFilter: ['data-tick'] });
}"""


def view_pieces(view: dict[str, Any]) -> list[dict[str, int]]:
    return sorted(({k: p[k] for k in ("id", "team", "x", "y", "blob")} for p in view["pieces"]),
                  key=lambda p: p["id"])


def territory_runs(text: str) -> list[tuple[str, int, int]]:
    """(letter, first cell, count) per run of the view's run-length territory."""
    runs, at = [], 0
    for letter, count in re.findall(r"([abn])(\d+)", text):
        runs.append((letter, at, int(count)))
        at += int(count)
    assert at == 400 * 400
    return runs


def colour_class(rgb: list[int]) -> str:
    r, g, b = rgb
    return "a" if b - r > 40 else "b" if r - g > 40 else "n"


def assert_board_shows(page: Any, view: dict[str, Any]) -> dict[str, Any]:
    board = page.evaluate(BOARD)
    assert board["pieces"] == view_pieces(view)
    assert board["treasures"] == sorted(view["treasures"], key=lambda t: t["id"])
    assert board["treasuresLeft"] == len(view["treasures"])
    assert board["scores"] == view["scores"] and board["turn"] == view["turn"]
    assert board["phase"] == view["phase"]
    runs = territory_runs(view["territory"])
    counts = {letter: sum(n for x, _, n in runs if x == letter) for letter in "abn"}
    assert board["territory"] == [counts["a"], counts["b"], counts["n"]]
    # The picture itself: the middle cell of the longest run of each colour there is.
    samples = {}
    for letter in "abn":
        mine = [r for r in runs if r[0] == letter]
        if mine:
            _, first, n = max(mine, key=lambda r: r[2])
            samples[letter] = ((first + n // 2) % 400, (first + n // 2) // 400)
    size, colours = page.evaluate(CELL_COLOURS, list(samples.values()))
    assert size == [400, 400]
    assert [colour_class(c) for c in colours] == list(samples), (samples, colours)
    return board


def start_against(page: Any, arena: WebArena, bot: str) -> None:
    """From the lobby's Boundary tab, play house bot ``bot`` as Blue, untimed."""
    deadline = time.monotonic() + 20
    while not arena.autoplay_offered("boundary"):
        assert time.monotonic() < deadline, "no Boundary house bot offered to play"
        time.sleep(0.05)
    open_app(page, arena.http_url)
    page.click(".game-tabs [data-game='boundary']")
    options = page.eval_on_selector_all("#play-bot option", "els => els.map(e => e.value)")
    assert {"house-adaptive-1", "house-greedy-1", "house-random-1"} <= set(options), options
    assert page.inner_text("#play-seat option[value='0']") == "Blue"  # nobody moves first
    page.select_option("#play-bot", bot)
    page.select_option("#play-seat", "0")
    page.select_option("#play-clock", label="untimed")
    page.click("#play-go")
    page.wait_for_selector(".bd-root[data-viewer='seat-0']", timeout=TIMEOUT_MS)


def wait_for_planning(page: Any) -> dict[str, Any]:
    page.wait_for_selector(".bd-root[data-request]:not([data-animating]) .bd-field.planning",
                           timeout=TIMEOUT_MS)
    return dict(page.evaluate(BOARD))


def open_request(frames: FrameLog, match_id: str, request_id: str) -> dict[str, Any]:
    return next(m for m in frames.received_of("request", match_id=match_id)
                if m["request_id"] == request_id)


def drag(page: Any, start: tuple[int, int], end: tuple[float, float]) -> None:
    """Press on field pixel ``start``, move to field point ``end`` in steps, release."""
    x0, y0 = page.evaluate(TO_SCREEN, list(start))
    x1, y1 = page.evaluate(TO_SCREEN, list(end))
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=6)
    page.mouse.up()


def toward(piece: dict[str, int], point: tuple[float, float], length: float
           ) -> tuple[float, float]:
    dx, dy = point[0] - piece["x"], point[1] - piece["y"]
    d = math.hypot(dx, dy) or 1.0
    return piece["x"] + dx / d * length, piece["y"] + dy / d * length


def draggable(view: dict[str, Any], ids: list[str]) -> list[dict[str, int]]:
    """Own pieces (ids of the action space) with no other piece within 24 px: the mouse
    press finds them and nothing else."""
    pieces = {str(p["id"]): p for p in view["pieces"]}
    return [pieces[i] for i in ids
            if all(q is pieces[i] or math.dist((q["x"], q["y"]), (pieces[i]["x"], pieces[i]["y"]))
                   > 24 for q in view["pieces"])]


def submit_and_resolve(page: Any, frames: FrameLog, match_id: str, request: dict[str, Any],
                       action_button: str = "submit") -> tuple[dict[str, Any], dict[str, Any]]:
    """Send the plan with ``action_button``; check the frame sent; wait for the resolution
    (the house bot's plan is in already, so it answers the plan: no separate acknowledgement)
    to play back. Returns the action and the resolution's message."""
    before = len(frames.sent_of("action"))
    page.evaluate(RECORD_TICKS)
    page.click(f".bd-root [data-action='{action_button}']")
    (sent,) = wait_until(page, lambda: frames.sent_of("action")[before:], what="the plan sent")
    assert sent["request_id"] == request["request_id"]
    action = sent["action"]
    turn = request["view"]["turn"]
    message = wait_until(page, lambda: next(
        (m for m in frames.received_of("events", match_id=match_id)
         if any(e["type"] == "resolution" and e["turn"] == turn for e in m["events"])), None),
        what=f"turn {turn}'s resolution")
    resolution = next(e for e in message["events"] if e["type"] == "resolution")
    assert resolution["plans"][0] == action["moves"]
    page.wait_for_function(
        "(t) => { const r = document.querySelector('.bd-root');"
        " return r.dataset.resolvedTurn === String(t) && !r.dataset.animating; }",
        arg=turn, timeout=TIMEOUT_MS)
    board = page.evaluate(BOARD)
    assert board["tick"] == board["ticks"] == resolution["ticks"]
    ticks = [tick for t, tick in page.evaluate("() => window.bdTicks") if t == turn]
    assert ticks == sorted(ticks) and ticks[-1] == resolution["ticks"], ticks
    if resolution["ticks"] >= 10:
        # Played back tick by tick, not in one jump: positions between the first and the
        # last were drawn (how many depends on the frames a busy machine gives the browser).
        assert len(set(ticks)) >= 3, ticks
    # The pieces end where the next view says (whatever the request sent later says too).
    wait_until(page, lambda: page.evaluate(BOARD)["pieces"] == view_pieces(message["view"]),
               what="the pieces at the new view's positions")
    return action, message


@pytest.mark.timeout(120)
def test_boundary_turns_planned_by_dragging_against_the_adaptive_house_bot(
        arena: WebArena, browser: Any, artifacts: Path) -> None:
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1100})
                for _ in range(2)]
    try:
        page, watcher = (ctx.new_page() for ctx in contexts)
        errors = [console_errors(p) for p in (page, watcher)]
        frames = FrameLog(page)
        watched = FrameLog(watcher)
        start_against(page, arena, "house-adaptive-1")
        start = frames.received_of("match_start")[-1]
        match_id = start["match_id"]
        assert start["game"] == "boundary" and start["seats"][1]["name"] == "house-adaptive-1"
        open_app(watcher, arena.http_url, f"#/m/{match_id}")
        watcher.wait_for_selector(".bd-root[data-viewer='spectator']", timeout=TIMEOUT_MS)

        # ---- turn 0: the board shows the request's view and discs ---------------------------
        board = wait_for_planning(page)
        request = open_request(frames, match_id, board["request"])
        view = request["view"]
        discs = request["action_space"]["fields"]["moves"]["entries"]
        board = assert_board_shows(page, view)
        assert len(board["pieces"]) == 14 and len(board["treasures"]) == 15
        assert board["discs"] == {i: [*d["center"], d["radius"]] for i, d in discs.items()}
        assert sorted(map(int, discs)) == board["movable"] == [p["id"] for p in view["pieces"]
                                                                if p["team"] == 0]
        assert board["buttons"] == ["clear", "resign", "stay", "submit"]
        assert board["prompt"] == "planning" and board["targets"] == {}
        # The house bot plans at once: its "plan in" flag shows, on both pages.
        page.wait_for_selector(".bd-player[data-seat='1'][data-ready]", timeout=TIMEOUT_MS)
        watcher.wait_for_selector(".bd-player[data-seat='1'][data-ready]", timeout=TIMEOUT_MS)
        assert {"type": "committed", "seat": 1} in [
            e for m in frames.received_of("events", match_id=match_id) for e in m["events"]]
        wait_until(watcher, lambda: watcher.evaluate(BOARD)["pieces"] == view_pieces(view),
                   what="the spectator's board")
        seen = watcher.evaluate(BOARD)
        assert seen["discs"] == {} and seen["movable"] == [] and seen["buttons"] == []

        # Two pieces dragged inside their discs get the pixel under the pointer.
        centre = (400.0, 400.0)
        first, second, third = draggable(view, sorted(discs, key=int))[:3]
        expected = {}
        for piece, length in ((first, 0.5), (second, 0.8)):
            r = discs[str(piece["id"])]["radius"]
            end = toward(piece, centre, r * length)
            drag(page, (piece["x"], piece["y"]), end)
            target = page.evaluate(BOARD)["targets"][str(piece["id"])]
            assert math.dist(target, end) <= 2.0, (target, end)
            assert (target[0] - piece["x"]) ** 2 + (target[1] - piece["y"]) ** 2 <= r * r
            expected[str(piece["id"])] = target
        # A piece dragged well past its disc stops on the rim, in the direction dragged.
        r = discs[str(third["id"])]["radius"]
        end = toward(third, centre, r * 2.5)
        drag(page, (third["x"], third["y"]), end)
        target = page.evaluate(BOARD)["targets"][str(third["id"])]
        offset = (target[0] - third["x"], target[1] - third["y"])
        assert r - 1.5 <= math.hypot(*offset) and offset[0] ** 2 + offset[1] ** 2 <= r * r
        wanted = (end[0] - third["x"], end[1] - third["y"])
        cosine = (offset[0] * wanted[0] + offset[1] * wanted[1]) / (
            math.hypot(*offset) * math.hypot(*wanted))
        assert cosine > 0.995, (offset, wanted)
        expected[str(third["id"])] = target
        board = page.evaluate(BOARD)
        assert board["targets"] == expected
        # The pieces themselves stay put until the turn resolves.
        assert board["pieces"] == view_pieces(view)
        shot(page, artifacts, "boundary-planned.png")

        action, message = submit_and_resolve(page, frames, match_id, request)
        assert action == {"turn": 0, "moves": {i: expected[i] for i in sorted(expected, key=int)}}
        for i, target in expected.items():   # where the plan sent them, unless captured
            moved = [p for p in message["view"]["pieces"] if str(p["id"]) == i]
            assert not moved or [moved[0]["x"], moved[0]["y"]] == target
        assert 0 not in page.evaluate(BOARD)["ready"]   # a new turn: Blue is not in yet
        # The spectator learnt of Red's plan only as a flag (a `committed` event, or, when it
        # opened the page after the bot had planned, the ready flag of the state it was
        # sent, checked above), then saw the same resolution.
        committed = [e for m in watched.received_of("events", match_id=match_id)
                     for e in m["events"] if e["type"] == "committed"]
        assert all(set(e) == {"type", "seat"} for e in committed), committed  # no plan
        wait_until(watcher, lambda: watcher.evaluate(BOARD)["pieces"]
                   == view_pieces(message["view"]), what="the spectator's board after turn 0")

        # ---- turn 1: a refused plan, then one piece towards the nearest treasure -----------
        board = wait_for_planning(page)
        request = open_request(frames, match_id, board["request"])
        view = request["view"]
        assert_board_shows(page, view)
        discs = request["action_space"]["fields"]["moves"]["entries"]
        some = next(iter(discs))
        far = [discs[some]["center"][0], 799 if discs[some]["center"][1] < 400 else 0]
        page.evaluate("([m, id, moves]) => window.arenaApp.matches.get(m).board.submitPlan(moves)",
                      [match_id, some, {some: far}])
        page.wait_for_selector(".bd-root [data-error]", timeout=TIMEOUT_MS)
        board = page.evaluate(BOARD)
        assert board["error"] == "out_of_reach" and board["request"] == request["request_id"]
        assert board["targets"] == {some: far}   # kept, to mend
        page.click(".bd-root [data-action='clear']")
        assert page.evaluate(BOARD)["targets"] == {}
        piece = draggable(view, sorted(discs, key=int))[0]
        gem = min((t for t in view["treasures"] if (t["x"], t["y"]) != (piece["x"], piece["y"])),
                  key=lambda t: math.dist((t["x"], t["y"]), (piece["x"], piece["y"])))
        drag(page, (piece["x"], piece["y"]), (gem["x"], gem["y"]))
        planned = page.evaluate(BOARD)["targets"]
        assert list(planned) == [str(piece["id"])]
        action, message = submit_and_resolve(page, frames, match_id, request)
        assert action == {"turn": 1, "moves": planned}

        # ---- turn 2: everything stays --------------------------------------------------------
        board = wait_for_planning(page)
        request = open_request(frames, match_id, board["request"])
        assert_board_shows(page, request["view"])
        action, message = submit_and_resolve(page, frames, match_id, request, "stay")
        assert action == {"turn": 2, "moves": {}}
        shot(page, artifacts, "boundary-resolved.png")
        shot(watcher, artifacts, "boundary-spectator.png")

        # ---- resign; the replay draws the same positions -------------------------------------
        wait_for_planning(page)
        page.click(".bd-root [data-action='resign']")
        page.click(".bd-root [data-action='resign']")
        page.wait_for_selector(".bd-root .banner", timeout=TIMEOUT_MS)
        end = frames.received_of("match_end", match_id=match_id)[0]
        assert end["outcome"]["reason"] == "resignation"
        assert page.inner_text(".bd-root .banner").startswith("You lose — resignation")
        final = end["view"]
        assert page.evaluate(BOARD)["pieces"] == view_pieces(final)

        page.goto(f"{arena.http_url}/#/replay/{match_id}")
        page.wait_for_selector(".bd-root[data-viewer='spectator']", timeout=TIMEOUT_MS)
        page.click("[data-action='last']")
        wait_until(page, lambda: page.evaluate(BOARD)["pieces"] == view_pieces(final),
                   what="the replay's last step")
        assert_board_shows(page, final)
        # Stepping forward over a turn plays it back, then shows the step's view.
        page.click("[data-action='first']")  # the first position after the layout's draw
        assert page.evaluate(BOARD)["phase"] == "planning"
        page.click("[data-action='prev']")   # before it
        assert page.evaluate(BOARD)["phase"] == "setup"
        page.click("[data-action='next']")   # the layout: turn 0's planning
        assert page.evaluate(BOARD)["phase"] == "planning"
        page.click("[data-action='next']")   # turn 0 resolved
        page.wait_for_function(
            "() => { const r = document.querySelector('.bd-root');"
            " return r.dataset.resolvedTurn === '0' && !r.dataset.animating; }",
            timeout=TIMEOUT_MS)
        assert page.evaluate(BOARD)["turn"] == 1
        shot(page, artifacts, "boundary-replay.png")
        assert not errors[0] and not errors[1], errors
    finally:
        for ctx in contexts:
            ctx.close()


# A board of boundary.js mounted on its own in the page, fed engine views as the server would.
MOUNT = """async ([seats, me]) => {
    const { Board } = await import('./games/boundary.js');
    document.querySelector('#main').replaceChildren();
    const root = document.createElement('div');
    document.querySelector('#main').append(root);
    window.sentActions = [];
    window.bdBoard = new Board(root, { seats, me,
                                       send: (action) => window.sentActions.push(action) });
}"""
SEATS = [{"seat": 0, "name": "ann", "kind": "human"}, {"seat": 1, "name": "bob", "kind": "bot"}]


def engine_turn(layout: int) -> tuple[Any, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The engine after ``layout``'s setup: the state, Blue's start message and request."""
    from engine.boundary import GAME
    from engine.core import CHANCE
    state = GAME.apply(GAME.initial_state(2, GAME.normalize_options({})),
                       {CHANCE: layout}).state
    view = GAME.view(state, 0)
    start = {"type": "match_start", "seats": SEATS, "your_seat": 0, "view": view, "seq": 1,
             "status": "live", "clocks_ms": None, "committed": []}
    request = {"type": "request", "request_id": "r0", "seat": 0, "view": view,
               "action_space": GAME.action_space(state, 0),
               "default_action": GAME.default_action(state, 0), "clock_ms": None}
    return state, view, start, request


def resolve(state: Any, blue: dict[str, Any], red: dict[str, Any]
            ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The view after both plans, and the turn's events as a seat receives them."""
    from engine.boundary import GAME
    transition = GAME.apply(state, {0: blue, 1: red})
    return GAME.view(transition.state, 0), [e.render(0) for e in transition.events]


@pytest.mark.timeout(120)
def test_the_board_acknowledges_resumes_and_plays_a_missed_deadline(
        arena: WebArena, context: Any, artifacts: Path) -> None:
    """What a match against an instant bot never shows: a plan acknowledged while the
    opponent is still thinking, the same after a reload (match_start's ``committed`` and
    ``commitment``), and a deadline that played the empty plan while the page was planning."""
    page = context.new_page()
    errors = console_errors(page)
    open_app(page, arena.http_url)
    state, view, start, request = engine_turn(layout=1234)
    red = {"turn": 0, "moves": {str(p["id"]): [p["x"], p["y"] + 20 if p["y"] < 400 else p["y"] - 20]
                                for p in view["pieces"] if p["team"] == 1}}

    page.evaluate(MOUNT, [SEATS, 0])
    page.evaluate("([start, request]) => { window.bdBoard.start(start);"
                  " window.bdBoard.onRequest(request); }", [start, request])
    board = wait_for_planning(page)
    assert_board_shows(page, view)
    piece = draggable(view, sorted(request["action_space"]["fields"]["moves"]["entries"],
                                   key=int))[0]
    drag(page, (piece["x"], piece["y"]), toward(piece, (400, 400), 30))
    page.click(".bd-root [data-action='submit']")
    (action,) = page.evaluate("() => window.sentActions")
    assert list(action["moves"]) == [str(piece["id"])] and action["turn"] == 0
    assert page.evaluate(BOARD)["prompt"] == "sending"
    # The acknowledgement: the plan stays drawn, Blue is in, Red is not yet.
    ack = {"type": "events", "seq": 2, "view": view,
           "events": [{"type": "committed", "seat": 0, "action": action}]}
    page.evaluate("(msg) => window.bdBoard.onEvents(msg)", ack)
    board = page.evaluate(BOARD)
    assert board["prompt"] == "sent" and board["ready"] == [0] and board["request"] is None
    assert board["targets"] == action["moves"] and board["discs"] == {}
    assert page.inner_text(".bd-root .prompt-text") == "Plan sent, waiting for the opponent…"
    shot(page, artifacts, "boundary-plan-sent.png")

    # A reload: a new board from match_start alone shows the same.
    page.evaluate(MOUNT, [SEATS, 0])
    page.evaluate("(start) => window.bdBoard.start(start)",
                  {**start, "seq": 2, "committed": [0], "commitment": action})
    board = page.evaluate(BOARD)
    assert board["prompt"] == "sent" and board["ready"] == [0]
    assert board["targets"] == action["moves"]
    # Red's plan comes in: the turn plays back and ends on the engine's next view.
    after, events = resolve(state, action, red)
    page.evaluate("(msg) => window.bdBoard.onEvents(msg)",
                  {"type": "events", "seq": 3, "view": after, "events": events})
    page.wait_for_function("() => { const r = document.querySelector('.bd-root');"
                           " return r.dataset.resolvedTurn === '0' && !r.dataset.animating; }",
                           timeout=TIMEOUT_MS)
    board = assert_board_shows(page, after)
    assert board["ready"] == [] and board["targets"] == {} and board["prompt"] == "waiting"

    # A missed deadline: the page was planning; the empty plan was played for it.
    page.evaluate(MOUNT, [SEATS, 0])
    page.evaluate("([start, request]) => { window.bdBoard.start(start);"
                  " window.bdBoard.onRequest(request); }", [start, request])
    wait_for_planning(page)
    after, events = resolve(state, {"turn": 0, "moves": {}}, red)
    timeout = {"type": "timeout", "seats": [0], "default": True, "action": {"turn": 0, "moves": {}}}
    page.evaluate("(msg) => window.bdBoard.onEvents(msg)",
                  {"type": "events", "seq": 2, "view": after, "events": [timeout, *events]})
    page.wait_for_function("() => { const r = document.querySelector('.bd-root');"
                           " return r.dataset.resolvedTurn === '0' && !r.dataset.animating; }",
                           timeout=TIMEOUT_MS)
    board = assert_board_shows(page, after)
    assert board["request"] is None and board["prompt"] == "waiting" and board["discs"] == {}
    assert "You (Blue) missed the deadline" in page.inner_text(".bd-root .log")
    assert not errors, errors
