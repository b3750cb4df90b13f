"""The resumable JSON-lines logs of the tuners: a header line (the log's format and the
settings it was written with), then one record per line, appended as work finishes.

A run killed mid-write leaves a torn last line: :func:`read_records` cuts the file back to
whole lines before reading, so the same command resumes where the log left off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class LogMismatch(ValueError):
    """An existing log was written with other settings (or is not this tuner's log)."""


def read_records(path: Path, log_format: str, identity: Any, command: str
                 ) -> list[dict[str, Any]] | None:
    """The records after the header (``None`` when there is no log yet). Drops a torn last
    line; raises :class:`LogMismatch` when the header is not ``log_format`` with settings
    ``identity`` (``command`` names the tuner in the message)."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if lines and lines[-1] != "":  # torn last line: cut the file back to whole lines
        keep = text[: text.rfind("\n") + 1] if "\n" in text else ""
        path.write_text(keep, encoding="utf-8")
        lines = keep.split("\n")
    records = [json.loads(line) for line in lines if line]
    if not records:
        return None
    header = records[0]
    if header.get("format") != log_format:
        raise LogMismatch(f"{path} is not an `{command}` log")
    if header.get("settings") != identity:
        raise LogMismatch(
            f"{path} was written with other settings: {header.get('settings')} (now "
            f"{identity}); use another --log or the same settings")
    return records[1:]


def append(path: Path, record: Any) -> None:
    """One record as one line, flushed (a kill loses at most the line being written)."""
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
