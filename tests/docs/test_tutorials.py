"""The first-bot tutorials are executed as written (tests/docs/tutorial.py says how): every
marked command runs, in order, in an empty directory, against the real server and the real
bots, and what they print must match the output the text shows. The docs cannot drift."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.clients_js.node_kit import ensure_node_kit
from tests.docs.tutorial import Step, missing_output, run_tutorial, steps

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
TUTORIALS = ["first-bot-python.md", "first-bot-javascript.md"]


def reader_env() -> dict[str, str]:
    """What section 0 of a tutorial sets up: the virtualenv active, ARENA_REPO set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = venv_bin + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = str(Path(venv_bin).parent)
    env["ARENA_REPO"] = str(ROOT)
    env.pop("PYTHONPATH", None)
    return env


def test_markers_are_well_formed() -> None:
    for name in TUTORIALS:
        found = steps((DOCS / name).read_text(encoding="utf-8"))
        kinds = [s.kind for s in found]
        assert kinds.count("run") >= 4 and "file" in kinds and "output" in kinds, name
        for index, step in enumerate(found):
            if step.kind == "output":  # an output block follows the block that prints it
                assert found[index - 1].kind == "run", f"{name}:{step.line}"


@pytest.mark.parametrize("name", TUTORIALS)
def test_tutorial_runs_as_written(name: str, tmp_path: Path) -> None:
    if "javascript" in name:
        ensure_node_kit()  # the npm cache then serves the tutorial's own npm install
    markdown = (DOCS / name).read_text(encoding="utf-8")
    all_steps, run = run_tutorial(markdown, tmp_path, reader_env())
    logs = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
                     for p in sorted(tmp_path.rglob("*.log")))
    context = f"stdout:\n{run.stdout[-6000:]}\nstderr:\n{run.stderr[-4000:]}\n{logs}"
    assert run.returncode == 0, context
    last_run: int | None = None
    checked = 0
    for number, step in enumerate(all_steps):
        if step.kind == "run":
            last_run = number
            assert number in run.outputs, f"step at line {step.line} did not finish\n{context}"
        elif step.kind == "output":
            assert last_run is not None
            missing = missing_output(step.text, run.outputs[last_run], run.port)
            assert not missing, (f"output block at line {step.line} not printed:\n"
                                 + "\n".join(missing) + f"\n{context}")
            checked += 1
    assert checked >= 2


def test_output_matching_is_strict() -> None:
    # The matcher itself: "…" is a wildcard, everything else literal, order matters.
    printed = "log line\nmatch 3f ended: ranks [0, 1] (breakthrough)\n6 of 6 checks passed"
    assert missing_output("match … ended: ranks […] (…)\n6 of 6 checks passed", printed) == []
    assert missing_output("6 of 6 checks passed\nmatch … ended: …", printed) == \
        ["match … ended: …"]
    assert missing_output("5 of 6 checks passed", printed) == ["5 of 6 checks passed"]
    assert steps("<!-- tutorial: file a.py -->\n```python\nx = 1\n```\n") == \
        [Step("file", "x = 1\n", "a.py", 2)]
