"""``npm test`` in clients/js is part of ``make test``: the Node.js kit's own tests (node's
built-in runner) start a real ``arena serve`` and play against real bots."""

from __future__ import annotations

import os
import shutil
import subprocess

from tests.clients_js.node_kit import ARENA, ensure_node_kit


def test_npm_test_passes() -> None:
    kit = ensure_node_kit()
    npm = shutil.which("npm")
    assert npm is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_BIN"] = str(ARENA)
    done = subprocess.run([npm, "test", "--silent"], cwd=kit, env=env, capture_output=True,
                          text=True, timeout=300)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-8000:]
    assert "# fail 0" in report and "# pass " in report, report[-8000:]
    passed = int(report.split("# pass ", 1)[1].split()[0])
    assert passed >= 9, report[-8000:]
