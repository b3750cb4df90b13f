"""What the cluster tests share: pairing two clients by seeks, and playing a match out."""

from __future__ import annotations

import contextlib
from typing import Any

from clients.connection import Connection, ConnectionLost
from protocol import ProtocolError


async def seek_pair(first: Connection, second: Connection, game: str = "battleline") -> str:
    """``first`` then ``second`` seek ``game``; the id of the match they are paired in (read
    off ``first``'s stream: its ``match_start``)."""
    await first.seek(game)
    await second.seek(game)
    start = await first.next_message(timeout=10)
    while start["type"] != "match_start":
        start = await first.next_message(timeout=10)
    return str(start["match_id"])


async def play_out(conn: Connection, match_id: str | None = None) -> dict[str, Any]:
    """Answer every request (of ``match_id``, if named) with the first legal action until
    that match ends; its ``match_end``. A request that a resync replaced meanwhile is no
    longer pending: its answer is skipped."""
    async for message in conn:
        if match_id is not None and message.get("match_id") not in (None, match_id):
            continue
        if message["type"] == "request":
            with contextlib.suppress(ProtocolError, ConnectionLost):
                await conn.act(message, message["legal_actions"][0])
        elif message["type"] == "match_end":
            return dict(message)
    raise AssertionError("the stream ended before the match did")
