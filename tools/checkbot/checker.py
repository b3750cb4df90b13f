"""The checks of ``arena check-bot`` (see :mod:`tools.checkbot`): set-up, one method per
situation, and :func:`check_bot`, which runs them all and returns the :class:`Report`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import registry, spaces
from engine.core import IllegalAction, MalformedAction
from server.app import ArenaServer
from server.storage import SqliteStore
from tools.checkbot.player import ScriptedPlayer
from tools.checkbot.relay import Relay

BOT_ACCOUNT = "checked-bot"
POLL_S = 0.02
QUIET_AFTER_END_S = 0.3


@dataclass(frozen=True)
class CheckSettings:
    """Knobs of a check run (seconds unless said otherwise)."""

    game: str = "battleline"
    connect_timeout: float = 30.0
    answer_timeout: float = 10.0
    reconnect_timeout: float = 15.0
    low_clock_ms: int = 2000
    low_clock_increment_ms: int = 100
    grace_s: float = 20.0
    seed: int | None = None


@dataclass
class CheckResult:
    name: str
    passed: bool | None          # None: not run
    detail: str

    def line(self) -> str:
        word = {True: "PASS", False: "FAIL", None: "SKIP"}[self.passed]
        return f"{word} {self.name}: {self.detail}"


@dataclass
class Report:
    game: str
    command: list[str]
    results: list[CheckResult] = field(default_factory=list)
    bot_output: str = ""
    exit_code: int | None = None

    @property
    def passed(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    def text(self) -> str:
        lines = [f"arena check-bot: {self.game}, bot command: {shlex.join(self.command)}"]
        lines += [r.line() for r in self.results]
        done = sum(1 for r in self.results if r.passed)
        lines.append(f"{done} of {len(self.results)} checks passed")
        if not self.passed and self.bot_output.strip():
            tail = self.bot_output.strip().splitlines()[-15:]
            lines.append("the bot's last output lines:")
            lines += [f"  | {line}" for line in tail]
        return "\n".join(lines)


# ---- the checker ----------------------------------------------------------------------------


@dataclass
class MatchWatch:
    """What happened to the bot in one match."""

    match_id: str
    seat: int
    requests: int = 0            # distinct requests the server sent the bot (no injected ones)
    answered: int = 0            # of those, answered by the bot with their request_id
    errors: list[dict[str, Any]] = field(default_factory=list)
    slowest_s: float = 0.0
    lowest_clock_ms: int | None = None
    highest_clock_ms: int | None = None
    unanswered: str | None = None  # why the match was cut short
    end: dict[str, Any] | None = None
    after_end: list[dict[str, Any]] = field(default_factory=list)
    abandoned: bool = False      # the bot left its session (no resume): not its match any more
    refused: list[str] = field(default_factory=list)  # answers the engine judged not legal
    timeouts: int = 0            # deadlines the bot missed (a default action played for it)
    # Deadlines the server saw missed although the bot's own clock, replayed with its answer
    # times as the relay (the bot's end of the connection) saw them, had time left: the time
    # went in this process (server, relay, a loaded machine), not in the bot. Their late
    # answers draw stale/already-in errors, which are kept apart in transit_errors.
    transit_timeouts: int = 0
    transit_errors: list[dict[str, Any]] = field(default_factory=list)


class Checker:
    def __init__(self, command: Sequence[str], settings: CheckSettings, workdir: Path) -> None:
        self.command = list(command)
        self.settings = settings
        self.workdir = workdir
        self.rng = random.Random(settings.seed)
        self.game = registry.get(settings.game)
        self.num_seats = self.game.info.min_seats
        self.store: SqliteStore | None = None
        self.server: ArenaServer | None = None
        self.relay: Relay | None = None
        self.players: list[ScriptedPlayer] = []
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = workdir / "bot-output.txt"
        self.report = Report(settings.game, self.command)
        self.bot_session: str | None = None
        self._seat_next = 0
        # request_id -> (the state it was asked in, the request): to judge the answer.
        self._asked: dict[str, tuple[Any, dict[str, Any]]] = {}

    # ---- set-up and tear-down ----------------------------------------------------------------

    async def start(self) -> None:
        db = self.workdir / "arena.sqlite3"
        for stale in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
            stale.unlink(missing_ok=True)  # a kept workdir from an earlier run
        self.store = SqliteStore(db)
        token = await asyncio.to_thread(self.store.create_account, BOT_ACCOUNT, "bot")
        player_tokens = [await asyncio.to_thread(self.store.create_account, f"checker-{i}",
                                                 "bot")
                         for i in range(self.num_seats - 1)]
        self.server = ArenaServer(self.store, grace_s=self.settings.grace_s)
        await self.server.start("127.0.0.1", 0)
        self.relay = Relay(self.server.ws_url)
        self.relay.observe = self._note_request
        await self.relay.start()
        for i, player_token in enumerate(player_tokens):
            player = await ScriptedPlayer.open(self.server.ws_url, player_token, f"checker-{i}",
                                               random.Random(self.rng.random()),
                                               simultaneous=self.game.info.simultaneous)
            self.players.append(player)
            if i > 0:  # the others take the remaining seats as house bots
                reply = await player.request({"type": "autoplay", "games": [self.game.info.name],
                                              "max_matches": 1})
                assert reply["type"] == "ok", reply
        self._start_bot(token)

    def _start_bot(self, token: str) -> None:
        assert self.relay is not None
        values = {"server": self.relay.url, "token": token, "game": self.game.info.name}
        argv = [arg.replace("{server}", values["server"]).replace("{token}", values["token"])
                .replace("{game}", values["game"]) for arg in self.command]
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        env.update(ARENA_SERVER=values["server"], ARENA_TOKEN=token, ARENA_GAME=values["game"])
        log = self.log_path.open("wb")
        try:
            self.process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            log.close()

    async def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                await asyncio.to_thread(self.process.wait, 5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                await asyncio.to_thread(self.process.wait)
        if self.process is not None:
            self.report.exit_code = self.process.returncode
        with contextlib.suppress(OSError):
            self.report.bot_output = self.log_path.read_text(errors="replace")
        for player in self.players:
            with contextlib.suppress(Exception):
                await player.close()
        if self.relay is not None:
            await self.relay.close()
        if self.server is not None:
            await self.server.close()
        if self.store is not None:
            self.store.close()

    # ---- helpers ----------------------------------------------------------------------------

    def _bot_exited(self) -> str | None:
        if self.process is not None and self.process.poll() is not None:
            return f"the bot process exited with status {self.process.returncode}"
        return None

    def _bot_available(self) -> bool:
        assert self.server is not None
        return any(s.name == BOT_ACCOUNT and s.free_autoplay_slots(self.game.info.name) > 0
                   for s in self.server.sessions.all())

    def _note_request(self, conn: int, message: dict[str, Any]) -> None:
        """A message on its way to the bot: for a request, keep the state it was asked in.
        Called before the bot can see it, so while the request is open the match's state is
        still the one the request was made from (a simultaneous turn moves on only once
        every seat, the bot included, has committed)."""
        if message.get("type") != "request" or self.server is None:
            return
        request_id, seat = message.get("request_id"), message.get("seat")
        live = self.server.find_match(str(message.get("match_id")))
        if live is None or not isinstance(request_id, str) or not isinstance(seat, int):
            return
        if request_id not in self._asked and live.runner.pending_request_id(seat) == request_id:
            self._asked[request_id] = (live.runner.state, message)

    def _judge(self, request_id: str, action: Any) -> str | None:
        """Why the engine refuses ``action`` as the answer to ``request_id`` (``None``: a
        legal action, or a value of the action space that the rules accept)."""
        asked = self._asked.get(request_id)
        if asked is None:
            return None
        state, request = asked
        space = request.get("action_space")
        outside = space is not None and not spaces.contains(space, action)
        why = "not a value of its action_space" if outside else None
        try:
            self.game.check_action(state, int(request["seat"]), action)
        except MalformedAction as exc:
            why = f"malformed: {exc.message}"
        except IllegalAction as exc:
            why = f"illegal ({exc.rule}): {exc.message}"
        if why is None:
            return None
        shown = json.dumps(action, separators=(",", ":"))
        shown = shown if len(shown) <= 100 else shown[:97] + "..."
        return f"the engine refuses its answer to request {request_id}, {shown}: {why}"

    async def _wait(self, condition: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return True
            if self._bot_exited():
                return condition()
            await asyncio.sleep(POLL_S)
        return condition()

    # ---- the checks ---------------------------------------------------------------------------

    async def check_connect(self) -> CheckResult:
        assert self.relay is not None
        relay = self.relay
        began = time.monotonic()
        name = "connect"
        if not await self._wait(lambda: bool(relay.to_bot("welcome")),
                                self.settings.connect_timeout):
            why = self._bot_exited() or f"no hello within {self.settings.connect_timeout:.0f} s"
            hellos = self.relay.sent_by_bot("hello")
            errors = self.relay.to_bot("error")
            if hellos and errors:
                why = f"its hello was refused: {errors[0].message.get('code')}: " \
                      f"{errors[0].message.get('message')}"
            elif self.relay.connections == 0 and not self._bot_exited():
                why += " (it never opened a websocket to ARENA_SERVER)"
            return CheckResult(name, False, why)
        welcome = self.relay.to_bot("welcome")[0].message
        self.bot_session = welcome.get("session")
        account = welcome.get("account", {})
        if account.get("name") != BOT_ACCOUNT:
            return CheckResult(name, False, f"it logged in as {account.get('name')!r} "
                                            f"({account.get('kind')}), not with the token in "
                                            "ARENA_TOKEN")
        if not await self._wait(self._bot_available, self.settings.connect_timeout):
            seeks = self.relay.sent_by_bot("seek")
            why = self._bot_exited() or "it never offered itself with autoplay for " \
                                        f"{self.game.info.name}"
            if seeks:
                why += " (it seeks instead; bots under check must say autoplay)"
            return CheckResult(name, False, why)
        return CheckResult(name, True,
                           f"hello -> welcome as {account.get('name')} ({account.get('kind')}), "
                           f"autoplay offered for {self.game.info.name} after "
                           f"{time.monotonic() - began:.1f} s")

    async def _start_match(self, clock: dict[str, int] | None, resign_at: int | None = None
                           ) -> tuple[str, int] | str:
        """Seat the bot in a new match; returns (match_id, bot seat) or why it failed."""
        assert self.server is not None
        if not await self._wait(self._bot_available, self.settings.answer_timeout):
            return self._bot_exited() or "the bot was not ready for another match within " \
                                          f"{self.settings.answer_timeout:.0f} s"
        requester = self.players[0]
        message: dict[str, Any] = {"type": "play_bot", "game": self.game.info.name,
                                   "clock": clock}
        # The requester's seat goes round, so the bot gets different seats.
        message["seat"] = self._seat_next
        self._seat_next = (self._seat_next + 1) % self.num_seats
        if self.num_seats == 2:
            message["bot"] = BOT_ACCOUNT
        reply = await requester.request(message)
        if reply["type"] != "match_start":
            return f"play_bot refused: {reply.get('code')}: {reply.get('message')}"
        match_id = reply["match_id"]
        bot_seat = next(s["seat"] for s in reply["seats"] if s["name"] == BOT_ACCOUNT)
        if resign_at is not None:
            requester.resign_at[match_id] = resign_at
        return match_id, bot_seat

    async def _watch(self, match_id: str, seat: int, since: int,
                     answer_timeout: float | None = None,
                     increment_ms: int = 0) -> MatchWatch:
        """Follow the match until its end, cutting it short (the opponent resigns) when the
        bot leaves a request unanswered longer than ``answer_timeout`` (default: the
        settings')."""
        answer_timeout = answer_timeout or self.settings.answer_timeout
        assert self.server is not None and self.relay is not None
        watch = MatchWatch(match_id, seat)
        live = self.server.find_match(match_id)
        assert live is not None
        seen_requests: dict[str, float] = {}   # request_id -> first delivery to the bot
        deadlines: dict[str, float] = {}       # request_id -> its deadline_ms, in seconds
        bank: float | None = None              # the bank the first request showed, seconds
        answer_s: dict[str, float] = {}        # request_id -> the bot's time to answer it
        timed_out: list[str | None] = []       # the bot's open request at each timeout event
        turned_down: set[str | None] = set()   # requests whose answer drew an error in time
        last_request: str | None = None
        answered: set[str] = set()
        index = since
        over_since: float | None = None
        requester = self.players[0]
        while True:
            for record in self.relay.records[index:]:
                message = record.message
                kind = message.get("type")
                if message.get("match_id") != match_id and \
                        not (kind == "error" and "match_id" not in message):
                    continue
                if record.to_bot and kind == "request" and not record.injected:
                    rid = message["request_id"]
                    if rid not in seen_requests:
                        seen_requests[rid] = record.at
                        watch.requests += 1
                    last_request = rid
                    if isinstance(message.get("deadline_ms"), int):
                        deadlines.setdefault(rid, message["deadline_ms"] / 1000)
                    clock_ms = message.get("clock_ms")
                    if isinstance(clock_ms, int):
                        bank = clock_ms / 1000 if bank is None else bank
                        watch.lowest_clock_ms = clock_ms if watch.lowest_clock_ms is None \
                            else min(watch.lowest_clock_ms, clock_ms)
                        watch.highest_clock_ms = clock_ms if watch.highest_clock_ms is None \
                            else max(watch.highest_clock_ms, clock_ms)
                elif record.to_bot and kind == "error":
                    watch.errors.append(message)
                    if message.get("request_id") not in timed_out:
                        turned_down.add(message.get("request_id"))  # not in time
                elif record.to_bot and kind == "events":
                    timed_out += [last_request for e in message.get("events", [])
                                  if e.get("type") == "timeout" and seat in e.get("seats", ())]
                elif not record.to_bot and kind == "action":
                    rid = message.get("request_id")
                    if watch.end is not None:
                        watch.after_end.append(message)
                    elif rid in seen_requests and rid not in answered:
                        answered.add(rid)
                        watch.answered += 1
                        answer_s[rid] = record.at - seen_requests[rid]
                        watch.slowest_s = max(watch.slowest_s, answer_s[rid])
                        refused = self._judge(rid, message.get("action"))
                        if refused is not None:
                            watch.refused.append(refused)
                elif record.to_bot and kind == "match_end" and watch.end is None:
                    watch.end = message
            index = len(self.relay.records)
            if watch.end is not None:
                break
            if live.runner.is_over:
                # Over on the server: the bot's match_end is on its way, or was lost with a
                # connection (then the bot gets it when it resumes).
                over_since = over_since or time.monotonic()
                if time.monotonic() - over_since > self.settings.reconnect_timeout:
                    outcome = live.runner.outcome
                    watch.end = {"type": "match_end", "undelivered": True,
                                 "outcome": outcome.to_json() if outcome else None}
                    break
                await asyncio.sleep(POLL_S)
                continue
            pending = live.runner.pending_request_id(seat)
            if pending is not None and pending in seen_requests and \
                    time.monotonic() - seen_requests[pending] > answer_timeout:
                watch.unanswered = f"no answer to request {pending} within {answer_timeout:g} s"
                await requester.resign(match_id)
            elif pending is not None and pending not in seen_requests and \
                    self._bot_exited():
                watch.unanswered = self._bot_exited()
                await requester.resign(match_id)
            await asyncio.sleep(POLL_S)
        # Anything sent for this match after its end?
        await asyncio.sleep(QUIET_AFTER_END_S)
        for record in self.relay.records[index:]:
            if not record.to_bot and record.message.get("match_id") == match_id and \
                    record.message.get("type") == "action":
                watch.after_end.append(record.message)
        in_time = {rid: took for rid, took in answer_s.items() if rid not in turned_down}
        self._blame_timeouts(watch, list(seen_requests), timed_out, deadlines, in_time, bank,
                             increment_ms / 1000)
        return watch

    @staticmethod
    def _blame_timeouts(watch: MatchWatch, requests: list[str], timed_out: list[str | None],
                        deadlines: Mapping[str, float], answer_s: Mapping[str, float],
                        bank: float | None, increment: float) -> None:
        """Each missed deadline is the bot's unless the bot's own clock had time for it: the
        clock replayed with the bot's answer times as the relay (its end of the connection)
        saw them (``answer_s``: the answers the server did not refuse), from the first
        request's bank, ``increment`` added after each answer. The server's clock also runs
        while this process (server, relay, sparring players, on a machine that may be loaded)
        handles the turn; time lost there is not the bot's."""
        missed = {rid for rid in timed_out if rid is not None}
        transit: set[str] = set()
        left = bank
        for rid in requests:
            took = answer_s.get(rid)
            allowed = deadlines.get(rid) if left is None else max(left, deadlines.get(rid, 0))
            if took is not None and allowed is not None and took <= allowed:
                transit |= {rid} & missed
                left = None if left is None else left - took + increment
            elif left is not None:
                left = increment     # the bank ran out on this answer
        for missed_rid in timed_out:
            if missed_rid is not None and missed_rid in transit:
                watch.transit_timeouts += 1
            else:
                watch.timeouts += 1
        watch.transit_errors = [e for e in watch.errors if e.get("request_id") in transit]
        watch.errors = [e for e in watch.errors if e.get("request_id") not in transit]

    def _summary(self, watch: MatchWatch) -> str:
        outcome = (watch.end or {}).get("outcome") or {}
        ranks = outcome.get("ranks") or []
        result = "unknown"
        if ranks and watch.seat < len(ranks):
            mine = ranks[watch.seat]
            result = "draw" if all(r == mine for r in ranks) else \
                ("won" if mine == 0 else "lost")
        summary = f"seat {watch.seat}, {result} by {outcome.get('reason')}"
        if watch.transit_timeouts:
            summary += (f"; {watch.transit_timeouts} deadline(s) missed on the checker's side,"
                        " not the bot's: it answered each in time by its own clock, but "
                        "this machine was too loaded to deliver the answer in time")
            if watch.transit_errors:
                summary += (f" (the late answers drew {len(watch.transit_errors)} "
                            "stale/already-in error(s), not counted against it)")
        return summary

    @staticmethod
    def _errors_text(errors: list[dict[str, Any]]) -> str:
        if not errors:
            return "0 errors"
        first = errors[0]
        return (f"{len(errors)} error(s), first: {first.get('code')}: {first.get('message')}"
                f" (request {first.get('request_id')})")

    def _turn_problems(self, watch: MatchWatch) -> list[str]:
        problems = []
        if watch.unanswered:
            problems.append(watch.unanswered)
        if watch.refused:
            problems.append(watch.refused[0] + (f" (and {len(watch.refused) - 1} more)"
                                                if len(watch.refused) > 1 else ""))
        if watch.timeouts and self.game.info.timeout == "default":
            problems.append(f"it missed {watch.timeouts} deadline(s): the server played the "
                            "default action for it")
        if watch.errors:
            problems.append(self._errors_text(watch.errors))
        if watch.end is None:
            problems.append("the match did not end")
        return problems

    async def check_ordinary(self) -> tuple[CheckResult, MatchWatch | None]:
        name = "ordinary turns"
        assert self.relay is not None
        since = len(self.relay.records)
        started = await self._start_match({"initial_ms": 120_000, "increment_ms": 5_000})
        if isinstance(started, str):
            return CheckResult(name, False, started), None
        watch = await self._watch(*started, since)
        problems = self._turn_problems(watch)
        detail = (f"answered {watch.answered} of {watch.requests} requests in a whole match "
                  f"({self._summary(watch)})")
        if problems:
            return CheckResult(name, False, "; ".join(problems) + f" — {detail}"), watch
        legal = ("a value of its action space that the rules accept"
                 if self.game.info.actions == "space" else "a legal action")
        return CheckResult(name, True, f"{detail}, 0 errors, slowest answer "
                                       f"{watch.slowest_s * 1000:.0f} ms; every answer "
                                       f"{legal}"), watch

    async def check_stale(self) -> tuple[CheckResult, MatchWatch | None]:
        name = "stale request"
        assert self.relay is not None
        relay = self.relay
        since = len(relay.records)
        started = await self._start_match({"initial_ms": 120_000, "increment_ms": 5_000})
        if isinstance(started, str):
            return CheckResult(name, False, started), None
        match_id, seat = started
        state: dict[str, Any] = {"last": None, "count": 0, "stale": None, "fresh": None,
                                 "at": 0}

        def rewrite(conn: int, message: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
            if message.get("type") != "request" or message.get("match_id") != match_id:
                return [(message, False)]
            state["count"] += 1
            last, state["last"] = state["last"], message
            if state["stale"] is None and state["count"] >= 3 and last is not None and \
                    last["request_id"] != message["request_id"]:
                # The old request again, as a network that duplicates or delays would
                # deliver it: the bot answered it already, and it is stale now.
                state["stale"], state["fresh"] = last["request_id"], message["request_id"]
                state["at"] = len(relay.records)  # where the copy will be recorded
                return [(last, True), (message, False)]
            return [(message, False)]

        relay.rewrite = rewrite
        try:
            watch = await self._watch(match_id, seat, since)
        finally:
            relay.rewrite = None
        if state["stale"] is None:
            why = watch.unanswered or "the match ended"
            return CheckResult(name, False, f"{why}, before a stale request could be "
                                            f"delivered ({self._summary(watch)})"), watch
        stale_answers = [r for r in relay.sent_by_bot("action", state["at"])
                         if r.message.get("request_id") == state["stale"]]
        fresh_answers = [r for r in relay.sent_by_bot("action", since)
                         if r.message.get("request_id") == state["fresh"]]
        # Refusals of an answer to the copy: harmless. On a simultaneous turn the bot may
        # have committed to the new turn before it answered the copy: already_committed.
        stale_errors = [e for e in watch.errors if e.get("request_id") == state["stale"]
                        and (e.get("code") in ("stale_request", "not_your_turn")
                             or (e.get("details") or {}).get("rule") == "already_committed")]
        other_errors = [e for e in watch.errors if e not in stale_errors]
        problems = []
        if not fresh_answers:
            problems.append(f"the open request {state['fresh']} was never answered")
        if other_errors:
            problems.append(self._errors_text(other_errors))
        if watch.unanswered:
            problems.append(watch.unanswered)
        copy = (f"answered the stale copy too (refused as {stale_errors[0]['code']}, harmless;"
                f" a careful bot skips requests it has answered)"
                if stale_answers and stale_errors else
                "answered the stale copy" if stale_answers else "ignored the stale copy")
        if problems:
            return CheckResult(name, False, "; ".join(problems) + f" ({copy})"), watch
        return CheckResult(name, True, f"{copy} and answered the open request; the match "
                                       f"went on to its end ({self._summary(watch)})"), watch

    async def check_reconnect(self) -> tuple[CheckResult, MatchWatch | None]:
        name = "reconnect"
        assert self.relay is not None
        relay = self.relay
        since = len(relay.records)
        started = await self._start_match({"initial_ms": 120_000, "increment_ms": 5_000})
        if isinstance(started, str):
            return CheckResult(name, False, started), None
        match_id, seat = started
        state: dict[str, Any] = {"count": 0, "cut": None, "conn": None, "at": 0.0}

        def rewrite(conn: int, message: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
            if message.get("type") == "request" and message.get("match_id") == match_id \
                    and state["cut"] is None:
                state["count"] += 1
                if state["count"] == 4:
                    # Drop the connection with this request undelivered: the server must
                    # re-send it after the resume, and the bot must answer it then.
                    state["cut"], state["conn"] = message["request_id"], conn
                    state["at"] = time.monotonic()
                    relay.cut(conn)
                    return []
            return [(message, False)]

        relay.rewrite = rewrite
        try:
            watch_task = asyncio.ensure_future(self._watch(match_id, seat, since))
            cut_seen = await self._wait(lambda: state["cut"] is not None or watch_task.done(),
                                        self.settings.answer_timeout * 3)
            if not cut_seen or state["cut"] is None:
                watch = await watch_task
                why = watch.unanswered or "the match ended"
                return CheckResult(name, False, f"{why}, before the connection could be cut "
                                                f"({self._summary(watch)})"), watch
            relay.rewrite = None
            old_conn = state["conn"]
            back = await self._wait(
                lambda: any(r.conn > old_conn for r in relay.sent_by_bot("hello", since)),
                self.settings.reconnect_timeout)
            if not back:
                await self.players[0].resign(match_id)
                watch = await watch_task
                watch.abandoned = True
                return CheckResult(name, False, self._bot_exited() or
                                   f"no new connection within "
                                   f"{self.settings.reconnect_timeout:.0f} s after the drop"), \
                    watch
            hello = next(r for r in relay.sent_by_bot("hello", since) if r.conn > old_conn)
            if hello.message.get("resume") != self.bot_session:
                await self.players[0].resign(match_id)
                watch = await watch_task
                watch.abandoned = True
                said = "without resume" if "resume" not in hello.message else \
                    "with a resume token that is not its session's"
                return CheckResult(name, False, f"it reconnected but said hello {said}: a new "
                                                "session, so its seat in the match was "
                                                "abandoned (it would forfeit)"), watch
            watch = await watch_task
        finally:
            relay.rewrite = None
        reanswer = [r for r in relay.sent_by_bot("action", since)
                    if r.message.get("request_id") == state["cut"] and r.conn > state["conn"]]
        problems = self._turn_problems(watch)
        if not reanswer:
            problems.insert(0, f"the re-sent request {state['cut']} was not answered")
        if problems:
            return CheckResult(name, False, "; ".join(problems)), watch
        delay = hello.at - state["at"]
        return CheckResult(name, True, f"resumed its session {delay:.1f} s after the drop, "
                                       "answered the re-sent request (same request_id) and "
                                       f"finished the match ({self._summary(watch)})"), watch

    async def check_low_clock(self) -> tuple[CheckResult, MatchWatch | None]:
        name = "clock running low"
        assert self.relay is not None
        since = len(self.relay.records)
        clock = {"initial_ms": self.settings.low_clock_ms,
                 "increment_ms": self.settings.low_clock_increment_ms}
        started = await self._start_match(clock)
        if isinstance(started, str):
            return CheckResult(name, False, started), None
        # Here the clock judges: the watchdog only catches a server that failed to.
        watch = await self._watch(*started, since, answer_timeout=self.settings.answer_timeout
                                  + clock["initial_ms"] / 1000,
                                  increment_ms=clock["increment_ms"])
        outcome = (watch.end or {}).get("outcome") or {}
        problems = self._turn_problems(watch)
        ranks = outcome.get("ranks") or []
        if outcome.get("reason") == "timeout" and watch.seat < len(ranks) and \
                ranks[watch.seat] == max(ranks):
            problems.insert(0, f"it ran out of time (bank {clock['initial_ms']} ms + "
                               f"{clock['increment_ms']} ms per action)")
        lowest = "-" if watch.lowest_clock_ms is None else f"{watch.lowest_clock_ms} ms"
        detail = (f"{watch.answered} answers on a {clock['initial_ms']} ms bank "
                  f"(+{clock['increment_ms']} ms per action), lowest clock seen {lowest}, "
                  f"slowest answer {watch.slowest_s * 1000:.0f} ms ({self._summary(watch)})")
        if problems:
            detail = (f"{watch.answered} answers on a {clock['initial_ms']} ms bank "
                      f"(+{clock['increment_ms']} ms per action), {self._summary(watch)}")
        if problems:
            return CheckResult(name, False, "; ".join(problems) + f" — {detail}"), watch
        return CheckResult(name, True, detail), watch

    async def check_match_end(self, watches: list[MatchWatch]) -> CheckResult:
        name = "match end"
        assert self.relay is not None
        since = len(self.relay.records)
        # One more match, ended by the opponent's resignation at its second request.
        started = await self._start_match({"initial_ms": 120_000, "increment_ms": 5_000},
                                          resign_at=2)
        problems: list[str] = []
        if isinstance(started, str):
            problems.append(started)
        else:
            watch = await self._watch(*started, since)
            watches = [*watches, watch]
            if (watch.end or {}).get("outcome", {}).get("reason") != "resignation":
                problems.append("the resigned match did not end by resignation")
        watches = [w for w in watches if not w.abandoned]
        delivered = [w for w in watches if w.end is not None and not w.end.get("undelivered")]
        late = [(w, a) for w in watches for a in w.after_end]
        if late:
            w, action = late[0]
            problems.append(f"it sent {len(late)} action(s) after match_end, e.g. for match "
                            f"{w.match_id} request {action.get('request_id')}")
        if len(delivered) < len(watches):
            problems.append(f"{len(watches) - len(delivered)} match(es) had no match_end "
                            "delivered to the bot")
        ready = await self._wait(self._bot_available, self.settings.answer_timeout)
        if not ready:
            problems.append(self._bot_exited() or "after its last match it did not offer "
                            "itself again (no free autoplay slot)")
        reasons = ", ".join(sorted({str((w.end or {}).get("outcome", {}).get("reason"))
                                    for w in delivered}))
        detail = (f"{len(delivered)} matches ended ({reasons}); nothing sent after match_end; "
                  "ready for the next match each time")
        if problems:
            return CheckResult(name, False, "; ".join(problems))
        return CheckResult(name, True, detail)

    async def run(self) -> Report:
        results = self.report.results
        names = ["ordinary turns", "stale request", "reconnect", "clock running low",
                 "match end"]
        connect_result = await self.check_connect()
        results.append(connect_result)
        if not connect_result.passed:
            results += [CheckResult(n, None, "not run: the bot did not connect") for n in names]
            return self.report
        watches: list[MatchWatch] = []
        for check in (self.check_ordinary, self.check_stale, self.check_reconnect,
                      self.check_low_clock):
            result, watch = await check()
            results.append(result)
            if watch is not None:
                watches.append(watch)
            if self._bot_exited():
                break
        results.append(await self.check_match_end(watches))
        done = {r.name for r in results}
        results += [CheckResult(n, None, "not run: " + (self._bot_exited() or "stopped"))
                    for n in names if n not in done]
        return self.report


async def check_bot(command: Sequence[str], settings: CheckSettings,
                    workdir: Path | None = None) -> Report:
    """Run every check on the bot that ``command`` starts; returns the report."""
    if not command:
        raise ValueError("no bot command given")
    with tempfile.TemporaryDirectory(prefix="arena-check-bot-") as tmp:
        checker = Checker(command, settings, Path(workdir or tmp))
        try:
            await checker.start()
            return await checker.run()
        finally:
            await checker.close()
