"""The Node.js kit's action-space sampler (clients/js/src/spaces.js) agrees with the engine's
(engine/spaces.py): on the spaces of real Boundary positions and on made-up ones, every value
the kit samples is one the engine accepts (and the game's own ``check_action`` too), and the
two ``contains`` give the same verdict on the same values, good and bad."""

from __future__ import annotations

import json
import random
import subprocess
from typing import Any

from engine import registry, spaces
from engine.match import Match
from tests.clients_js.node_kit import KIT, ensure_node_kit, node

SAMPLES = 40

# Reads {"spaces": [...], "values": [[...] per space]} on stdin; prints, per space, SAMPLES
# samples and the kit's verdict on each given value.
SCRIPT = """
import { readFileSync } from 'node:fs';
import { contains, sample, seededRandom } from '%s';
const { spaces, values, samples } = JSON.parse(readFileSync(0, 'utf8'));
const random = seededRandom(7);
const out = spaces.map((space, i) => ({
  samples: Array.from({ length: samples }, () => sample(space, random)),
  verdicts: values[i].map((value) => contains(space, value)),
}));
process.stdout.write(JSON.stringify(out));
"""


def kit_says(cases: list[tuple[dict[str, Any], list[Any]]]) -> list[dict[str, Any]]:
    ensure_node_kit()
    script = SCRIPT % (KIT / "src" / "index.js").as_uri()
    payload = {"spaces": [s for s, _ in cases], "values": [v for _, v in cases],
               "samples": SAMPLES}
    done = subprocess.run([node(), "--input-type=module", "-e", script],
                          input=json.dumps(payload), capture_output=True, text=True,
                          timeout=60, check=True)
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


def boundary_positions() -> list[tuple[dict[str, Any], int, dict[str, Any]]]:
    """(state, seat, action space) every few turns of random Boundary playouts (every piece
    moving every turn: blobs form and pieces reach the edges)."""
    game = registry.get("boundary")
    rng = spaces.from_random(random.Random(3))
    found = []
    for seed in range(2):
        match = Match(game, 2, {"turn_limit": 60}, seed)
        match.advance()
        while not match.is_over:
            for seat in match.awaiting():
                space = match.action_space(seat)
                assert space is not None
                if match.state["turn"] % 5 == 1:
                    found.append((match.state, seat, space))
                match.submit(seat, spaces.sample(space, rng, include=1))
    return found


def discs(space: dict[str, Any]) -> list[dict[str, Any]]:
    return list(space["fields"]["moves"]["entries"].values())


def clipped(disc: dict[str, Any]) -> bool:
    (cx, cy), r = disc["center"], disc["radius"]
    return min(cx, cy) - r < 0 or max(cx, cy) + r > 799


def near_misses(space: dict[str, Any], rng: random.Random) -> list[Any]:
    """Values on both sides of the border of ``space``."""
    kind = space["type"]
    if kind == "const":
        value = space["value"]
        return [value, [value], None, str(value), value + 1 if isinstance(value, int) else 0]
    if kind == "point":
        (cx, cy), r = space["center"], space["radius"]
        edge = [[cx + r, cy], [cx - r, cy], [cx, cy + r], [cx, cy - r]]
        return [*edge, *([x + 1, y] for x, y in edge), [cx, cy], [cx + 0.5, cy], [cx, cy, 0],
                [str(cx), cy], [True, cy]]
    if kind == "record":
        fields = space["fields"]
        base = {k: spaces.sample(s, spaces.from_random(rng)) for k, s in fields.items()}
        out: list[Any] = [base, {**base, "extra": 1}, [base]]
        for key, child in fields.items():
            out += [{**base, key: v} for v in near_misses(child, rng)]
            out.append({k: v for k, v in base.items() if k != key})
        return out
    entries = space["entries"]
    out = [{}, {"no-such-entry": 1}, []]
    for key, child in entries.items():
        out += [{key: v} for v in near_misses(child, rng)]
    return out


def test_the_kit_samples_and_judges_boundary_plans_as_the_engine_does() -> None:
    game = registry.get("boundary")
    positions = boundary_positions()
    assert any(clipped(d) for _, _, space in positions for d in discs(space))
    assert any(d["radius"] > 40 for _, _, space in positions for d in discs(space))
    rng = random.Random(11)
    cases = [(space, near_misses(space, rng)) for _, _, space in positions]
    made_up = [
        spaces.point([0, 0], 7, [0, 0], [799, 799]),
        spaces.point([5, 5], 9, [3, 0], [6, 20]),
        spaces.record({"a": spaces.const({"x": [1, 2]}), "b": spaces.subset({}),
                       "c": spaces.subset({"k": spaces.point([2, 2], 0, [0, 0], [9, 9])})}),
    ]
    cases += [(space, near_misses(space, rng)) for space in made_up]
    said = kit_says(cases)
    checked = 0
    for (space, values), kit in zip(cases, said, strict=True):
        assert len(kit["samples"]) == SAMPLES
        for value in kit["samples"]:
            assert spaces.contains(space, value), (space, value)
        assert kit["verdicts"] == [spaces.contains(space, v) for v in values], space
        checked += len(values)
    assert checked > 1000
    # Every sampled plan is legal in its position, by the game's own rules.
    for (state, seat, _space), kit in zip(positions, said[:len(positions)], strict=True):
        for plan in kit["samples"]:
            game.check_action(state, seat, plan)
