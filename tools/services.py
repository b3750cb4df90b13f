"""Real services on loopback for tests and benchmarks: PostgreSQL and Redis, no containers.

A test machine starts with nothing but what the project installs, so these helpers install
what they need themselves (:func:`ensure_debian_package`: Debian's packages with apt-get;
we run as root there) and fail loudly when they cannot: a test that needs PostgreSQL must
never skip because it is missing.

* :class:`PostgresServer` — a throw-away cluster (``initdb`` in a temporary folder, trust
  authentication, user ``postgres``) served by ``postgres`` on 127.0.0.1 at a free port, with
  durability turned off for speed (``fsync``, ``synchronous_commit``, ``full_page_writes``);
  :meth:`PostgresServer.create_database` gives each test its own database. PostgreSQL
  refuses to run as root: as root, the cluster is owned and served by the ``postgres``
  system user (the one Debian's package creates; made here if it is missing).
* :class:`RedisServer` — ``redis-server`` on 127.0.0.1 at a free port, no persistence.

Both are context managers, sync (``with``: pytest session fixtures) and async (``async
with``: starting runs in a worker thread), and are stopped and their folders removed on
exit (or at interpreter exit, for one never stopped)::

    with PostgresServer() as pg:
        store = PostgresStore(pg.create_database("t1"))
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import fcntl
import glob
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

APT_TIMEOUT_S = 900.0
START_TIMEOUT_S = 60.0

# Where Debian keeps the server binaries of PostgreSQL (not on PATH): newest version first.
_EXTRA_BIN_DIRS = ("/usr/lib/postgresql/*/bin", "/usr/sbin", "/sbin")


class PackageUnavailable(RuntimeError):
    """A program is missing and its Debian package could not be installed."""


class ServiceFailed(RuntimeError):
    """A service did not start (its log is in the message)."""


def _version_key(directory: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", directory))


def find_binary(binary: str) -> str | None:
    """The path of ``binary``: an absolute path if it exists, else on ``PATH``, else in
    Debian's PostgreSQL folders (``/usr/lib/postgresql/*/bin``, newest first) or the
    ``sbin`` folders; ``None`` if it is nowhere."""
    if os.path.isabs(binary):
        return binary if os.path.exists(binary) else None
    found = shutil.which(binary)
    if found is not None:
        return found
    for pattern in _EXTRA_BIN_DIRS:
        for directory in sorted(glob.glob(pattern), key=_version_key, reverse=True):
            candidate = os.path.join(directory, binary)
            if os.access(candidate, os.X_OK):
                return candidate
    return None


@contextlib.contextmanager
def install_lock(name: str) -> Iterator[None]:
    """Hold the machine-wide lock ``name`` (a file in the temporary directory, locked with
    ``flock``) while the block runs: processes that would install the same thing at once
    (the test workers of ``make test``) take turns, and each looks again whether it is
    still missing once it holds the lock."""
    path = Path(tempfile.gettempdir()) / f"tabletop-arena-{name}.lock"
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_debian_package(binary: str, package: str, *, note: str = "[services]") -> str:
    """:func:`_ensure_debian_package`, one process at a time (apt holds one lock)."""
    found = find_binary(binary)
    if found is not None:
        return found
    with install_lock("apt"):
        return _ensure_debian_package(binary, package, note=note)


def _ensure_debian_package(binary: str, package: str, *, note: str = "[services]") -> str:
    """The path of ``binary`` (a name, or an absolute path to check), installing Debian's
    ``package`` with ``apt-get update`` and ``apt-get install -y --no-install-recommends``
    when it is missing (through ``sudo -n`` when not root). Prints a line to stderr, headed
    ``note``, before each apt step (an install can take a minute). Raises
    :class:`PackageUnavailable` with apt's output when that fails."""
    found = find_binary(binary)
    if found is not None:
        return found
    apt = shutil.which("apt-get")
    if apt is None:
        raise PackageUnavailable(f"{binary} is missing and there is no apt-get to install "
                                 f"Debian's {package} package")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    steps = [[apt, "update"], [apt, "install", "-y", "--no-install-recommends", package]]
    if os.geteuid() != 0:
        sudo = shutil.which("sudo")
        if sudo is None:
            raise PackageUnavailable(f"{binary} is missing; installing it needs root")
        steps = [[sudo, "-n", *step] for step in steps]
    print(f"{note} {binary} is missing: installing Debian's {package} package "
          "(this can take a minute)", file=sys.stderr, flush=True)
    for step in steps:
        print(f"{note} {' '.join(step)}", file=sys.stderr, flush=True)
        done = subprocess.run(step, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=APT_TIMEOUT_S)
        if done.returncode != 0:
            raise PackageUnavailable(f"{' '.join(step)} failed ({done.returncode}):\n"
                                     f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    found = find_binary(binary)
    if found is None:
        raise PackageUnavailable(f"apt installed {package} but {binary} is still missing")
    return found


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on now (the caller binds it soon: another process may take
    it first, so a service that cannot bind it is started again on another)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class _Service:
    """A server process on loopback with a temporary folder: start, wait until it serves,
    stop and remove. Subclasses say how to start and how to tell that it serves."""

    host = "127.0.0.1"
    name = "service"

    def __init__(self) -> None:
        self.port = 0
        self.folder: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._lock = threading.Lock()

    # ---- the process ------------------------------------------------------------------------

    def _command(self) -> list[str]:
        raise NotImplementedError

    def _serving(self) -> bool:
        raise NotImplementedError

    def _prepare(self, folder: Path) -> None:
        """Before the first start, in ``folder`` (empty)."""

    def _popen_args(self) -> dict[str, Any]:
        return {}

    def _log_text(self) -> str:
        if self.folder is None:
            return ""
        try:
            return (self.folder / f"{self.name}.log").read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def start(self) -> Self:
        """Start the service and return once it serves; raises :class:`ServiceFailed` with
        its log when it does not."""
        with self._lock:
            if self._process is not None:
                return self
            self.folder = Path(tempfile.mkdtemp(prefix=f"arena-{self.name}-"))
            try:
                self._prepare(self.folder)
                for attempt in range(5):
                    self.port = free_port(self.host)
                    if self._start_once():
                        break
                    if attempt == 4 or "in use" not in self._log_text():
                        raise ServiceFailed(f"{self.name} did not start on {self.host}:"
                                            f"{self.port}:\n{self._log_text()}")
            except BaseException:
                self._stop_process()
                shutil.rmtree(self.folder, ignore_errors=True)
                self.folder = None
                raise
            atexit.register(self.stop)
            return self

    def _start_once(self) -> bool:
        """Start the process and wait until it serves (``True``) or exits (``False``)."""
        assert self.folder is not None
        self._stop_process()
        self._log = open(self.folder / f"{self.name}.log", "ab")
        self._process = subprocess.Popen(
            self._command(), stdin=subprocess.DEVNULL, stdout=self._log,
            stderr=subprocess.STDOUT, cwd=self.folder, start_new_session=True,
            **self._popen_args())
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                return False
            if self._serving():
                return True
            time.sleep(0.05)
        raise ServiceFailed(f"{self.name} did not serve on {self.host}:{self.port} within "
                            f"{START_TIMEOUT_S:.0f} s:\n{self._log_text()}")

    def _stop_process(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            for sig, wait_s in ((self._stop_signal(), 30.0), (signal.SIGKILL, 10.0)):
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(sig)
                try:
                    process.wait(wait_s)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self._log is not None:
            self._log.close()
            self._log = None

    def _stop_signal(self) -> int:
        return signal.SIGTERM

    def stop(self) -> None:
        """Stop the service and remove its folder (a second call does nothing)."""
        with self._lock:
            self._stop_process()
            if self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)
                self.folder = None
        atexit.unregister(self.stop)

    # ---- context managers -------------------------------------------------------------------

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        return await asyncio.to_thread(self.start)

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await asyncio.to_thread(self.stop)


# ---- PostgreSQL -------------------------------------------------------------------------------

_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]{0,62}")
_FALLBACK_USER = "arena-postgres"


def _unprivileged_user() -> pwd.struct_passwd | None:
    """Who runs PostgreSQL: ``None`` (this process's user) unless we are root, then the
    ``postgres`` system user, made (as ``arena-postgres``) if there is none."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", _FALLBACK_USER):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    done = subprocess.run([useradd, "--system", "--user-group", "--no-create-home",
                           "--shell", "/usr/sbin/nologin", _FALLBACK_USER],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise ServiceFailed(f"PostgreSQL does not run as root and there is no postgres "
                            f"user; making {_FALLBACK_USER} failed:\n{done.stderr}")
    return pwd.getpwnam(_FALLBACK_USER)


class PostgresServer(_Service):
    """A throw-away PostgreSQL cluster on 127.0.0.1 (see the module's docstring).

    ``.dsn`` reaches its ``postgres`` database as superuser ``postgres`` (no password:
    trust authentication, loopback only); :meth:`create_database` makes another."""

    name = "postgres"
    superuser = "postgres"

    def __init__(self, settings: Mapping[str, str] | None = None) -> None:
        """``settings``: more ``postgres -c NAME=VALUE`` settings."""
        super().__init__()
        self.settings = {
            "listen_addresses": self.host, "fsync": "off", "synchronous_commit": "off",
            "full_page_writes": "off", "max_connections": "300", "shared_buffers": "64MB",
            "logging_collector": "off", **(settings or {})}
        self._user: pwd.struct_passwd | None = None
        self._bin = ""

    @property
    def data_dir(self) -> Path:
        assert self.folder is not None, "the server is not started"
        return self.folder / "data"

    @property
    def socket_dir(self) -> Path:
        assert self.folder is not None, "the server is not started"
        return self.folder / "sockets"

    def _popen_args(self) -> dict[str, Any]:
        if self._user is None:
            return {}
        return {"user": self._user.pw_uid, "group": self._user.pw_gid, "extra_groups": [],
                "env": {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C",
                        "HOME": str(self.folder)}}

    def _prepare(self, folder: Path) -> None:
        postgres = os.path.realpath(ensure_debian_package("postgres", "postgresql"))
        self._bin = os.path.dirname(postgres)
        self._user = _unprivileged_user()
        self.socket_dir.mkdir()
        if self._user is not None:
            for path in (folder, self.socket_dir):
                os.chown(path, self._user.pw_uid, self._user.pw_gid)
        done = subprocess.run(
            [os.path.join(self._bin, "initdb"), "-D", str(self.data_dir), "-U",
             self.superuser, "--auth=trust", "--no-locale", "--encoding=UTF8", "--no-sync"],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=folder,
            timeout=120, **self._popen_args())
        if done.returncode != 0:
            raise ServiceFailed(f"initdb failed ({done.returncode}):\n{done.stdout[-3000:]}\n"
                                f"{done.stderr[-3000:]}")

    def _command(self) -> list[str]:
        settings = {**self.settings, "port": str(self.port),
                    "unix_socket_directories": str(self.socket_dir)}
        command = [os.path.join(self._bin, "postgres"), "-D", str(self.data_dir)]
        for key, value in settings.items():
            command += ["-c", f"{key}={value}"]
        return command

    def _serving(self) -> bool:
        # postmaster.pid's eighth line is the server's state: "ready" once it accepts
        # connections (what pg_ctl waits for).
        try:
            lines = (self.data_dir / "postmaster.pid").read_text().splitlines()
        except OSError:
            return False
        return len(lines) >= 8 and lines[7].strip() == "ready" and _accepts(self.host, self.port)

    def _stop_signal(self) -> int:
        return signal.SIGINT  # "fast" shutdown: end the sessions, do not wait for them

    # ---- databases --------------------------------------------------------------------------

    def dsn_for(self, database: str) -> str:
        return f"postgresql://{self.superuser}@{self.host}:{self.port}/{database}"

    @property
    def dsn(self) -> str:
        """The cluster's ``postgres`` database."""
        return self.dsn_for("postgres")

    def execute(self, sql: str, *, database: str = "postgres") -> None:
        """Run SQL (statements that take no parameters) in ``database``, committed on
        return. Usable from inside an event loop too (it runs on a thread of its own)."""
        import asyncpg  # a project dependency; imported late so Redis alone needs none

        async def run() -> None:
            conn = await asyncpg.connect(self.dsn_for(database))
            try:
                await conn.execute(sql)
            finally:
                await conn.close()

        error: list[BaseException] = []

        def in_thread() -> None:
            try:
                asyncio.run(run())
            except BaseException as exc:
                error.append(exc)

        worker = threading.Thread(target=in_thread, name="arena-postgres-admin")
        worker.start()
        worker.join()
        if error:
            raise error[0]

    def create_database(self, name: str, *, template: str | None = None) -> str:
        """Create database ``name`` (lower-case letters, digits and ``_``), a copy of
        ``template`` if given; returns its DSN."""
        self._check_name(name)
        sql = f'CREATE DATABASE "{name}"'
        if template is not None:
            self._check_name(template)
            sql += f' TEMPLATE "{template}"'
        self.execute(sql)
        return self.dsn_for(name)

    def drop_database(self, name: str) -> None:
        """Drop database ``name`` if it exists, ending its sessions first."""
        self._check_name(name)
        self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    @staticmethod
    def _check_name(name: str) -> None:
        if not _IDENTIFIER.fullmatch(name):
            raise ValueError(f"database names here are lower-case letters, digits and '_' "
                             f"(up to 63), not {name!r}")


# ---- Redis ------------------------------------------------------------------------------------


class RedisServer(_Service):
    """``redis-server`` on 127.0.0.1 at a free port, no persistence, no protected mode;
    ``.url`` is ``redis://127.0.0.1:PORT/0``."""

    name = "redis"

    def __init__(self, arguments: Sequence[str] = ()) -> None:
        """``arguments``: more ``redis-server`` options (``["--maxmemory", "64mb"]``)."""
        super().__init__()
        self.arguments = list(arguments)
        self._bin = ""

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def _prepare(self, folder: Path) -> None:
        self._bin = ensure_debian_package("redis-server", "redis-server")

    def _command(self) -> list[str]:
        assert self.folder is not None
        return [self._bin, "--bind", self.host, "--port", str(self.port), "--save", "",
                "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no",
                "--dir", str(self.folder), *self.arguments]

    def _serving(self) -> bool:
        import redis  # installed with the project's services; imported late like asyncpg

        client = redis.Redis(host=self.host, port=self.port, socket_connect_timeout=0.5,
                             socket_timeout=1.0)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()
