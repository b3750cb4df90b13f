"""Golden playthroughs: every registered game's seeded matches, rendered afresh, must equal the
committed text in tests/golden/. A difference is a change of rules, views or events: if it is
intended, run `make golden` and review the diff."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest
from games.goofspiel import GAME as GOOFSPIEL

from engine import registry
from tools.commands import golden

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = [(name, seed) for name in registry.names() for seed in golden.SEEDS]


@pytest.mark.parametrize("name,seed", CASES)
def test_playthrough_matches_the_committed_golden_file(name: str, seed: int) -> None:
    path = GOLDEN / golden.file_name(name, seed)
    text = golden.render(registry.get(name), seed)
    problem = golden.compare(path, text)
    assert problem is None, (
        f"{problem}\n\nThe {name} playthrough for seed {seed} changed. If the rule change is "
        "intended, run `make golden` (arena golden --write) and review the diff.")


def test_every_golden_file_belongs_to_a_registered_game() -> None:
    expected = {golden.file_name(name, seed) for name, seed in CASES}
    present = {p.name for p in GOLDEN.glob("*.txt")}
    assert present == expected, (
        f"missing: {sorted(expected - present)}; stale: {sorted(present - expected)} "
        "(run `make golden`; delete files of games that no longer exist)")


def test_golden_files_stay_reviewable() -> None:
    for path in GOLDEN.glob("*.txt"):
        assert path.stat().st_size < golden.MAX_BYTES * 1.1, f"{path} is too large to review"


@pytest.fixture
def goofspiel_registered() -> Iterator[None]:
    registry.register(GOOFSPIEL, replace=True)
    yield
    registry.unregister(GOOFSPIEL.info.name)


def _args(directory: Path, write: bool) -> argparse.Namespace:
    return argparse.Namespace(write=write, game=["goofspiel"], dir=directory)


def test_the_command_writes_then_checks_and_catches_a_change(
        tmp_path: Path, goofspiel_registered: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert golden.run(_args(tmp_path, write=True)) == 0
    files = sorted(tmp_path.glob("*.txt"))
    assert [p.name for p in files] == ["goofspiel-seed1.txt", "goofspiel-seed2.txt"]
    text = files[0].read_text(encoding="utf-8")
    # Simultaneous decisions and both seats' actions appear; the whole game ends with a result.
    assert "decision: north, south (simultaneous)" in text
    assert "action north: " in text and "action south: " in text
    assert "# steps: all 10" in text and text.rstrip().splitlines()[-1].startswith("outcome: {")
    assert golden.run(_args(tmp_path, write=False)) == 0

    files[0].write_text(text.replace("action north: ", "action north: x", 1), encoding="utf-8")
    assert golden.run(_args(tmp_path, write=False)) == 1
    out, err = capsys.readouterr()
    assert "differs: " in out and "-action north: x" in out
    assert "make golden" in err


def test_unknown_game_is_refused(tmp_path: Path) -> None:
    args = argparse.Namespace(write=False, game=["no-such-game"], dir=tmp_path)
    assert golden.run(args) == 2
