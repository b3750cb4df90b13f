"""The real services tests run against (:mod:`tools.services`): PostgreSQL served by an
unprivileged user on loopback only, Redis started and stopped from sync and async code, and
Debian packages found without apt when they are there (and a loud error when they cannot be
installed)."""

from __future__ import annotations

import os
import pwd
import shutil
from pathlib import Path

import pytest
import redis
import redis.asyncio

from tools import services
from tools.services import (
    PackageUnavailable,
    PostgresServer,
    RedisServer,
    ensure_debian_package,
    find_binary,
)


def process_user(pid: int) -> str:
    uid = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text()
               .splitlines() if line.startswith("Uid:"))
    return pwd.getpwuid(uid).pw_name


def listening_addresses(port: int) -> set[str]:
    """The local addresses with a TCP socket listening on ``port`` (from /proc/net/tcp*)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port_hex = local.split(":")
            if state == "0A" and int(port_hex, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def test_postgres_runs_unprivileged_on_loopback_only(postgres_server: PostgresServer) -> None:
    process = postgres_server._process
    assert process is not None and process.poll() is None
    if os.geteuid() == 0:
        assert process_user(process.pid) != "root"
    assert listening_addresses(postgres_server.port) == {"0100007F"}  # 127.0.0.1 only
    assert postgres_server.dsn.startswith(f"postgresql://postgres@127.0.0.1:"
                                          f"{postgres_server.port}/")
    with pytest.raises(ValueError):
        postgres_server.create_database('x"; DROP DATABASE postgres; --')


def test_a_postgres_server_stops_and_leaves_nothing(postgres_server: PostgresServer) -> None:
    with PostgresServer() as server:
        folder, process = server.folder, server._process
        dsn = server.create_database("scratch")
        assert dsn.endswith("/scratch")
        server.drop_database("scratch")
    assert folder is not None and not folder.exists()
    assert process is not None and process.poll() is not None
    assert postgres_server._process is not None and postgres_server._process.poll() is None


def test_redis_starts_answers_and_stops() -> None:
    with RedisServer() as server:
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
        client = redis.Redis.from_url(server.url)
        try:
            client.set("k", "v")
            assert client.get("k") == b"v"
            assert client.config_get("save") == {"save": ""}
            assert client.config_get("appendonly") == {"appendonly": "no"}
        finally:
            client.close()
        folder, process = server.folder, server._process
    assert folder is not None and not folder.exists()
    assert process is not None and process.poll() is not None


async def test_redis_from_an_async_test() -> None:
    async with RedisServer() as server:
        client = redis.asyncio.Redis.from_url(server.url)
        try:
            assert await client.ping()
        finally:
            await client.aclose()
    assert server.folder is None


def test_a_present_binary_is_found_without_apt(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_apt(*args: object, **kwargs: object) -> None:
        raise AssertionError("apt-get ran for a binary that is there")

    monkeypatch.setattr(services.subprocess, "run", no_apt)
    assert ensure_debian_package("sh", "dash") == shutil.which("sh")
    postgres = ensure_debian_package("postgres", "postgresql")  # not on PATH in Debian
    assert os.path.basename(postgres) == "postgres" and os.access(postgres, os.X_OK)
    assert find_binary("/bin/sh") == "/bin/sh" and find_binary("/nowhere/x") is None


def test_a_missing_package_without_apt_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    real_which = shutil.which
    monkeypatch.setattr(services.shutil, "which",
                        lambda name, *a, **k: None if name == "apt-get" else real_which(name))
    with pytest.raises(PackageUnavailable, match="arena-no-such-tool is missing and there "
                                                 "is no apt-get to install Debian's "
                                                 "arena-nothing package"):
        ensure_debian_package("arena-no-such-tool", "arena-nothing")


def test_installs_take_turns_across_processes(tmp_path: Path) -> None:
    """Two processes (as two test workers) in ``install_lock`` at once: the second enters
    only when the first has left, so two apt-get or npm runs never overlap."""
    import subprocess
    import sys

    script = (
        "import sys, time\n"
        "from tools.services import install_lock\n"
        "with install_lock(sys.argv[1]):\n"
        "    open(sys.argv[2], 'a').write('in\\n')\n"
        "    time.sleep(0.5)\n"
        "    open(sys.argv[2], 'a').write('out\\n')\n")
    log = tmp_path / "turns.log"
    name = f"test-{os.getpid()}"
    root = Path(__file__).resolve().parents[2]
    procs = [subprocess.Popen([sys.executable, "-c", script, name, str(log)], cwd=root)
             for _ in range(2)]
    assert [p.wait(30) for p in procs] == [0, 0]
    assert log.read_text().split() == ["in", "out", "in", "out"]
