"""docs/environments.md works as written: its Python blocks run in order in one namespace,
and its table of layouts states the sizes the code has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gymnasium import spaces

from engine import registry
from engine.envs import AECGameEnv
from engine.envs.encoders import SegmentedEncoder

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "environments.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_guide_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = python_blocks(GUIDE.read_text(encoding="utf-8"))
    assert len(blocks) >= 3
    namespace: dict[str, object] = {"__name__": "guide"}
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), namespace)
    printed = capsys.readouterr().out
    assert "Outcome(ranks=" in printed and "random agent vs Deep Barca:" in printed


def test_the_layout_table_matches_the_code() -> None:
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)` \|.*$",
                                                          GUIDE.read_text(encoding="utf-8"),
                                                          flags=re.M)}
    assert set(rows) == set(registry.names())
    for name, row in rows.items():
        env = AECGameEnv(name)
        encoder = env.episode.encoder
        assert isinstance(encoder, SegmentedEncoder)
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1].startswith(f"{encoder.size:,} in [{encoder.low:g}, {encoder.high:g}]")
        assert all(f"{s} {n}" in cells[2] for s, n in encoder.segments), name
        space = env.action_space("seat_0")
        expected = (f"Discrete({space.n})" if isinstance(space, spaces.Discrete)
                    else f"Box(-1, 1, {space.shape})")
        assert cells[3].startswith(f"`{expected}`"), name
