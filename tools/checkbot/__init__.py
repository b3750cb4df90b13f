"""``arena check-bot``: put a bot through scripted situations on a private server and report.

The bot is any program: :func:`check_bot` starts it with the server's address, a bot
account's token and the game in its environment (``ARENA_SERVER``, ``ARENA_TOKEN``,
``ARENA_GAME``; other ``ARENA_*`` variables are removed; ``{server}``, ``{token}`` and
``{game}`` in its arguments are replaced too) and expects it to connect and offer itself
with ``autoplay`` — what a bot does for a ladder or as a house bot. Then scripted
opponents (random players on ordinary client connections) start matches against it with
``play_bot``.

Everything the bot sends and receives passes through a websocket relay that records it. The
relay is also how the situations are made: it re-delivers an old request (stale), and it cuts
the bot's connection with a request pending (reconnect), exactly as a flaky network would.

Checks, in order (each a :class:`CheckResult`; the relay is :mod:`tools.checkbot.relay`,
the opponents :mod:`tools.checkbot.player`, the checks :mod:`tools.checkbot.checker`):

* **connect** — hello → welcome, then ``autoplay`` for the game;
* **ordinary turns** — a whole match: every request answered in time, no error, and every
  answer judged by the engine in the state the request was made from (a legal action, or in
  a game of action spaces — Boundary — a value of the request's ``action_space`` that the
  game's ``check_action`` accepts);
* **stale request** — a copy of an already answered request arrives just before a new one:
  the new one must be answered (answering the copy is refused as stale by the server and
  does no harm, but a careful bot skips it);
* **reconnect** — the connection drops while a request is pending: the bot must reconnect,
  ``hello`` with ``resume`` set to its session, and answer the re-sent request (same id);
* **clock running low** — a whole match on a small time bank: no timeout (where a missed
  deadline plays a default action instead of losing — Boundary — no deadline missed). The
  server's clock runs while this process (server, relay and sparring players together)
  handles each turn, so on a loaded machine it can miss a deadline the bot met: a missed
  deadline counts against the bot only if its own clock, replayed with its answer times as
  the relay saw them, had run out too; others are reported as the checker's;
* **match end** — after every ``match_end`` (including one by the opponent's resignation)
  the bot sends nothing more for that match and is ready to be seated again (on simultaneous
  turns the opponent resigns once the bot has committed to the turn, so no answer of the bot
  can cross the ``match_end`` in flight).

The server runs in-process (127.0.0.1, port 0, SQLite in a temporary directory).
"""

from __future__ import annotations

from tools.checkbot.checker import (
    BOT_ACCOUNT,
    CheckResult,
    CheckSettings,
    Report,
    check_bot,
)

__all__ = ["BOT_ACCOUNT", "CheckResult", "CheckSettings", "Report", "check_bot"]
