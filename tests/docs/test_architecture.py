"""docs/architecture.md maps server/ module by module: the map names every module there is,
and its sans-I/O table is exactly the set the layer test guards."""

from __future__ import annotations

import re
from pathlib import Path

from test_layers import SERVER_SANS_IO

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"


def tables() -> list[list[set[str]]]:
    """Each markdown table of the page: per row, the names in backticks of its first cell."""
    out: list[list[set[str]]] = []
    rows: list[set[str]] = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            first = line.split("|")[1]
            if not set(first.strip()) <= {"-"} and first.strip() != "module":
                rows.append(set(re.findall(r"`([^`]+)`", first)))
        elif rows:
            out.append(rows)
            rows = []
    if rows:
        out.append(rows)
    return out


def test_every_server_module_is_on_the_map_and_nothing_else() -> None:
    named = set().union(*(row for table in tables() for row in table))
    actual = {p.name for p in (ROOT / "server").glob("*.py") if p.name != "__init__.py"}
    actual |= {p.name + "/" for p in (ROOT / "server").iterdir()
               if p.is_dir() and (p / "__init__.py").is_file()}
    assert named == actual


def test_the_sans_io_table_is_what_the_layer_test_guards() -> None:
    sans_io = set().union(*tables()[0])
    assert sans_io == {f"{name}.py" for name in SERVER_SANS_IO}
