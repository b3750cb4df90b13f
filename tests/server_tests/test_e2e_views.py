"""Views from one source (hello.views), end to end on a real server with real clients.

A client that says ``"views": true`` in ``hello`` gets, in every ``events`` message, its view
after those events — the same view ``server.render.render_for`` builds for it — and replays
with each step's view; a client that did not ask gets none. The expected views are
re-derived here from the match's start state and action log (``runner.history`` says how
many log entries each events message followed), and a spectator's views are checked against
the hidden part of the state at that moment (both hands, the decks).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from engine import registry
from engine.core import State
from engine.match import actions_of
from server.app import ArenaServer
from server.render import render_for
from server.runner import MatchRunner
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient, play_random

PRIVATE_KEYS = {"hand", "known_tops", "opponent_known"}


def states_after_log(runner: MatchRunner) -> list[State]:
    """The state after each number of log entries (0 .. len(log))."""
    game = runner.game
    states = [runner.start_state]
    for entry in runner.log:
        states.append(game.apply_unchecked(states[-1], actions_of(entry)).state)
    return states


def hidden_cards(state: State) -> set[str]:
    """What no spectator may know of a Battle Line state: both hands and every deck card."""
    hidden = set(state["hands"][0]) | set(state["hands"][1])
    for deck in ("troop", "tactics"):
        hidden |= set(state["decks"][deck]) | {card for card, _ in state["tops"][deck]}
    return hidden


def assert_public(view: Any, state: State) -> None:
    """``view`` holds nothing of ``state``'s hidden part (hands, decks): no private key, and
    no hidden card as a JSON string anywhere in it."""
    text = json.dumps(view)
    assert not {key for key in PRIVATE_KEYS if f'"{key}":' in text}, text
    assert not {card for card in hidden_cards(state) if f'"{card}"' in text}, text


async def guest(server: ArenaServer, name: str, **hello: Any) -> WsClient:
    client = await WsClient.open(server.ws_url)
    welcome = await client.hello(name=name, **hello)
    assert welcome["type"] == "welcome", welcome
    return client


async def spectate(client: WsClient, match_id: str) -> int:
    """Watch ``match_id``; returns the ``seq`` its match_start already reflects."""
    ref = await client.send({"type": "spectate", "match_id": match_id})
    start = await client.expect_reply(ref)
    assert start["type"] == "match_start" and start["your_seat"] is None
    return int(start.get("seq", 0))


def events_of(client: WsClient, match_id: str) -> list[dict[str, Any]]:
    return [m for m in client.received if m["type"] == "events" and m["match_id"] == match_id]


async def test_views_ride_with_every_events_message_only_for_who_asked(
        server: ArenaServer) -> None:
    ann = await account_client(server, "ann", views=True)
    bob = await account_client(server, "bob")
    assert ann.welcome is not None and ann.welcome["views"] is True
    assert bob.welcome is not None and bob.welcome["views"] is False
    match_id = await challenge_match(ann, [bob], "battleline")
    watcher = await guest(server, "watcher", views=True)
    plain = await guest(server, "plain")
    joined = {watcher: await spectate(watcher, match_id), plain: await spectate(plain, match_id)}

    await asyncio.gather(play_random(ann, match_id, 1), play_random(bob, match_id, 2))
    for spectator in (watcher, plain):
        await spectator.expect("match_end", match_id=match_id)

    live = server.find_match(match_id)
    assert live is not None
    runner = live.runner
    game = registry.get("battleline")
    states = states_after_log(runner)
    # The last step's view is render_for's own, for each seat and for spectators.
    final = states[runner.history[-1].log_length]
    assert runner.state == final
    last = runner.history[-1]
    for viewer in (0, 1, None):
        rendered = render_for(runner, viewer, "events", events=last.events, seq=last.seq,
                              views=True)
        assert rendered["view"] == game.view(final, viewer)

    # Seat 0 asked: every events message it got carries its view after those events.
    seen = events_of(ann, match_id)
    assert [m["seq"] for m in seen] == [batch.seq for batch in runner.history]
    for message in seen:
        state = states[runner.history[message["seq"] - 1].log_length]
        assert message["view"] == game.view(state, 0), message["seq"]
    # Seat 1 did not: none of its events messages carries a view.
    assert len(events_of(bob, match_id)) == len(seen)
    assert not any("view" in m for m in events_of(bob, match_id))

    # The spectator who asked gets the public view, which never holds a hidden card.
    watched = events_of(watcher, match_id)
    assert [m["seq"] for m in watched] == list(range(joined[watcher] + 1, runner.seq + 1))
    assert len(watched) > 10
    for message in watched:
        state = states[runner.history[message["seq"] - 1].log_length]
        assert message["view"] == game.view(state, None)
        if state["outcome"] is None:
            assert_public(message["view"], state)
    # The spectator who did not ask gets the same events without views.
    unviewed = events_of(plain, match_id)
    assert [m["seq"] for m in unviewed] == list(range(joined[plain] + 1, runner.seq + 1))
    assert not any("view" in m for m in unviewed)
    assert [m["events"] for m in unviewed] == [m["events"] for m in watched[-len(unviewed):]]

    # The finished match's replay carries each step's views for the client that asked.
    ref = await ann.send({"type": "get_replay", "match_id": match_id})
    replay = await ann.expect_reply(ref)
    assert replay["start_view"] == game.view(states[0], None)
    assert replay["start_seat_views"] == [game.view(states[0], s) for s in (0, 1)]
    assert len(replay["steps"]) == len(runner.log)
    for n, step in enumerate(replay["steps"], start=1):
        assert step["view"] == game.view(states[n], None)
        assert step["seat_views"] == [game.view(states[n], s) for s in (0, 1)]
    ref = await bob.send({"type": "get_replay", "match_id": match_id})
    bare = await bob.expect_reply(ref)
    assert "start_view" not in bare and not any("view" in s for s in bare["steps"])
    assert [s["events"] for s in bare["steps"]] == [s["events"] for s in replay["steps"]]
    for client in (ann, bob, watcher, plain):
        await client.close()


async def test_stored_replays_carry_views_too(server: ArenaServer) -> None:
    ann = await account_client(server, "ann", views=True)
    bob = await account_client(server, "bob")
    match_id = await challenge_match(ann, [bob], "duel")
    await asyncio.gather(play_random(ann, match_id, 3), play_random(bob, match_id, 4))
    live = server.find_match(match_id)
    assert live is not None
    states = states_after_log(live.runner)
    await asyncio.to_thread(server.store.flush)
    server.recent.clear()   # the replay now comes from the SQLite file
    ref = await ann.send({"type": "get_replay", "match_id": match_id})
    replay = await ann.expect_reply(ref)
    game = registry.get("duel")
    assert replay["type"] == "replay" and replay["status"] == "over"
    assert [s["view"] for s in replay["steps"]] == [game.view(s, None) for s in states[1:]]
    assert [s["seat_views"] for s in replay["steps"]] == [
        [game.view(s, seat) for seat in (0, 1)] for s in states[1:]]
    await ann.close()
    await bob.close()


async def test_a_live_replay_carries_only_public_views(server: ArenaServer) -> None:
    ann = await account_client(server, "ann")
    bob = await account_client(server, "bob")
    match_id = await challenge_match(ann, [bob], "battleline")
    # A few steps in: the deal, then seat 0 acts once or twice.
    for _ in range(2):
        request = await ann.expect("request", match_id=match_id)
        await ann.send({"type": "action", "match_id": match_id,
                        "request_id": request["request_id"],
                        "action": request["legal_actions"][0]})
        await ann.expect("events", match_id=match_id)
    watcher = await guest(server, "watcher", views=True)
    ref = await watcher.send({"type": "get_replay", "match_id": match_id})
    replay = await watcher.expect_reply(ref)
    live = server.find_match(match_id)
    assert live is not None and replay["status"] == "live"
    runner = live.runner
    game = registry.get("battleline")
    states = states_after_log(runner)
    assert "log" not in replay and "start_seat_views" not in replay
    assert replay["start_view"] == game.view(states[0], None)
    assert len(replay["steps"]) == runner.seq >= 3
    for step, batch in zip(replay["steps"], runner.history, strict=True):
        assert "seat_views" not in step and "actions" not in step
        assert step["view"] == game.view(states[batch.log_length], None)
        assert_public(step["view"], runner.state)
    ref = await bob.send({"type": "get_replay", "match_id": match_id})
    assert not any("view" in s for s in (await bob.expect_reply(ref))["steps"])
    for client in (ann, bob, watcher):
        await client.close()


async def test_a_resumed_session_sets_views_anew(server: ArenaServer) -> None:
    ann = await account_client(server, "ann")
    bob = await account_client(server, "bob")
    match_id = await challenge_match(ann, [bob], "race")
    assert ann.welcome is not None
    session = ann.welcome["session"]
    await ann.close()
    again = await WsClient.open(server.ws_url)
    welcome = await again.hello(resume=session, views=True)
    assert welcome["views"] is True
    await again.expect("match_start", match_id=match_id)
    await asyncio.gather(play_random(again, match_id, 5), play_random(bob, match_id, 6))
    assert all("view" in m for m in events_of(again, match_id))
    assert not any("view" in m for m in events_of(bob, match_id))
    await again.close()
    await bob.close()
