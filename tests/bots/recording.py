"""What the bots' end-to-end tests share: a quick reconnect policy and a recording bot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clients.connection import ReconnectPolicy

FAST = ReconnectPolicy(initial_delay=0.02, max_delay=0.2, max_attempts=10)


class Recording:
    """Wraps a bot and keeps the requests it answered (to check what the seat was sent)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.requests: list[Mapping[str, Any]] = []

    def choose(self, request: Mapping[str, Any]) -> Any:
        self.requests.append(request)
        return self.bot.choose(request)
