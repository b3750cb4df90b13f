"""The adaptive Boundary agent's counter table, rebuilt from our own round robin of the six
basic strategies (the thesis's recommendation: play every pairing many times with the final
bots, then take the best reply to each).

``arena tune boundary`` plays every pairing on the same starts (each start twice, seats
swapped; :mod:`tools.bench.matrix`), appends each game to a JSON-lines log as it ends (a
re-run of the same command resumes it; same seed, same games), and derives:

* ``table``: for each strategy, the strategy that scored best against it (ties in the order
  GT, BT, GC, HC, DT, DC);
* ``opening``: the strategy with the best mean score over all opponents (turn 0, before
  anything is known of the opponent).

The table file it writes (:func:`table_file`) is what ``AdaptiveBot(table=PATH)`` and
``arena bot adaptive --option table=PATH`` read, with the round robin it came from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from bots.boundary.strategies import NAMES, TITLES
from tools.bench.matrix import Game, Matrix, Result, games_for, play, result_from_json
from tools.tune.jsonlog import append, read_records

LOG_FORMAT: Final = "arena-tune-boundary/1"

AGENTS: Final = {name: TITLES[name].lower().replace(" ", "-") for name in NAMES}
"""Strategy label → bot name (``GT`` → ``greedy-treasure``)."""
LABELS: Final = {bot: label for label, bot in AGENTS.items()}


@dataclass(frozen=True)
class Settings:
    """What a run's log depends on (``games`` aside: a resume may ask for more)."""

    seed: int = 1
    games: int = 100          # per pairing, both seatings of ceil(games / 2) starts
    lookahead: int = 2        # written into the table file for the agent that uses it
    margin: int = 8           # likewise: points another plan must gain over the table's

    def identity(self) -> dict[str, Any]:
        out = asdict(self)
        del out["games"], out["lookahead"], out["margin"]
        return out


def tasks(settings: Settings) -> list[Game]:
    return games_for("boundary", list(AGENTS.values()), settings.games, settings.seed)


def tune(settings: Settings, log: Path, make_bot: Callable[[str, int], Any], jobs: int = 1,
         on_result: Callable[[Result, int, int], None] | None = None) -> Matrix:
    """Play what the log lacks, logging each game; the matrix of every game in the log
    (``on_result(result, done, total)`` after each)."""
    records = read_records(log, LOG_FORMAT, settings.identity(), "arena tune boundary")
    if records is None:
        log.write_text("", encoding="utf-8")
        append(log, {"format": LOG_FORMAT, "settings": settings.identity()})
        records = []
    todo = tasks(settings)
    by_key = {t.key: t for t in todo}
    matrix = Matrix(list(AGENTS.values()))
    done: set[str] = set()
    for record in records:
        key = f"{record['a']}|{record['b']}|{record['start']}|{record['seat_of_a']}"
        task = by_key.get(key)
        if task is None or key in done:
            continue   # a game of a longer run, or repeated: not part of this matrix
        done.add(key)
        matrix.add(result_from_json(task, record))
    left = [t for t in todo if t.key not in done]
    total = len(todo)
    count = len(done)
    for result in play(left, make_bot, jobs):
        append(log, result.to_json())
        matrix.add(result)
        count += 1
        if on_result is not None:
            on_result(result, count, total)
    return matrix


def best_replies(matrix: Matrix) -> tuple[dict[str, str], str]:
    """The counter table (label → label) and the opening strategy, from the matrix."""
    table = {}
    for opponent in NAMES:
        scores = [(matrix.share(AGENTS[r], AGENTS[opponent]), -k) for k, r in enumerate(NAMES)]
        table[opponent] = NAMES[-max(scores)[1]]
    means = []
    for k, r in enumerate(NAMES):
        others = [matrix.share(AGENTS[r], AGENTS[c]) for c in NAMES if c != r]
        means.append((sum(others) / len(others), -k))
    return table, NAMES[-max(means)[1]]


def table_file(matrix: Matrix, settings: Settings, log: Path) -> dict[str, Any]:
    """The table file: what the agent reads, and the round robin behind it."""
    table, opening = best_replies(matrix)
    return {
        "table": table,
        "opening": opening,
        "thesis_turns": False,
        "prediction": {"GC": "inertia", "HC": "inertia", "DC": "inertia"},
        "lookahead": settings.lookahead,
        "margin": settings.margin,
        "round_robin": {
            "seed": settings.seed,
            "games_per_pairing": settings.games,
            "win_share": {LABELS[r]: {LABELS[c]: round(matrix.share(r, c), 4)
                                      for c in matrix.agents if c != r}
                          for r in matrix.agents},
            "games": matrix.games,
            "log": str(log),
        },
    }


def render_table(table: dict[str, str], opening: str, thesis: dict[str, str]) -> list[str]:
    lines = ["counter table (opponent → reply; the thesis's in brackets):"]
    for opponent in NAMES:
        mark = "" if thesis[opponent] == table[opponent] else f"  [{thesis[opponent]}]"
        lines.append(f"  {opponent} → {table[opponent]}{mark}")
    lines.append(f"opening (best mean score): {opening}")
    return lines


def labels(agents: Sequence[str]) -> dict[str, str]:
    return {a: LABELS.get(a, a) for a in agents}
