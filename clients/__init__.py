"""The Python client library and bot runner, the browser client, and kits for other languages.

* :func:`clients.connection.connect` / :class:`clients.connection.Connection`: an asyncio
  client (handshake, request/reply correlation, message stream, reconnect with resume,
  lobby helpers).
* :class:`clients.runner.BotRunner`: runs a bot (an object with ``choose(request)``).
* :mod:`clients.bots`: bots by name, for ``arena bot NAME``.
"""

from clients.connection import (
    ArenaError,
    Connection,
    ConnectionLost,
    ReconnectPolicy,
    connect,
)
from clients.runner import Bot, BotRunner, RunnerStats

__all__ = ["ArenaError", "Bot", "BotRunner", "Connection", "ConnectionLost",
           "ReconnectPolicy", "RunnerStats", "connect"]
