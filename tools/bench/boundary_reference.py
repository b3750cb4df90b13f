"""``arena bench strength boundary``: the round robin of the seven Boundary bots (the six basic
strategies and the adaptive agent) printed beside the thesis's results (rules/boundary.md §12:
Table 4, the final round robin of the basic strategies; Table 5, the adaptive agent against
each)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from tools.bench.matrix import Matrix
from tools.bench.tournament import format_table

ORDER: Final = ("GT", "BT", "GC", "HC", "DT", "DC")
BOTS: Final = {"GT": "greedy-treasure", "BT": "best-treasure", "GC": "greedy-capture",
               "HC": "hybrid-capture", "DT": "defensive-treasure", "DC": "defensive-capture",
               "AD": "adaptive"}
LABELS: Final = {bot: label for label, bot in BOTS.items()}
AGENTS: Final = tuple(BOTS.values())

# Row strategy's win % against the column (thesis Table 4; its columns are GT BT GC DT HC DC,
# reordered here to GT BT GC HC DT DC).
TABLE_4: Final[Mapping[str, Mapping[str, int]]] = {
    "GT": {"BT": 46, "GC": 38, "HC": 43, "DT": 64, "DC": 54},
    "BT": {"GT": 54, "GC": 43, "HC": 41, "DT": 61, "DC": 49},
    "GC": {"GT": 62, "BT": 57, "HC": 58, "DT": 51, "DC": 54},
    "HC": {"GT": 57, "BT": 59, "GC": 42, "DT": 60, "DC": 46},
    "DT": {"GT": 36, "BT": 39, "GC": 49, "HC": 40, "DC": 52},
    "DC": {"GT": 46, "BT": 51, "GC": 46, "HC": 54, "DT": 48},
}
TABLE_5: Final[Mapping[str, int]] = {"GT": 51, "BT": 55, "GC": 44, "HC": 42, "DT": 59,
                                     "DC": 62}
"""The thesis's adaptive agent's win % against each basic strategy."""

GOAL: Final = 0.55
"""The adaptive agent must score at least this against every basic strategy."""


def thesis_table() -> str:
    rows = [["", *ORDER]]
    for row in ORDER:
        rows.append([row, *("–" if c == row else str(TABLE_4[row][c]) for c in ORDER)])
    return format_table(rows, [False] + [True] * len(ORDER))


def adaptive_rows(matrix: Matrix) -> tuple[str, dict[str, Any]]:
    """Our adaptive agent's score against each basic strategy, with its 95% interval, beside
    the thesis's Table 5; and the same as data."""
    ad = BOTS["AD"]
    rows = [["adaptive vs", *ORDER], ["ours", *[""] * len(ORDER)],
            ["95% CI", *[""] * len(ORDER)], ["games", *[""] * len(ORDER)],
            ["thesis (Table 5)", *(str(TABLE_5[c]) for c in ORDER)]]
    data: dict[str, Any] = {}
    for k, label in enumerate(ORDER, start=1):
        cell = matrix.cell(ad, BOTS[label])
        if not cell.games:
            continue
        lo, hi = cell.ci95()
        rows[1][k] = f"{100 * cell.share():.1f}"
        rows[2][k] = f"{100 * lo:.0f}–{100 * hi:.0f}"
        rows[3][k] = str(cell.games)
        data[label] = {"share": cell.share(), "ci95": [lo, hi], "games": cell.games,
                       "wins": cell.wins, "draws": cell.draws, "losses": cell.losses,
                       "thesis": TABLE_5[label] / 100}
    return format_table(rows, [False] + [True] * len(ORDER)), data


def report(matrix: Matrix, settings: Mapping[str, Any]) -> str:
    lines = [f"arena bench strength boundary: {matrix.games} games, "
             f"{settings['games_per_pairing']} a pairing (each start played twice, seats "
             f"swapped), seed {settings['seed']}, {settings['jobs']} job(s)",
             "",
             "Ours: the row bot's win share (%, draws half) against the column, 95% interval "
             "under it:",
             matrix.render(LABELS),
             "",
             "The thesis, Table 4 (final round robin of the basic strategies, row win %):",
             thesis_table(),
             ""]
    table, data = adaptive_rows(matrix)
    lines += ["The adaptive agent against each basic strategy, ours and the thesis's Table 5:",
              table]
    if len(data) == len(ORDER):
        worst = min(data, key=lambda k: data[k]["share"])
        ok = all(d["share"] >= GOAL for d in data.values())
        lines.append(f"goal ≥ {100 * GOAL:.0f}% against every basic strategy: "
                     f"{'met' if ok else 'NOT met'} (lowest: {worst} "
                     f"{100 * data[worst]['share']:.1f}%, 95% CI "
                     f"{100 * data[worst]['ci95'][0]:.0f}–{100 * data[worst]['ci95'][1]:.0f})")
    lines += ["", f"mean game: {matrix.turns / max(matrix.games, 1):.1f} turns; ended by "
              + ", ".join(f"{k} {v}" for k, v in sorted(matrix.reasons.items())),
              "decision time per game (s, wall): " + ", ".join(
                  f"{LABELS.get(a, a)} {s / max(n, 1):.3f}"
                  for a, (s, n) in matrix.seconds.items() if n)]
    return "\n".join(lines)
