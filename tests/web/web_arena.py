"""A real Tabletop Arena server with house bots, in a background thread, for browser tests.

The browser (Playwright's sync API) drives the page from the test's thread; the server, its
SQLite file and its bots run on their own asyncio loop in another thread, on 127.0.0.1 with
a free port. Every bot is an ordinary protocol client (:class:`clients.BotRunner`) — the same
way ``arena run`` starts house bots, only in-process.

Bots started:

* ``house-random-1`` — the random bot, autoplay for Battle Line and Chexers (what the lobby's
  "Random" house bot is under ``arena run``'s naming);
* ``house-barca-1`` and ``house-greedy-1`` — Barca's agent and its greedy baseline, autoplay
  for Barca. Here the agent searches 2 plies (not ``arena run``'s 3 within 2 s, to keep the
  browser tests quick) and both use the rule book's starting weights
  (:data:`BARCA_TEST_WEIGHTS`), so their decisions are a pure function of the position that
  a tuned default does not change: a Barca game in the browser tests plays the same way;
* ``house-adaptive-1`` — Boundary's adaptive agent (its shipped table, seed 0), autoplay for
  Boundary: a plan takes it milliseconds, so a browser test's turn waits only on the page;
* ``watch-*`` — slow random bots seeking Battle Line matches among themselves (a live
  bot-vs-bot match to spectate that lasts long enough to look at);
* ``ladder-*`` — random bots on the Battle Line ladder (a leaderboard and rating histories).

Match seeds come from a counter (``ArenaServer(seeds=...)``, a server-side test setting,
not a protocol field), so a run's deals are reproducible.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import threading
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

from bots.barca.agents import BarcaBot, GreedyBarcaBot
from bots.boundary.agents import AdaptiveBot
from bots.random_bot import RandomBot
from clients import BotRunner
from clients.connection import ReconnectPolicy
from server.app import ArenaServer
from server.ladder import LadderSettings
from server.storage import SqliteStore, is_reserved_name

T = TypeVar("T")
#: The Barca agent's starting weights (shared/rules/barca.md §12.2), pinned for the tests.
BARCA_TEST_WEIGHTS = (100, 250, 400, 30, 60, -40, -30, -20, 15, 1, -10, 20, 5, -5, 10)
FAST_RECONNECT = ReconnectPolicy(initial_delay=0.05, max_delay=0.5, max_attempts=50)


class SlowRandomBot:
    """A random bot that thinks for ``delay_s`` first (asynchronously), so the match it
    plays stays live long enough for a spectator to watch."""

    def __init__(self, seed: int, delay_s: float) -> None:
        self.rng = random.Random(seed)
        self.delay_s = delay_s

    async def choose(self, request: Mapping[str, Any]) -> Any:
        await asyncio.sleep(self.delay_s)
        legal = request["legal_actions"]
        return legal[self.rng.randrange(len(legal))]


class WebArena:
    """Start with :meth:`start`, stop with :meth:`stop`; :meth:`call` runs a coroutine on the
    server's loop, :meth:`on_loop` a plain function (to read live server state safely)."""

    def __init__(self, db_path: Path, *, first_seed: int = 1) -> None:
        self.db_path = db_path
        self._seeds = itertools.count(first_seed)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="web-arena",
                                       daemon=True)
        self.server: ArenaServer | None = None
        self.store: SqliteStore | None = None
        self.runners: list[BotRunner] = []
        self._runs: list[asyncio.Future[Any]] = []

    # ---- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        self.thread.start()
        self.call(self._start())

    async def _start(self) -> None:
        self.store = SqliteStore(self.db_path)
        self.server = ArenaServer(self.store, grace_s=20.0, seeds=lambda: next(self._seeds),
                                  ladder=LadderSettings(interval_s=0.2, seed=5))
        await self.server.start("127.0.0.1", 0)
        url = self.server.ws_url
        self._bot("house-random-1", RandomBot(seed=11), url, games=["battleline", "chexers"],
                  max_matches=16)
        self._bot("house-barca-1", BarcaBot(depth=2, weights=BARCA_TEST_WEIGHTS), url,
                  games=["barca"], max_matches=4)
        self._bot("house-greedy-1", GreedyBarcaBot(weights=BARCA_TEST_WEIGHTS), url,
                  games=["barca"], max_matches=4)
        self._bot("house-adaptive-1", AdaptiveBot(seed=0), url, games=["boundary"],
                  max_matches=4)
        for n in range(2):
            self._bot(f"watch-{n + 1}", SlowRandomBot(seed=20 + n, delay_s=0.25), url,
                      games=["battleline"], mode="seek", max_matches=1,
                      clock={"initial_ms": 600_000, "increment_ms": 0})
        for n in range(3):
            self._bot(f"ladder-{n + 1}", RandomBot(seed=30 + n), url, games=["battleline"],
                      mode="ladder", max_matches=1, ladder_bot=f"rnd{n + 1}",
                      ladder_version=str(n + 1))

    def _bot(self, account: str, bot: Any, url: str, **kwargs: Any) -> BotRunner:
        assert self.store is not None
        token = self.store.create_account(account, "bot",
                                          house=is_reserved_name(account))
        runner = BotRunner(bot, url, token=token, reconnect=FAST_RECONNECT, **kwargs)
        self.runners.append(runner)
        self._runs.append(asyncio.ensure_future(runner.run()))
        return runner

    def add_bot(self, account: str, bot: Any, **kwargs: Any) -> BotRunner:
        """Start one more bot client (a new ``account``) on the server's loop; it stops with
        the arena, or earlier with ``runner.stop()`` (thread-safe through :meth:`on_loop`)."""
        assert self.server is not None
        url = self.server.ws_url
        return self.on_loop(lambda: self._bot(account, bot, url, **kwargs))

    def stop(self) -> None:
        try:
            self.call(self._stop(), timeout=30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)

    async def _stop(self) -> None:
        for runner in self.runners:
            runner.stop()
        await asyncio.gather(*self._runs, return_exceptions=True)
        if self.server is not None:
            await self.server.close()
        if self.store is not None:
            self.store.close()

    # ---- talking to the loop ---------------------------------------------------------------

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def on_loop(self, fn: Callable[[], T], timeout: float = 10.0) -> T:
        async def run() -> T:
            return fn()
        return self.call(run(), timeout)

    # ---- facts for the tests ---------------------------------------------------------------

    @property
    def http_url(self) -> str:
        assert self.server is not None
        return self.server.http_url

    def create_account(self, name: str, kind: str = "human") -> str:
        """A new account; returns its token."""
        assert self.store is not None
        store = self.store
        return self.on_loop(lambda: store.create_account(name, kind))

    def live_state(self, match_id: str) -> dict[str, Any] | None:
        """The full state of a live match right now (server-side truth, for leak checks)."""
        assert self.server is not None
        server = self.server

        def read() -> dict[str, Any] | None:
            live = server.live.get(match_id)
            return None if live is None else dict(live.runner.state)
        return self.on_loop(read)

    def matches(self, game: str | None = None) -> list[dict[str, Any]]:
        assert self.server is not None
        server = self.server
        return self.on_loop(lambda: server.match_summaries(game))

    def autoplay_offered(self, game: str) -> bool:
        """Whether a connected bot offers autoplay for ``game`` (``play_bot`` can seat it)."""
        assert self.server is not None
        server = self.server
        return self.on_loop(lambda: any(s.free_autoplay_slots(game) > 0
                                        for s in server.sessions.all()))

    def rated_matches(self) -> int:
        assert self.server is not None
        server = self.server
        return self.on_loop(lambda: server.ladder.rated_matches)
