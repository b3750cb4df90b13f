"""`arena bench server --lean`: the load generator's bots ask for lean delivery, get no
events frames, and the run still counts actions, matches and round trips (an action to the
next request of its match). Structure only, never speed."""

from __future__ import annotations

import json

import pytest

from tools import cli


def test_server_bench_lean_quick_run(capsys: pytest.CaptureFixture[str]) -> None:
    game = "battleline"
    assert cli.main(["bench", "server", "--quick", "--lean", "--game", game, "--matches", "2",
                     "--no-baselines", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in report["results"]]
    assert names[1:] == [f"{game} json lean, 2 matches: actions",
                         f"{game} json lean, 2 matches: matches"]
    assert report["results"][1]["details"]["lean"] is True
    (row,) = report["settings"]["round_trip_ms"]
    assert row["name"] == f"{game} json lean, 2 matches"
    assert row["errors"] == 0 and row["samples"] > 0 and row["rate"] > 0
