"""The hub keeps ``server/`` free of import cycles, and services plug in through it.

The import graph is read from the source with ``ast``: every ``import`` and ``from … import``
anywhere in a module counts, those under ``if TYPE_CHECKING:`` and inside functions too (a
cycle hidden from the interpreter is still a tangle for a reader).
"""

from __future__ import annotations

import ast
import asyncio
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from server.app import ArenaServer
from server.hub import Hub, MatchHandle
from server.storage import SqliteStore
from tests.server_tests.wsclient import WsClient

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGE = "server"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules of ``server/`` that the module ``name`` (file ``path``) imports."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[:len(name.split(".")) - node.level + is_package]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from server import http`` imports the module server.http.
            targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in (ROOT / PACKAGE).rglob("*.py")}
    modules = set(files)
    return {name: imports_of(path, name, modules) for name, path in files.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path ``[a, b, …, a]``, or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle is not None:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle is not None:
                return cycle
    return None


def test_server_has_no_import_cycle() -> None:
    graph = import_graph()
    assert "server.app" in graph and "server.ladder" in graph  # the walk found the package
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in server/: " + " -> ".join(cycle or [])


def test_services_do_not_import_the_server() -> None:
    graph = import_graph()
    for service in ("server.ladder", "server.http", "server.api", "server.hub"):
        assert "server.app" not in graph[service], f"{service} imports server.app"


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """A graph with a cycle has one; an import under ``TYPE_CHECKING``, a relative import
    and ``from package import module`` are all edges."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import TYPE_CHECKING\nfrom . import hub\n"
                     "from server import http\nif TYPE_CHECKING:\n"
                     "    from server.app import ArenaServer\n", encoding="utf-8")
    modules = {"server", "server.app", "server.hub", "server.http", "server.probe"}
    assert imports_of(probe, "server.probe", modules) == {
        "server", "server.app", "server.hub", "server.http"}


class _Echo:
    """A service made from the hub: one route, one match-end callback, a lifecycle."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.ended: list[MatchHandle] = []
        self.started = self.closed = False
        hub.add_route("/api/echo", self.route, subtree=True)
        hub.on_match_end(self.ended.append)

    async def route(self, path: str) -> tuple[int, Any]:
        return 200, {"path": path, "live": len(self.hub.match_summaries())}

    async def start(self) -> None:
        self.started = True

    async def close(self) -> None:
        self.closed = True


async def test_a_service_plugs_in_through_the_hub(store: SqliteStore) -> None:
    """A service given to the server is started, serves its route, hears a match end
    (over a real socket, with real clients), and is closed; a second handler or route
    for a taken name is refused."""
    made: list[_Echo] = []

    def make(hub: Hub) -> _Echo:
        made.append(_Echo(hub))
        return made[-1]

    server = ArenaServer(store, services=[make])
    await server.start("127.0.0.1", 0)
    try:
        (echo,) = made
        assert echo.started
        body = await asyncio.to_thread(_get_json, server.http_url + "/api/echo/x?y=1")
        assert body == {"path": "/api/echo/x", "live": 0}
        with pytest.raises(ValueError):
            server.add_route("/api/echo", echo.route)
        with pytest.raises(ValueError):
            server.add_handlers({"ladder_join": lambda conn, session, msg: None})

        a, b = await WsClient.open(server.ws_url), await WsClient.open(server.ws_url)
        await a.hello(name="a")
        welcome = await b.hello(name="b")
        ref = await a.send({"type": "challenge", "accounts": [welcome["account"]["name"]],
                            "game": "race"})
        challenge_id = (await a.expect_reply(ref))["challenge_id"]
        await b.expect("challenge")
        await b.send({"type": "accept", "challenge_id": challenge_id})
        match_id = (await a.expect("match_start"))["match_id"]
        await a.send({"type": "resign", "match_id": match_id})
        await a.expect("match_end", match_id=match_id)
        assert [m.match_id for m in echo.ended] == [match_id]
        assert echo.ended[0].is_over and echo.ended[0].status == "over"
        assert echo.ended[0].ended_at is not None
        assert server.find_match(match_id) is echo.ended[0]
        await a.close()
        await b.close()
    finally:
        await server.close()
    assert echo.closed


def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())
