"""``arena check-bot`` judged on bots whose behaviour we know: the Python random bot (over
msgpack) passes every check; deliberately broken bots fail exactly the checks they should,
with a report that says why. (The tutorials run it on a Python bot written with BotRunner
and on a Node.js bot written with the clients/js kit: tests/docs.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients_js.node_kit import ARENA
from tools.checkbot import CheckSettings, Report, check_bot

HERE = Path(__file__).resolve().parent
BROKEN = [sys.executable, str(HERE / "broken_bot.py")]
CHECKS = ["connect", "ordinary turns", "stale request", "reconnect", "clock running low",
          "match end"]
# Short timeouts: the broken bots make the checker wait for them.
FAST = CheckSettings(game="battleline", connect_timeout=30, answer_timeout=1.0,
                     reconnect_timeout=3.0, seed=5)


def verdicts(report: Report) -> dict[str, bool | None]:
    return {r.name: r.passed for r in report.results}


def detail(report: Report, name: str) -> str:
    return next(r.detail for r in report.results if r.name == name)


async def test_python_random_bot_over_msgpack_passes_every_check() -> None:
    command = [str(ARENA), "bot", "random", "--game", "{game}", "--server", "{server}",
               "--token", "{token}", "--encoding", "msgpack", "--log-level", "warning"]
    report = await check_bot(command, CheckSettings(game="battleline", seed=4))
    assert verdicts(report) == dict.fromkeys(CHECKS, True), report.text()
    assert report.passed
    text = report.text()
    assert "PASS ordinary turns: answered" in text and "0 errors" in text
    assert "PASS reconnect: resumed its session" in text
    assert text.endswith("6 of 6 checks passed")
    # The placeholders were filled in: the bot played as the checked account.
    assert "as checked-bot (bot)" in detail(report, "connect")


async def test_a_bot_answering_with_a_wrong_request_id_fails_its_turns() -> None:
    report = await check_bot([*BROKEN, "wrong-id"], FAST)
    found = verdicts(report)
    assert found["connect"] is True
    for name in ("ordinary turns", "stale request", "reconnect", "clock running low"):
        assert found[name] is False, report.text()
    assert "no answer to request" in detail(report, "ordinary turns")
    assert "stale_request" in detail(report, "ordinary turns")
    assert "ran out of time" in detail(report, "clock running low")
    assert not report.passed
    assert "FAIL ordinary turns: " in report.text()


async def test_a_bot_that_does_not_resume_fails_only_the_reconnect() -> None:
    report = await check_bot([*BROKEN, "no-resume"], FAST)
    expected = dict.fromkeys(CHECKS, True)
    expected["reconnect"] = False
    assert verdicts(report) == expected, report.text()
    assert "said hello without resume" in detail(report, "reconnect")
    # It answers a re-delivered old request again; the server refuses it, no harm done.
    assert "answered the stale copy too (refused as stale_request" in \
        detail(report, "stale request")


def test_the_command_reports_a_bot_that_exits_and_fails_with_status_1() -> None:
    done = subprocess.run(
        [str(ARENA), "check-bot", "--game", "battleline", "--connect-timeout", "20", "--",
         *BROKEN, "crash"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "FAIL connect: the bot process exited with status 3"
    assert [line.split(":")[0] for line in lines[2:7]] == [f"SKIP {n}" for n in CHECKS[1:]]
    assert "0 of 6 checks passed" in lines
    assert "  | broken bot: giving up at once" in lines


def test_the_command_needs_a_bot_command() -> None:
    done = subprocess.run([str(ARENA), "check-bot", "--game", "battleline"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "give the bot's command after --" in done.stderr


async def test_a_bot_that_ignores_its_token_is_told_so() -> None:
    report = await check_bot([*BROKEN, "guest"], FAST)
    assert report.results[0].passed is False
    assert "logged in as 'anon#" in detail(report, "connect")
    assert "not with the token in ARENA_TOKEN" in detail(report, "connect")
    assert all(r.passed is None for r in report.results[1:])


async def test_the_barca_agent_passes_every_check_on_barca() -> None:
    """check-bot drives Barca too: the house agent (depth 2, 1 s budget) passes all six."""
    command = [str(ARENA), "bot", "barca", "--game", "{game}", "--server", "{server}",
               "--token", "{token}", "--option", "depth=2", "--option", "time_budget_s=1",
               "--log-level", "warning"]
    report = await check_bot(command, CheckSettings(game="barca", seed=4))
    assert verdicts(report) == dict.fromkeys(CHECKS, True), report.text()
    assert report.text().endswith("6 of 6 checks passed")


# ---- Boundary: requests carry an action space, turns are simultaneous, a missed deadline
# plays the default action (the empty plan) instead of losing --------------------------------

BOUNDARY_FAST = CheckSettings(game="boundary", connect_timeout=30, answer_timeout=1.0,
                              reconnect_timeout=3.0, low_clock_ms=500,
                              low_clock_increment_ms=20, seed=6)


# The adaptive agent's lookahead capped at 0.2 s a turn (``arena bot adaptive --option
# time_budget_s=0.2``; it still simulates what fits in the cap): the checks judge how it plays
# the protocol, not how well it plays, and its uncapped search made this check take 44 s.
@pytest.mark.parametrize("bot,options", [("random", []),
                                         ("adaptive", ["--option", "time_budget_s=0.2"])],
                         ids=["random", "adaptive"])
async def test_the_random_bot_and_the_adaptive_agent_pass_every_check_on_boundary(
        bot: str, options: list[str]) -> None:
    command = [str(ARENA), "bot", bot, "--game", "{game}", "--server", "{server}",
               "--token", "{token}", "--log-level", "warning", *options]
    report = await check_bot(command, CheckSettings(game="boundary", seed=4))
    assert verdicts(report) == dict.fromkeys(CHECKS, True), report.text()
    # Every answer judged by the engine: in the request's action space, and legal.
    assert detail(report, "ordinary turns").endswith(
        "every answer a value of its action space that the rules accept")
    assert "nothing sent after match_end" in detail(report, "match end")
    assert report.text().endswith("6 of 6 checks passed")


async def test_a_boundary_bot_that_ignores_the_reach_fails_its_turns() -> None:
    report = await check_bot([*BROKEN, "off-reach"], BOUNDARY_FAST)
    found = verdicts(report)
    assert found["connect"] is True
    for name in ("ordinary turns", "stale request", "reconnect", "clock running low"):
        assert found[name] is False, report.text()
    ordinary = detail(report, "ordinary turns")
    assert "the engine refuses its answer to request" in ordinary, ordinary
    assert "illegal (out_of_reach)" in ordinary
    assert "illegal_action" in ordinary  # and the server refused it too
    # On the low clock every plan is refused and then the deadline passes: the server plays
    # the empty plan for it each turn.
    assert re.search(r"it missed \d+ deadline\(s\): the server played the default action",
                     detail(report, "clock running low"))


async def test_a_boundary_bot_too_slow_for_its_clock_misses_a_deadline() -> None:
    # Its first answer in each match takes 1.5 s: fine on 120 s, not on a 1 s bank, where
    # the server plays the empty plan for it (the match goes on, unlike a timeout loss).
    settings = CheckSettings(game="boundary", answer_timeout=5.0, reconnect_timeout=5.0,
                             low_clock_ms=1000, seed=7)
    report = await check_bot([*BROKEN, "slow-start"], settings)
    expected = dict.fromkeys(CHECKS, True)
    expected["clock running low"] = False
    assert verdicts(report) == expected, report.text()
    low = detail(report, "clock running low")
    assert re.search(r"it missed \d+ deadline\(s\): the server played the default action for it",
                     low), low
    assert "1000 ms bank" in low


async def test_deadlines_lost_on_the_checkers_side_are_not_blamed_on_the_bot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The server, the relay and the checker share one process; on a loaded machine it can
    be the one that is late. Here the relay holds the bot's first two answers in the
    low-clock match past their deadlines (the bot itself answered in milliseconds): the
    server plays the default for it, and the late answers draw errors, but the check passes
    and says where the time went. A bot that is itself slow still fails (the test above)."""
    from tools.checkbot import relay as relay_module

    held: list[str] = []
    init = relay_module.Relay.__init__

    def patched_init(self: relay_module.Relay, url: str) -> None:
        init(self, url)

        def hold(conn: int, message: dict) -> float:
            rid = message.get("request_id")
            if message.get("type") != "action" or not isinstance(rid, str) or \
                    len(held) >= 2 or rid in held:
                return 0.0
            asked = [r.message for r in self.records
                     if r.to_bot and r.message.get("request_id") == rid
                     and r.message.get("type") == "request"]
            deadline = asked[0].get("deadline_ms") if asked else None
            if not isinstance(deadline, int) or deadline > 1000:
                return 0.0
            held.append(rid)
            return deadline / 1000 + 0.4

        self.hold = hold

    monkeypatch.setattr(relay_module.Relay, "__init__", patched_init)
    command = [str(ARENA), "bot", "random", "--game", "{game}", "--server", "{server}",
               "--token", "{token}", "--log-level", "warning"]
    settings = CheckSettings(game="boundary", answer_timeout=5.0, reconnect_timeout=5.0,
                             low_clock_ms=1000, seed=7)
    report = await check_bot(command, settings)
    assert len(held) == 2
    assert verdicts(report) == dict.fromkeys(CHECKS, True), report.text()
    low = detail(report, "clock running low")
    assert "2 deadline(s) missed on the checker's side, not the bot's" in low, low
