"""Run a Markdown tutorial's marked steps, the way python-chess tests its README.

Markers are HTML comments (invisible when rendered) right before a fenced block:

* ``<!-- tutorial: run -->`` before a ```` ```sh ```` block: run it;
* ``<!-- tutorial: file NAME -->`` before any block: write its content to ``NAME`` (relative
  to the directory the steps are in at that point);
* ``<!-- tutorial: output -->`` before a ```` ```text ```` block: each of its lines must match
  a line the previous ``run`` block printed on stdout, in order; ``…`` matches anything.

All steps run as ONE bash script (``set -euo pipefail``), in order, in a fresh directory, so
variables, ``cd`` and background jobs carry over as they would in the reader's terminal. The
only change to the text: the port ``8765`` becomes a free one.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

MARKER = re.compile(r"<!--\s*tutorial:\s*(run|file|output)\s*([^>]*?)\s*-->")
FENCE = re.compile(r"^```(\S*)\s*$")
DOC_PORT = "8765"
SPLIT = "@@tutorial-step-done@@"


@dataclass
class Step:
    kind: str          # "run" | "file" | "output"
    text: str
    arg: str = ""      # the file name for "file"
    line: int = 0      # where the block starts in the document


def steps(markdown: str) -> list[Step]:
    """The marked blocks of a document, in order."""
    lines = markdown.splitlines()
    found: list[Step] = []
    i = 0
    while i < len(lines):
        marker = MARKER.fullmatch(lines[i].strip())
        if marker is None:
            i += 1
            continue
        kind, arg = marker.group(1), marker.group(2)
        j = i + 1
        if j >= len(lines) or FENCE.match(lines[j]) is None:
            raise ValueError(f"line {i + 1}: a tutorial marker must be followed by a fence")
        end = j + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        found.append(Step(kind, "\n".join(lines[j + 1:end]) + "\n", arg, j + 1))
        i = end + 1
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_script(all_steps: list[Step], port: int) -> str:
    parts = ["set -euo pipefail"]
    for number, step in enumerate(all_steps):
        text = step.text.replace(DOC_PORT, str(port))
        if step.kind == "run":
            parts.append(text)
            parts.append(f"echo '{SPLIT}{number}'")
        elif step.kind == "file":
            eof = "TUTORIAL_FILE_END"
            assert eof not in text
            parts.append(f"cat > '{step.arg}' <<'{eof}'\n{text}{eof}")
    return "\n".join(parts) + "\n"


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[int, str]   # step number of a run block -> what it printed
    port: int                 # what 8765 became


def run_tutorial(markdown: str, workdir: Path, env: dict[str, str], timeout: float = 240
                 ) -> tuple[list[Step], Run]:
    all_steps = steps(markdown)
    port = free_port()
    script = build_script(all_steps, port)
    process = subprocess.Popen(["bash", "-c", script], cwd=workdir, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        stderr += f"\n[tutorial timed out after {timeout} s]"
    finally:
        # Background jobs the text left running (none, if it cleans up after itself).
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    outputs: dict[int, str] = {}
    chunk: list[str] = []
    for line in stdout.splitlines():
        if line.startswith(SPLIT):
            outputs[int(line[len(SPLIT):])] = "\n".join(chunk)
            chunk = []
        else:
            chunk.append(line)
    return all_steps, Run(process.returncode if process.returncode is not None else -1,
                          stdout, stderr, outputs, port)


def expected_pattern(line: str, port: int | None = None) -> re.Pattern[str]:
    text = line.strip() if port is None else line.strip().replace(DOC_PORT, str(port))
    return re.compile(".*".join(re.escape(part) for part in text.split("…")))


def missing_output(expected: str, printed: str, port: int | None = None) -> list[str]:
    """The expected lines (``…`` = anything; the port 8765 read as ``port``) not found in
    ``printed``, in order."""
    printed_lines = [line.strip() for line in printed.splitlines()]
    missing = []
    position = 0
    for line in expected.strip().splitlines():
        pattern = expected_pattern(line, port)
        for index in range(position, len(printed_lines)):
            if pattern.fullmatch(printed_lines[index]):
                position = index + 1
                break
        else:
            missing.append(line)
    return missing
