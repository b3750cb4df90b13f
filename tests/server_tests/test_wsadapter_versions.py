"""The websockets adapter against every websockets version ``pyproject.toml`` allows.

server/wsadapter.py relies on websockets internals (its docstring lists them), so the pin
in ``pyproject.toml`` may only allow versions it was tested with. For each version in
:data:`VERSIONS` this installs that release (``pip install --target``, cached in pytest's
cache directory, so a rerun takes a second or two) and runs ``test_wsadapter.py`` in a
subprocess with that directory first on ``PYTHONPATH``.

Needs the package index (PyPI or the configured mirror) the first time each version is
installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
ADAPTER_TESTS = Path(__file__).with_name("test_wsadapter.py")

VERSIONS = ("14.0", "14.2", "15.0.1", "16.1.1", "17.4")
"""The oldest allowed release and the newest of each allowed major version (17.4 is the
newest websockets release on PyPI as of 2026-11)."""


def allowed_majors() -> range:
    """The major versions the ``websockets>=A,<B`` requirement in pyproject.toml allows."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (requirement,) = [d for d in project["project"]["dependencies"]
                      if re.match(r"websockets\b", d)]
    found = re.fullmatch(r"websockets>=(\d+)(?:\.0)*,<(\d+)", requirement.replace(" ", ""))
    assert found, f"expected websockets>=A,<B in pyproject.toml, got {requirement!r}"
    return range(int(found.group(1)), int(found.group(2)))


def test_every_allowed_major_version_is_tested() -> None:
    majors = allowed_majors()
    assert f"{majors.start}.0" in VERSIONS, "the oldest allowed release must be tested"
    assert {int(v.split(".")[0]) for v in VERSIONS} == set(majors)


def installed(version: str, cache: Path) -> Path:
    """A directory holding websockets ``version`` (installed once, then reused)."""
    target = cache / f"websockets-{version}"
    if (target / "websockets").is_dir():
        return target
    partial = cache / f"websockets-{version}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-deps", "--no-compile", "--target", str(partial), f"websockets=={version}"],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, (f"could not install websockets {version} (needs the "
                                    f"package index):\n{result.stdout}{result.stderr}")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)  # only a complete install counts as cached
    return target


@pytest.fixture(scope="module")
def cache(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = getattr(pytestconfig, "cache", None)
    if store is not None:
        return Path(store.mkdir("websockets-versions"))
    return tmp_path_factory.mktemp("websockets-versions")  # (run with -p no:cacheprovider)


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
def test_the_adapter_works_with(version: str, cache: Path) -> None:
    target = installed(version, cache)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)]),
           "ARENA_EXPECT_WEBSOCKETS": version}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(ADAPTER_TESTS), "-q", "-p", "no:cacheprovider",
         "--import-mode=importlib", "-o", "addopts=", "-W", "error::DeprecationWarning",
         "--timeout", "60"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"websockets {version}:\n{result.stdout[-6000:]}"
    assert " passed" in result.stdout and "skipped" not in result.stdout, result.stdout
