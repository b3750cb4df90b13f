"""The promise that any language can compete, end to end: the Node.js example bots
(clients/js, JSON) and the Python random bot (``arena bot random``, msgpack) play whole Battle
Line matches against Deep Barca on a real server. Every bot is a separate client on its own
socket: Deep Barca runs in the Python bot runner (the house bot offering autoplay, and a
second session seeking), the others are child processes configured the way a third-party
bot is: by ``ARENA_*`` variables or command-line flags."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from bots import registry as bots
from clients.connection import ReconnectPolicy
from clients.runner import BotRunner
from server.app import ArenaServer
from tests.clients_js.node_kit import ARENA, ensure_node_kit, node

FAST = ReconnectPolicy(initial_delay=0.02, max_delay=0.2, max_attempts=10)
REASONS = {"five_flags", "breakthrough", "stalemate"}
NODE_MATCHES = 1


def deep_barca() -> Any:
    """Deep Barca from the bot registry: the real agent, never a stand-in."""
    return bots.create("deep-barca", seed=1)


async def run_process(argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        *argv, env={"PATH": os.environ.get("PATH", ""), **env},
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), 120)
    except TimeoutError:
        process.kill()
        raise
    assert process.returncode is not None
    return process.returncode, stdout.decode(), stderr.decode()


async def wait_offered(server: ArenaServer, account: str, game: str) -> None:
    """Until the server holds an autoplay offer of ``account`` for ``game``."""
    for _ in range(3000):
        if any(s.name == account and s.free_autoplay_slots(game) > 0
               for s in server.sessions.all()):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{account} did not offer autoplay")


async def test_node_and_python_bots_play_whole_matches_against_deep_barca(
        arena: ArenaServer) -> None:
    kit = await asyncio.to_thread(ensure_node_kit)
    tokens = {name: await asyncio.to_thread(arena.store.create_account, name, "bot")
              for name in ("deep-barca", "node-random", "node-heuristic", "py-random")}
    house = BotRunner(deep_barca(), arena.ws_url, games=["battleline"],
                      token=tokens["deep-barca"], max_matches=2, reconnect=FAST)
    seeker = BotRunner(deep_barca(), arena.ws_url, games=["battleline"], mode="seek",
                       token=tokens["deep-barca"], matches=1, reconnect=FAST)
    house_task = asyncio.ensure_future(house.run())
    seeker_task = asyncio.ensure_future(seeker.run())
    try:
        await wait_offered(arena, "deep-barca", "battleline")
        node_env = {"ARENA_SERVER": arena.ws_url, "ARENA_GAME": "battleline",
                    "ARENA_OPPONENT": "deep-barca", "ARENA_MATCHES": str(NODE_MATCHES)}
        results = await asyncio.gather(
            run_process([node(), str(kit / "examples" / "random-bot.js")],
                        {**node_env, "ARENA_TOKEN": tokens["node-random"], "ARENA_SEED": "1"}),
            run_process([node(), str(kit / "examples" / "battleline-bot.js")],
                        {**node_env, "ARENA_TOKEN": tokens["node-heuristic"],
                         "ARENA_SEAT": "1"}),
            run_process([str(ARENA), "bot", "random", "--game", "battleline", "--seek",
                         "--matches", "1", "--encoding", "msgpack", "--server", arena.ws_url,
                         "--token", tokens["py-random"], "--seed", "2",
                         "--log-level", "warning"], {}))
        seeker_stats = await asyncio.wait_for(seeker_task, 60)
    finally:
        house.stop()
        seeker.stop()
        house_stats = await asyncio.wait_for(house_task, 30)
        await asyncio.gather(seeker_task, return_exceptions=True)

    (random_rc, random_out, random_err), (heur_rc, heur_out, heur_err), \
        (py_rc, py_out, py_err) = results
    for rc, out, err, seat in ((random_rc, random_out, random_err, 0),
                               (heur_rc, heur_out, heur_err, 1)):
        assert rc == 0, err
        assert err == "", "a Node bot reported errors:\n" + err
        assert out.count(f" started: battleline, seat {seat} against deep-barca") == \
            NODE_MATCHES
        assert f"done: {NODE_MATCHES} match(es)" in out and ", 0 errors" in out, out
    assert py_rc == 0, py_err
    py_stats = json.loads(py_out.strip().splitlines()[-1])
    assert py_stats["matches"] == 1 and py_stats["errors"] == 0 and py_stats["actions"] > 10

    # Deep Barca answered every request itself, with no error from the server.
    assert house_stats.matches_finished == 2 * NODE_MATCHES
    assert seeker_stats.matches_finished == 1
    for stats in (house_stats, seeker_stats):
        assert stats.errors == 0 and stats.fallbacks == 0

    # The server stored every match as finished, with a game outcome and a full log.
    rows = await asyncio.to_thread(arena.store.list_matches, game="battleline")
    assert len(rows) == 2 * NODE_MATCHES + 1
    opponents = sorted(next(s["name"] for s in row.seats if s["name"] != "deep-barca")
                       for row in rows)
    assert opponents == ["node-heuristic"] * NODE_MATCHES + ["node-random"] * NODE_MATCHES \
        + ["py-random"]
    for row in rows:
        assert row.status == "over", row.id
        assert row.outcome is not None and row.outcome["reason"] in REASONS, row.outcome
        assert row.moves > 20 and len(row.log) > row.moves
