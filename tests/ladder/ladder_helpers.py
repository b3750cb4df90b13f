"""Set-ups for the ladder tests: a real server on port 0 with a ladder, and in-process bots
that connect over the socket with the client library (``BotRunner`` in ladder mode)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots import registry as bots
from clients.connection import NO_RECONNECT
from clients.runner import BotRunner
from server.app import ArenaServer
from server.ladder import LadderSettings
from server.storage import SqliteStore, Store


class Tracked:
    """Wraps a bot: counts the matches it plays at once (peak) from the runner's hooks."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.current = 0
        self.peak = 0
        self.started = 0

    async def choose(self, request: Mapping[str, Any]) -> Any:
        # A coroutine: the runner calls it on the event loop. All bots of a test share one
        # process, so a worker thread per bot would only add GIL hand-offs to every action.
        return self.bot.choose(request)

    def on_match_start(self, message: Mapping[str, Any]) -> None:
        self.current += 1
        self.started += 1
        self.peak = max(self.peak, self.current)

    def on_match_end(self, message: Mapping[str, Any]) -> None:
        self.current -= 1


@dataclass
class LadderBot:
    account: str
    runner: BotRunner
    tracked: Tracked
    max_matches: int
    task: asyncio.Task[Any] | None = None


@dataclass
class Arena:
    """A server with its store, and the ladder bots started against it."""

    path: Path
    store: Store
    server: ArenaServer
    bots: list[LadderBot] = field(default_factory=list)
    peaks: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per account of a stopped bot: (most matches it played at once, what it declared)."""

    async def add_bot(self, account: str, bot: str | Any, game: str, *, version: str = "1",
                      max_matches: int = 1, seed: int = 0, bot_name: str | None = None,
                      seed_from_version: str | None = None, **options: Any) -> LadderBot:
        """Create the account (if new) and start a bot on ``game``'s ladder."""
        if self.store.get_account(account) is None:
            token = await asyncio.to_thread(self.store.create_account, account, "bot")
        else:
            token = await asyncio.to_thread(self.store.rotate_token, account)
        policy = (bots.create(bot, game=game, seed=seed, **options) if isinstance(bot, str)
                  else bot)
        tracked = Tracked(policy)
        runner = BotRunner(tracked, self.server.ws_url, games=[game], token=token,
                           mode="ladder", max_matches=max_matches, reconnect=NO_RECONNECT,
                           ladder_bot=bot_name or (bot if isinstance(bot, str) else account),
                           ladder_version=version, seed_from_version=seed_from_version,
                           seed=seed)
        entry = LadderBot(account, runner, tracked, max_matches)
        entry.task = asyncio.ensure_future(runner.run())
        self.bots.append(entry)
        return entry

    async def stop_bots(self) -> None:
        for entry in self.bots:
            entry.runner.stop()
            self.peaks[entry.account] = (entry.tracked.peak, entry.max_matches)
        await asyncio.gather(*(b.task for b in self.bots if b.task), return_exceptions=True)
        self.bots.clear()

    async def wait_rated(self, count: int, timeout: float) -> None:
        """Until ``count`` ladder matches were rated by this server (or fail)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.server.ladder.rated_matches < count:
            if loop.time() > deadline:
                raise TimeoutError(f"only {self.server.ladder.rated_matches} of {count} "
                                   f"ladder matches rated within {timeout}s")
            for b in self.bots:
                if b.task is not None and b.task.done():
                    b.task.result()  # a bot that died: show why
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        await self.stop_bots()
        await self.server.close()


async def open_arena(path: Path, settings: LadderSettings, *, grace_s: float = 5.0,
                     store: Store | None = None) -> Arena:
    store = store or SqliteStore(path)
    server = ArenaServer(store, grace_s=grace_s, ladder=settings)
    await server.start("127.0.0.1", 0)
    return Arena(path, store, server)


@contextlib.asynccontextmanager
async def arena(path: Path, settings: LadderSettings, **kwargs: Any) -> Any:
    a = await open_arena(path, settings, **kwargs)
    try:
        yield a
    finally:
        await a.close()
        a.store.close()
