"""clients.connection against the in-test fake server: handshake, correlation, stream,
msgpack negotiation, and reconnect with resume."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from arena_fake import LEGAL, FakeArena

from clients.connection import (
    NO_RECONNECT,
    ArenaError,
    ConnectionLost,
    ReconnectPolicy,
    connect,
)
from protocol.errors import ErrorCode, ProtocolError

FAST = ReconnectPolicy(initial_delay=0.01, max_delay=0.05, max_attempts=5)


async def next_of(conn: Any, kind: str, timeout: float = 5.0) -> dict[str, Any]:
    while True:
        message = await conn.next_message(timeout)
        if message["type"] == kind:
            return message


async def test_handshake_and_lobby_helpers() -> None:
    async with FakeArena() as arena:
        async with await connect(arena.url, name="zoe", reconnect=NO_RECONNECT) as conn:
            assert conn.welcome is not None and conn.welcome["encoding"] == "json"
            assert conn.account == {"name": "zoe", "kind": "guest"}
            games = await conn.list_games()
            assert [g["name"] for g in games] == ["count"]
            assert (await conn.ping())["type"] == "pong"
        hello = arena.received[0]
        assert hello["type"] == "hello" and hello["protocol"] == 1 and hello["name"] == "zoe"
        assert arena.subprotocols == ["arena.v1.json"]
        assert set(arena.frame_kinds) == {"text"}


async def test_msgpack_is_negotiated_and_used_both_ways() -> None:
    async with FakeArena() as arena:
        async with await connect(arena.url, token="t", encoding="msgpack",
                                 reconnect=NO_RECONNECT) as conn:
            assert conn.welcome is not None and conn.welcome["encoding"] == "msgpack"
            assert conn.account == {"name": "guest-2", "kind": "bot"}
            assert (await conn.list_games())[0]["title"] == "Count"
        assert arena.subprotocols == ["arena.v1.msgpack"]
        assert set(arena.frame_kinds) == {"binary"}


async def test_error_replies_raise_arena_error_with_the_code() -> None:
    async with FakeArena() as arena:
        async with await connect(arena.url, reconnect=NO_RECONNECT) as conn:
            with pytest.raises(ArenaError) as err:
                await conn.play_bot("no-such-game")
            assert err.value.code == "not_found"
            with pytest.raises(ArenaError) as err:
                await conn.get_replay("m-unknown")
            assert err.value.code == "not_found"


async def test_play_a_match_through_the_stream() -> None:
    async with FakeArena(turns=3) as arena:
        async with await connect(arena.url, reconnect=NO_RECONNECT) as conn:
            start = await conn.play_bot("count", bot="two-bot")
            assert start["type"] == "match_start" and start["your_seat"] == 0
            seqs = []
            async for message in conn:
                if message["type"] == "request":
                    assert message["legal_actions"] == LEGAL
                    sent = await conn.act(message, {"n": 3})
                    assert sent["request_id"] == message["request_id"]
                elif message["type"] == "events":
                    seqs.append(message["seq"])
                elif message["type"] == "match_end":
                    assert message["outcome"]["ranks"] == [0, 1]
                    break
            assert seqs == [1, 2, 3]
            assert conn.session.pending == {} and conn.session.answered == {}


async def test_play_bot_reply_without_ref_is_still_matched() -> None:
    async with FakeArena(echo_ref_on_match_start=False) as arena:
        async with await connect(arena.url, reconnect=NO_RECONNECT) as conn:
            start = await conn.play_bot("count")
            assert start["type"] == "match_start" and "ref" not in start


async def test_answering_a_stale_request_is_refused_locally_and_by_the_server() -> None:
    async with FakeArena(turns=2) as arena:
        async with await connect(arena.url, reconnect=NO_RECONNECT) as conn:
            await conn.play_bot("count")
            first = await next_of(conn, "request")
            await conn.act(first, {"n": 1})
            with pytest.raises(ProtocolError) as err:
                await conn.act(first, {"n": 1})  # already answered: never sent
            assert err.value.code is ErrorCode.STALE_REQUEST
            await next_of(conn, "request")
            # Bypassing the bookkeeping, the server still refuses the old request_id.
            await conn.send({"type": "action", "match_id": first["match_id"],
                             "request_id": first["request_id"], "action": {"n": 1}})
            error = await next_of(conn, "error")
            assert error["code"] == "stale_request"


async def test_illegal_answer_makes_the_request_pending_again() -> None:
    async with FakeArena(turns=1) as arena:
        async with await connect(arena.url, reconnect=NO_RECONNECT) as conn:
            await conn.play_bot("count")
            request = await next_of(conn, "request")
            await conn.act(request, {"n": 9})
            error = await next_of(conn, "error")
            assert error["code"] == "illegal_action" and error["details"]["rule"]
            assert conn.session.is_pending(request)
            await conn.act(request, {"n": 2})
            end = await next_of(conn, "match_end")
            assert end["outcome"]["ranks"] == [0, 0]


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
async def test_forced_disconnect_resumes_and_gets_the_pending_request_again(
        encoding: Any) -> None:
    async with FakeArena(turns=2, drop_after_actions={1}) as arena:
        async with await connect(arena.url, encoding=encoding, reconnect=FAST) as conn:
            first_session = conn.welcome["session"] if conn.welcome else None
            await conn.play_bot("count")
            request = await next_of(conn, "request")
            await conn.act(request, {"n": 3})          # the server drops this one
            welcome = await next_of(conn, "welcome")   # ... and we are back
            assert welcome["session"] == first_session
            restart = await next_of(conn, "match_start")
            assert restart["match_id"] == request["match_id"]
            again = await next_of(conn, "request")
            assert again["request_id"] == request["request_id"]
            assert conn.session.is_pending(again)
            await conn.act(again, {"n": 3})
            nxt = await next_of(conn, "request")
            await conn.act(nxt, {"n": 3})
            end = await next_of(conn, "match_end")
            assert end["outcome"]["ranks"] == [0, 1]
            assert conn.reconnects == 1
        resumes = [m for m in arena.received if m["type"] == "hello" and "resume" in m]
        assert len(resumes) == 1 and resumes[0]["resume"] == first_session
        assert arena.subprotocols == [f"arena.v1.{encoding}"] * 2


async def test_a_refused_resume_starts_a_new_session() -> None:
    async with FakeArena(drop_after_actions={1}) as arena:
        async with await connect(arena.url, reconnect=FAST) as conn:
            old = conn.welcome["session"] if conn.welcome else None
            await conn.play_bot("count")
            request = await next_of(conn, "request")
            arena.sessions.clear()  # the server forgot us
            await conn.act(request, {"n": 1})
            welcome = await next_of(conn, "welcome")
            assert welcome["session"] != old
            assert conn.session.pending == {}


async def test_replies_awaited_across_a_drop_fail_and_the_stream_ends_without_reconnect(
        ) -> None:
    async with FakeArena(drop_after_actions={1}) as arena:
        conn = await connect(arena.url, reconnect=NO_RECONNECT)
        await conn.play_bot("count")
        request = await next_of(conn, "request")
        await conn.act(request, {"n": 1})
        rest = [m async for m in conn]  # ends when the server closes the socket
        assert all(m["type"] != "request" for m in rest)
        assert conn.closed
        with pytest.raises(ConnectionLost):
            await conn.list_games()
        await conn.close()


async def test_reconnect_gives_up_after_bounded_attempts() -> None:
    arena = FakeArena(drop_after_actions={1})
    async with arena:
        conn = await connect(arena.url, reconnect=ReconnectPolicy(
            initial_delay=0.01, max_delay=0.02, max_attempts=3))
        await conn.play_bot("count")
        request = await next_of(conn, "request")
    # the server is gone: the drop cannot be repaired
    with pytest.raises((ConnectionLost, ProtocolError)):
        await conn.act(request, {"n": 1})
    assert conn._reader is not None  # noqa: SLF001
    await asyncio.wait_for(conn._reader, 5)  # noqa: SLF001 - the reader ends by itself
    assert conn.closed
    await conn.close()
