"""The import arrows of DESIGN.md, enforced on the source tree.

clients/ -> protocol/ ; server/ -> protocol/, engine/ ; bots/ -> clients/, engine/ ;
protocol/ -> nothing of ours ; engine/ -> nothing of ours, standard library only.
``server/commands/`` and ``server/cli.py`` are the composition root (the ``arena`` program
starts servers, bots and benchmarks) and may import any layer.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("engine", "protocol", "server", "bots", "clients")
ALLOWED = {
    "engine": set(),
    "protocol": set(),
    "server": {"protocol", "engine"},
    "bots": {"clients", "engine", "protocol"},
    "clients": {"protocol"},
}
COMPOSITION_ROOT = ("server/commands/", "server/cli.py")


def imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def python_files(layer: str) -> list[Path]:
    return sorted(p for p in (ROOT / layer).rglob("*.py") if "node_modules" not in p.parts)


@pytest.mark.parametrize("layer", LAYERS)
def test_layer_imports_only_what_the_arrows_allow(layer: str) -> None:
    bad = []
    for path in python_files(layer):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(COMPOSITION_ROOT):
            continue
        for name in imported_top_levels(path):
            if name in LAYERS and name != layer and name not in ALLOWED[layer]:
                bad.append(f"{rel} imports {name}")
    assert not bad, "layering violated:\n" + "\n".join(bad)


def test_engine_uses_only_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names) | {"engine", "__future__"}
    bad = []
    for path in python_files("engine"):
        for name in imported_top_levels(path):
            if name not in stdlib:
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, "engine/ must use the standard library only:\n" + "\n".join(bad)


def test_engine_has_no_clock_or_global_randomness() -> None:
    bad = []
    for path in python_files("engine"):
        names = imported_top_levels(path)
        for forbidden in ("random", "time", "datetime", "secrets", "os", "socket", "asyncio"):
            if forbidden in names:
                bad.append(f"{path.relative_to(ROOT)} imports {forbidden}")
    assert not bad, "\n".join(bad)
