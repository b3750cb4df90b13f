"""``arena run`` (the main job) puts its house bots on the ladder: a real ``arena run``
process on a temporary SQLite file shows rated ladder matches at ``/api/ladder/<game>``
within its first minute, while its bots still take autoplay matches."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
WAIT_S = 120.0  # generous: the machine is shared; the ladder's first matches start in seconds


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def test_the_main_job_ladder_has_rated_matches_soon(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    job = subprocess.Popen(
        [sys.executable, "-m", "tools.cli", "run", "--port", "0",
         "--db", str(tmp_path / "arena.sqlite3"), "--log-level", "warning",
         "--house-bots", "random,random", "--bot-games", "battleline",
         "--bot-matches", "2", "--ladder-matches", "1"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert job.stdout is not None
        line = job.stdout.readline()
        found = re.search(r"serving on (http://\S+)", line)
        assert found, line
        base = found.group(1)
        deadline = time.monotonic() + WAIT_S
        ladder: dict[str, Any] = {}
        while time.monotonic() < deadline:
            ladder = get(f"{base}/api/ladder/battleline")
            if any(m["status"] == "rated" for m in ladder["matches"]):
                break
            time.sleep(0.5)
        rated = [m for m in ladder["matches"] if m["status"] == "rated"]
        assert rated, ladder
        accounts = {seat["account"] for seat in rated[0]["seats"]}
        assert accounts == {"house-random-1", "house-random-2"}
        assert {e["account"] for e in ladder["leaderboard"]} == accounts
        # the cap of the ladder's pair grows with its bots: max(12, 4 × 2)
        assert ladder["pair_cap_per_hour"] == 12 and ladder["pair_cap_per_bot"] == 4
    finally:
        job.send_signal(signal.SIGTERM)
        job.wait(timeout=60)
    assert job.returncode == 0
