"""The Python bot runner in a game whose requests carry an action space (Boundary), on the
real server (127.0.0.1 port 0): the random bot plays whole matches from the request alone over
msgpack, and a bot whose plans are refused (or that crashes) is covered by the request's
default action."""

from __future__ import annotations

import asyncio
from typing import Any

from bots.random_bot import RandomBot
from clients.connection import ReconnectPolicy, connect
from clients.runner import BotRunner, plainest_value
from engine import spaces
from server.app import ArenaServer

FAST = ReconnectPolicy(initial_delay=0.02, max_delay=0.2, max_attempts=10)
REASONS = {"treasures", "elimination", "turn_limit"}


class Counting(RandomBot):
    """The random bot, noting each request it answers (and checking its own answers)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.request_ids: list[str] = []

    def choose(self, request: Any) -> Any:
        assert "legal_actions" not in request and request["default_action"]["moves"] == {}
        self.request_ids.append(request["request_id"])
        action = super().choose(request)
        assert spaces.contains(request["action_space"], action)
        return action


async def test_two_random_bot_runners_play_a_whole_boundary_match_over_msgpack(
        arena: ArenaServer) -> None:
    bots = [Counting(seed=i) for i in range(2)]
    runners = [BotRunner(bot, arena.ws_url, games=["boundary"], mode="seek", matches=1,
                         encoding="msgpack", reconnect=FAST,
                         token=await asyncio.to_thread(arena.store.create_account,
                                                       f"py-random-{i}", "bot"))
               for i, bot in enumerate(bots)]
    results = await asyncio.wait_for(asyncio.gather(*(r.run() for r in runners)), 120)
    await arena.flush_store()  # (the store writes a match's end in its next batch)
    (row,) = await asyncio.to_thread(arena.store.list_matches, game="boundary")
    assert row.status == "over" and row.outcome is not None
    assert row.outcome["reason"] in REASONS, row.outcome
    for stats, bot in zip(results, bots, strict=True):
        assert stats.matches_finished == 1
        assert stats.errors == 0 and stats.fallbacks == 0
        # One request per turn, each answered once, and nothing played for it by default.
        assert len(set(bot.request_ids)) == len(bot.request_ids) == stats.actions
        assert stats.results[0][2] == row.outcome
    assert results[0].actions == results[1].actions == row.moves // 2 > 0


class Clumsy:
    """Plans out of reach, then a stale turn, then crashes; every fourth turn a fine plan."""

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, request: dict[str, Any]) -> Any:
        self.calls += 1
        turn = request["action_space"]["fields"]["turn"]["value"]
        moves = request["action_space"]["fields"]["moves"]["entries"]
        piece, disc = next(iter(moves.items()))
        kind = self.calls % 4
        if kind == 1:
            x, y = disc["center"]
            far = [x + 500 if x < 400 else x - 500, y]
            return {"turn": turn, "moves": {piece: far}}
        if kind == 2:
            return {"turn": turn - 1, "moves": {}}
        if kind == 3:
            raise RuntimeError("the bot tripped")
        return {"turn": turn, "moves": {piece: disc["center"]}}


async def test_refused_plans_and_crashes_fall_back_to_the_default_action(
        arena: ArenaServer) -> None:
    bot = Clumsy()
    runner = BotRunner(bot, arena.ws_url, games=["boundary"], matches=1, reconnect=FAST,
                       token=await asyncio.to_thread(arena.store.create_account, "clumsy",
                                                     "bot"))
    task = asyncio.ensure_future(runner.run())
    try:
        async with await connect(arena.ws_url, name="ann", encoding="msgpack",
                                 reconnect=FAST) as conn:
            for _ in range(500):  # until the runner's autoplay offer is in
                if any(s.name == "clumsy" and s.free_autoplay_slots("boundary") > 0
                       for s in arena.sessions.all()):
                    break
                await asyncio.sleep(0.01)
            start = await conn.play_bot("boundary", bot="clumsy", options={"turn_limit": 12})
            opponent = RandomBot(seed=3)
            while True:
                message = await conn.next_message(timeout=30)
                if message["type"] == "request" and conn.session.is_pending(message):
                    await conn.act(message, opponent.choose(message))
                elif message["type"] == "match_end":
                    break
        stats = await asyncio.wait_for(task, 30)
    finally:
        runner.stop()
        await asyncio.gather(task, return_exceptions=True)
    assert message["match_id"] == start["match_id"]
    assert message["outcome"]["reason"] in REASONS
    assert stats.matches_finished == 1 and bot.calls >= 4
    # Refused: the far target (out_of_reach) and the old turn (stale_turn), each answered
    # again with the default plan; the crash is answered with it at once.
    kinds = [call % 4 for call in range(1, bot.calls + 1)]
    assert stats.errors == sum(kind in (1, 2) for kind in kinds)
    assert stats.fallbacks == sum(kind in (1, 2, 3) for kind in kinds)
    assert stats.actions == bot.calls + stats.errors
    await arena.flush_store()
    row = await asyncio.to_thread(arena.store.get_match, start["match_id"])
    assert row is not None and row.outcome == message["outcome"]
    seat = str(1 - start["your_seat"])
    plans = [entry[seat] for entry in row.log if seat in entry]
    assert len(plans) == bot.calls
    for kind, plan in zip(kinds, plans, strict=True):
        assert (plan["moves"] == {}) == (kind != 0), (kind, plan)


def test_the_plainest_value_of_a_space_is_in_it() -> None:
    space = spaces.record({"turn": spaces.const(4), "moves": spaces.subset(
        {"3": spaces.point([0, 799], 40, [0, 0], [799, 799])}),
        "pick": spaces.record({"at": spaces.point([5, 6], 0, [5, 6], [5, 6])})})
    assert plainest_value(space) == {"turn": 4, "moves": {}, "pick": {"at": [5, 6]}}
    assert spaces.contains(space, plainest_value(space))
