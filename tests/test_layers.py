"""The import arrows of DESIGN.md, enforced on the source tree with no exemptions.

::

    tools/   -> every layer (the composition root of the ``arena`` commands)
    server/  -> protocol/, engine/
    clients/ -> protocol/
    bots/    -> engine/
    protocol/, engine/ -> nothing of ours

Every import counts: at module level, inside functions, and under ``if TYPE_CHECKING:``. A
string constant that names one of our modules (``"server.commands.serve"``,
``"bots.random_bot:RandomBot"``: a registry entry that something hands to ``importlib``) is
resolved and counts as an import too, so an arrow cannot hide in a string; it must name a
module that exists.

Beyond the arrows: the sans-I/O modules inside ``server/`` import no asyncio, websockets,
sqlite3 or other I/O machinery, nor the server modules that do I/O; ``protocol/`` does no I/O
at all; ``engine/`` uses the standard library only (NumPy in Boundary, the one game whose rules
are a numeric field; NumPy, Gymnasium and PettingZoo in ``engine/envs``, the adapter to RL
libraries that the rules never import), with no clock and no global randomness.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("engine", "protocol", "server", "bots", "clients", "tools")
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "protocol": set(),
    "server": {"protocol", "engine"},
    "bots": {"engine"},
    "clients": {"protocol"},
    "tools": set(LAYERS),
}
MODULE_STRING = re.compile(
    r"^(?:" + "|".join(LAYERS) + r")(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*)?$")

IO_MODULES = {"asyncio", "websockets", "sqlite3", "socket", "selectors", "ssl", "threading",
              "subprocess", "multiprocessing", "http", "urllib", "queue", "aiohttp",
              "asyncpg", "redis"}
SERVER_SANS_IO = ("audience", "clocks", "games", "ladder_book", "lobby", "ratings", "render",
                  "runner", "scheduler", "sessions", "tournaments")
"""Modules of ``server/`` that decide without doing I/O (DESIGN.md's sans-I/O core): they may
import each other, ``engine/``, ``protocol/`` and pure libraries, never I/O."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, name: str | None = None) -> set[str]:
    """Every module ``path`` (module ``name``, by default its place under the root) imports:
    absolute names, relative imports resolved, plus the modules its string constants name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                names.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module:
                names.add(node.module)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and MODULE_STRING.match(node.value)):
            names.add(node.value.partition(":")[0])
    return names


def python_files(layer: str) -> list[Path]:
    return sorted(p for p in (ROOT / layer).rglob("*.py") if "node_modules" not in p.parts)


def module_exists(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


@pytest.mark.parametrize("layer", LAYERS)
def test_layer_imports_only_what_the_arrows_allow(layer: str) -> None:
    bad = []
    for path in python_files(layer):
        rel = path.relative_to(ROOT).as_posix()
        for name in sorted(imported_modules(path)):
            top = name.split(".")[0]
            if top in LAYERS and top != layer and top not in ALLOWED[layer]:
                bad.append(f"{rel} imports {name}")
    assert not bad, "layering violated:\n" + "\n".join(bad)


@pytest.mark.parametrize("layer", LAYERS)
def test_every_module_named_in_a_string_exists(layer: str) -> None:
    """A registry string (``"tools.commands.run"``) that names no module would only fail
    when someone picks that entry; here it fails at once."""
    missing = []
    for path in python_files(layer):
        for name in sorted(imported_modules(path)):
            if name.split(".")[0] in LAYERS and not module_exists(name):
                # ``from pkg import name`` records ``pkg``, which exists; a miss here is a
                # module path (an import or a string) that names nothing.
                missing.append(f"{path.relative_to(ROOT)} names {name}")
    assert not missing, "\n".join(missing)


def test_server_sans_io_modules_do_no_io() -> None:
    io_in_server = {module_name(p) for p in python_files("server")} - {
        f"server.{m}" for m in SERVER_SANS_IO} - {"server"}
    bad = []
    for name in SERVER_SANS_IO:
        path = ROOT / "server" / f"{name}.py"
        assert path.is_file(), f"server/{name}.py is listed as sans-I/O but does not exist"
        for imported in sorted(imported_modules(path)):
            if imported.split(".")[0] in IO_MODULES or imported in io_in_server or any(
                    imported.startswith(m + ".") for m in io_in_server):
                bad.append(f"server/{name}.py imports {imported}")
    assert not bad, "sans-I/O modules must not do I/O:\n" + "\n".join(bad)


def test_protocol_does_no_io() -> None:
    bad = []
    for path in python_files("protocol"):
        rel = path.relative_to(ROOT).as_posix()
        for imported in sorted(imported_modules(path)):
            if imported.split(".")[0] in IO_MODULES | {"os", "sys", "pathlib", "io"}:
                bad.append(f"{rel} imports {imported}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in {"open", "print", "input"}):
                bad.append(f"{rel}:{node.lineno} calls {node.func.id}()")
    assert not bad, "protocol/ must do no I/O:\n" + "\n".join(bad)


NUMERIC_GAMES = {"boundary"}
"""Games whose rules are a numeric field (DESIGN.md): they alone may use NumPy."""

RL_ADAPTER = "envs"
RL_LIBRARIES = {"numpy", "gymnasium", "pettingzoo"}
"""``engine/envs/`` is the engine's adapter to reinforcement-learning libraries: every game as
a PettingZoo and a Gymnasium environment. Speaking those libraries' types (spaces, NumPy
observations) is its whole job, so it alone may import them; the rules themselves never
import it (:func:`test_the_rules_do_not_depend_on_the_rl_adapter`), so the engine still
plays, serves and replays with the standard library only. Its one brush with entropy is
Gymnasium's convention: an env reset without ever being given a seed draws one from the OS;
every seeded episode is deterministic."""


def test_engine_uses_only_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names) | {"engine", "__future__"}
    bad = []
    for path in python_files("engine"):
        parts = path.relative_to(ROOT / "engine").parts
        allowed = stdlib | ({"numpy"} if len(parts) > 1 and parts[0] in NUMERIC_GAMES else set())
        if len(parts) > 1 and parts[0] == RL_ADAPTER:
            allowed |= RL_LIBRARIES
        for name in imported_modules(path):
            if name.split(".")[0] not in allowed:
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, ("engine/ must use the standard library only (NumPy only in "
                     f"{', '.join(sorted(NUMERIC_GAMES))}; the RL libraries only in "
                     f"engine/{RL_ADAPTER}):\n" + "\n".join(bad))


def test_the_rules_do_not_depend_on_the_rl_adapter() -> None:
    bad = []
    for path in python_files("engine"):
        if path.relative_to(ROOT / "engine").parts[0] == RL_ADAPTER:
            continue
        for name in imported_modules(path):
            if name == f"engine.{RL_ADAPTER}" or name.startswith(f"engine.{RL_ADAPTER}."):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, "\n".join(bad)


def test_engine_has_no_clock_or_global_randomness() -> None:
    bad = []
    for path in python_files("engine"):
        names = {name.split(".")[0] for name in imported_modules(path)}
        for forbidden in ("random", "time", "datetime", "secrets", "os", "socket", "asyncio"):
            if forbidden in names:
                bad.append(f"{path.relative_to(ROOT)} imports {forbidden}")
    assert not bad, "\n".join(bad)


def test_the_checks_see_what_they_claim(tmp_path: Path) -> None:
    """The walker itself: imports in functions and under TYPE_CHECKING, relative imports and
    registry strings all count."""
    sample = tmp_path / "probe.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from tools import cli\n"
        "def f():\n    import bots.random_bot\n"
        "from .render import Clock\n"
        "REGISTRY = {'x': 'clients.runner:BotRunner'}\n", encoding="utf-8")
    names = imported_modules(sample, "server.probe")
    assert {"tools", "bots.random_bot", "server.render", "clients.runner"} <= names
