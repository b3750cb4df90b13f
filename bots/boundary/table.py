"""The adaptive agent's counter tables: by name (``thesis``, ``tuned``) or from a file that
``arena tune boundary`` wrote.

A table file is JSON: ``{"table": {opponent: reply, ...}, "opening": name, "thesis_turns":
false, "prediction": {"GC": "inertia", ...}, ...}``; other keys (the win rates it was built
from, its provenance) are kept for people and ignored here.
"""

from __future__ import annotations

import json
from pathlib import Path

from bots.boundary.adaptive import Settings

TABLES = Path(__file__).resolve().parent / "tables"
NAMED = ("thesis", "tuned")


def table_path(name: str) -> Path:
    return TABLES / f"{name}.json"


def load_settings(table: str | Path) -> Settings:
    """``"thesis"``: §11.3 as the rule book gives it; ``"tuned"``: the shipped table; else a
    path. Raises ``ValueError`` with the reason for a file that is not a table."""
    if str(table) == "thesis":
        return Settings.thesis()
    path = table_path(str(table)) if str(table) in NAMED else Path(table)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"no counter table at {path}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    if not isinstance(data, dict) or "table" not in data:
        raise ValueError(f"{path} has no table (opponent → reply)")
    return Settings.from_json(data)
