"""The Python client library and bot runner, the browser client, and kits for other languages.

The runner drives whatever policy object it is handed; the registry of bot names lives in
``bots/`` and is wired in by the ``arena`` program (``tools/``), not here.

* :func:`clients.connection.connect` / :class:`clients.connection.Connection`: an asyncio
  client (handshake, request/reply correlation, message stream, reconnect with resume,
  lobby helpers).
* :class:`clients.runner.BotRunner`: runs a bot (an object with ``choose(request)``).
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
