"""The ladder across nodes: one node schedules and rates at a time (a Redis lock with a
fencing token), bots on the other nodes play its matches, and when the leader leaves another
node takes the lock, loads the books from PostgreSQL and goes on from the same ratings."""

from __future__ import annotations

import asyncio
from typing import Any

from clients.connection import Connection, connect
from server.app import ArenaServer


class LadderBot:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.ends: list[dict[str, Any]] = []
        self.task = asyncio.create_task(self.play())

    async def play(self) -> None:
        async for message in self.conn:
            if message["type"] == "request":
                await self.conn.act(message, message["legal_actions"][0])
            elif message["type"] == "match_end":
                self.ends.append(message)


async def leader_of(nodes: list[ArenaServer]) -> ArenaServer:
    for _ in range(100):
        leading = [n for n in nodes if n.cluster is not None and n.cluster.leading]
        if len(leading) == 1 and all(n.cluster is not None and
                                     n.cluster.leader == leading[0].cluster.node_id  # type: ignore[union-attr]
                                     for n in nodes):
            return leading[0]
        await asyncio.sleep(0.1)
    raise AssertionError("no single ladder leader that every node knows")


async def rated(conn: Connection, at_least: int) -> list[dict[str, Any]]:
    for _ in range(300):
        board = await conn.get_leaderboard("battleline")
        if sum(e["games"] for e in board) >= 2 * at_least:
            return board
        await asyncio.sleep(0.1)
    raise AssertionError(f"fewer than {at_least} ladder matches rated: {board}")


async def test_the_ladder_survives_its_leader(three_nodes: list[ArenaServer]) -> None:
    leader = await leader_of(three_nodes)
    others = [n for n in three_nodes if n is not leader]
    bots = []
    for node, name in zip(others, ("far-one", "far-two"), strict=True):
        token = await asyncio.to_thread(node.store.create_account, name, "bot")
        conn = await connect(node.ws_url, token)
        joined = await conn.ladder_join("battleline", name, "1", 1)
        assert joined["type"] == "ladder_joined" and joined["new"]
        bots.append(LadderBot(conn))
    watcher = await connect(others[0].ws_url, name="watcher")
    board = await rated(watcher, 3)
    assert {e["bot"] for e in board} == {"far-one", "far-two"}
    assert leader.ladder.rated_matches >= 3  # the leader rated them; nobody else did
    assert all(n.ladder.rated_matches == 0 for n in others)
    before = {e["bot"]: e["games"] for e in board}

    # The leader leaves: another node takes the lock, the books and the bots' joins.
    fence = leader.cluster.fence  # type: ignore[union-attr]
    await leader.close()
    new_leader = await leader_of(others)
    assert new_leader.cluster.fence > fence  # type: ignore[union-attr]
    board = await rated(watcher, sum(before.values()) // 2 + 2)
    after = {e["bot"]: e["games"] for e in board}
    assert all(after[bot] >= before[bot] + 2 for bot in before), (before, after)
    assert new_leader.ladder.rated_matches >= 2
    # Every match a bot finished was rated once: the store's results add up. The bots stop
    # first (a match they leave ends only after the grace period, past this test), and the
    # store is flushed, so that the board and the stored results are read at one moment.
    for bot in bots:
        bot.task.cancel()
        await bot.conn.close()
    finished = {e["match_id"] for bot in bots for e in bot.ends}
    await asyncio.to_thread(new_leader.store.flush)
    board = await watcher.get_leaderboard("battleline")
    rows = await asyncio.to_thread(new_leader.store.ladder().matches, game="battleline",
                                   limit=100)
    rated_ids = {r.match_id for r in rows if r.status == "rated"}
    assert finished <= rated_ids | {r.match_id for r in rows if r.status == "live"}
    assert sum(e["games"] for e in board) == 2 * len(rated_ids)
    await watcher.close()
