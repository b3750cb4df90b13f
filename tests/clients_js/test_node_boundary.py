"""A generic Node.js bot plays Boundary from the request alone: the kit's example random bot
(clients/js/examples/random-bot.js, a child process configured only by ``ARENA_*`` variables,
as a third-party bot is) answers every request from its ``action_space`` over JSON, in whole
matches on a real server against Greedy Treasure, a Python bot in the Python bot runner."""

from __future__ import annotations

import asyncio

from bots import registry as bots
from clients.connection import ReconnectPolicy
from clients.runner import BotRunner
from server.app import ArenaServer
from tests.clients_js.node_kit import ensure_node_kit, node
from tests.clients_js.test_node_bots import run_process, wait_offered

FAST = ReconnectPolicy(initial_delay=0.02, max_delay=0.2, max_attempts=10)
REASONS = {"treasures", "elimination", "turn_limit"}


async def test_the_node_random_bot_plays_whole_boundary_matches_against_greedy_treasure(
        arena: ArenaServer) -> None:
    kit = await asyncio.to_thread(ensure_node_kit)
    tokens = {name: await asyncio.to_thread(arena.store.create_account, name, "bot")
              for name in ("greedy-treasure", "node-random-0", "node-random-1")}
    house = BotRunner(bots.create("greedy-treasure", seed=1), arena.ws_url,
                      games=["boundary"], token=tokens["greedy-treasure"], max_matches=2,
                      reconnect=FAST)
    house_task = asyncio.ensure_future(house.run())
    try:
        await wait_offered(arena, "greedy-treasure", "boundary")
        env = {"ARENA_SERVER": arena.ws_url, "ARENA_GAME": "boundary",
               "ARENA_OPPONENT": "greedy-treasure", "ARENA_MATCHES": "1"}
        results = await asyncio.gather(*(
            run_process([node(), str(kit / "examples" / "random-bot.js")],
                        {**env, "ARENA_TOKEN": tokens[f"node-random-{seat}"],
                         "ARENA_SEAT": str(seat), "ARENA_SEED": str(seat + 1)})
            for seat in (0, 1)))
    finally:
        house.stop()
        house_stats = await asyncio.wait_for(house_task, 30)

    node_actions = 0
    for seat, (rc, out, err) in enumerate(results):
        assert rc == 0, err
        assert err == "", "the Node bot reported errors (a refused answer, a fallback):\n" + err
        assert f"started: boundary, seat {seat} against greedy-treasure" in out, out
        assert "done: 1 match(es)" in out and ", 0 errors" in out, out
        node_actions += int(out.split("done: 1 match(es), ", 1)[1].split(" actions")[0])

    # Greedy Treasure answered every request itself, with no error from the server.
    assert house_stats.matches_finished == 2
    assert house_stats.errors == 0 and house_stats.fallbacks == 0

    rows = await asyncio.to_thread(arena.store.list_matches, game="boundary")
    assert sorted(next(s["name"] for s in row.seats if s["name"] != "greedy-treasure")
                  for row in rows) == ["node-random-0", "node-random-1"]
    for row in rows:
        assert row.status == "over", row.id
        assert row.outcome is not None and row.outcome["reason"] in REASONS, row.outcome
    # Untimed matches: every plan in the logs was sent by a bot (none played by default),
    # one per seat per turn, and the Node bots sent exactly theirs.
    turns = [row.moves // 2 for row in rows]
    assert all(t > 0 for t in turns)
    assert node_actions == house_stats.actions == sum(turns)
    # The sampled plans were accepted as sent: most move some pieces, within reach.
    node_plans = [entry[str(seat["seat"])] for row in rows for seat in row.seats
                  if seat["name"] != "greedy-treasure" for entry in row.log
                  if str(seat["seat"]) in entry]
    assert len(node_plans) == node_actions
    assert sum(1 for plan in node_plans if plan["moves"]) > node_actions // 2
