"""``arena golden``: golden playthroughs, the readable spec of who sees what.

For every registered game, :data:`SEEDS` seeded random matches are written as text to
``tests/golden/<game>-seed<N>.txt``: a header (game, seed, options, policies), then per step the
decision, the position notation, every seat's view and the spectator's view, the acting seats'
legal actions (``action_text``), the action applied and the events as each viewer sees them;
finally the outcome. The match is the one ``arena play --game G --seed N`` plays.

Views are compact canonical JSON, one line per viewer. To keep whole games reviewable (a Battle
Line view is ~1.5 KB), a view is written in full at the start and at the end, and in between
as its changes since that viewer's previous step: ``Δ /pointer=value …`` (RFC 6901 pointers;
``/pointer-`` for a removed key). A view or event list identical to the spectator's is written
``= spectator`` (in a perfect-information game every seat sees the same).

``arena golden`` checks the committed files against a fresh rendering (exit status 1 and a diff
on a mismatch); ``arena golden --write`` (``make golden``) rewrites them after an intended rule
change. ``tests/test_golden.py`` runs the check.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from engine import registry
from engine.conformance import MISSING, Budget, Playout, json_differences, playout
from engine.core import CHANCE, Decision, Event, Game, State, canonical_json

SEEDS: tuple[int, ...] = (1, 2)
"""Seeds written per game."""

MAX_BYTES = 300_000
"""A whole game is written when its file stays below this size; otherwise only the first
:data:`TRUNCATED_STEPS` steps (the header says so)."""

TRUNCATED_STEPS = 60

OPTIONS: dict[str, dict[str, Any]] = {
    # A random Boundary match runs to its 100-turn limit, each turn a new territory map in the
    # views: ten turns show every kind of step and keep the file reviewable.
    "boundary": {"turn_limit": 10},
}
"""Per game, the options its golden matches are played with (default: the game's)."""

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "tests" / "golden"
"""Where the files live in a source checkout."""

MAX_STEPS = 100_000


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--write", action="store_true",
                   help="rewrite the files (after an intended rule change) instead of checking")
    p.add_argument("--game", action="append", default=None,
                   help="only this game (repeatable; default: every registered game)")
    p.add_argument("--dir", type=Path, default=GOLDEN_DIR,
                   help=f"golden directory (default: {GOLDEN_DIR})")


def run(args: argparse.Namespace) -> int:
    names = args.game or registry.names()
    unknown = [n for n in names if n not in registry.names()]
    if unknown:
        print(f"unknown game(s) {', '.join(unknown)}; available: {', '.join(registry.names())}",
              file=sys.stderr)
        return 2
    stale = 0
    for name in names:
        game = registry.get(name)
        for seed in SEEDS:
            path = args.dir / file_name(name, seed)
            text = render(game, seed)
            if args.write:
                args.dir.mkdir(parents=True, exist_ok=True)
                changed = not path.exists() or path.read_text(encoding="utf-8") != text
                path.write_text(text, encoding="utf-8")
                size = len(text.encode("utf-8"))
                print(f"{'wrote' if changed else 'unchanged'} {path} ({size:,} bytes)")
                continue
            problem = compare(path, text)
            if problem:
                stale += 1
                print(problem)
            else:
                print(f"ok {path}")
    if stale:
        print(f"{stale} golden file(s) differ. If the rule change is intended, run `make golden` "
              "(arena golden --write) and review the diff.", file=sys.stderr)
        return 1
    return 0


def file_name(game: str, seed: int) -> str:
    return f"{game}-seed{seed}.txt"


def compare(path: Path, text: str, context_lines: int = 40) -> str | None:
    """``None`` when ``path`` holds exactly ``text``; else a message with the start of a diff."""
    if not path.exists():
        return f"missing {path}"
    old = path.read_text(encoding="utf-8")
    if old == text:
        return None
    diff = difflib.unified_diff(old.splitlines(), text.splitlines(), f"{path} (committed)",
                                f"{path} (regenerated)", lineterm="", n=1)
    lines = list(diff)
    shown = "\n".join(lines[:context_lines])
    more = f"\n… {len(lines) - context_lines} more diff lines" if len(lines) > context_lines else ""
    return f"differs: {path}\n{shown}{more}"


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


def render(game: Game, seed: int) -> str:
    """The golden text of one seeded match of ``game`` (whole, or truncated if too long)."""
    match = playout(game, seed, Budget(max_steps=MAX_STEPS,
                                       options=OPTIONS.get(game.info.name)))
    lines: list[str] = []
    size = 0
    for line in _lines(match, len(match.steps)):
        size += len(line.encode("utf-8")) + 1
        if size > MAX_BYTES:  # stop rendering the whole game as soon as it is too long
            lines = list(_lines(match, min(TRUNCATED_STEPS, len(match.steps))))
            break
        lines.append(line)
    return "\n".join(lines) + "\n"


def _lines(match: Playout, shown_steps: int) -> Iterator[str]:
    game, seed = match.game, match.seed
    info = game.info
    names = _seat_names(game, match.num_seats)
    total = len(match.steps)
    whole = shown_steps == total
    custom = OPTIONS.get(info.name)
    play_options = f" --options '{canonical_json(custom)}'" if custom else ""
    space = info.actions == "space"
    choices = "legal actions" if not space else "actions (drawing from its action space)"
    listed = "legal actions" if not space else "action spaces"
    yield from [
        f"# Golden playthrough: {info.name} ({info.title}), seed {seed}",
        "# Generated by `arena golden --write` (make golden); checked by tests/test_golden.py.",
        "# Do not edit by hand: a diff in this file is a change of rules, views or events.",
        f"# game: {info.name}; seats: {match.num_seats} "
        f"({', '.join(f'{s} {n}' for s, n in enumerate(names))})",
        f"# options: {canonical_json(match.options)}",
        f"# policies: chance drawn with Rng({seed}) as engine.match.Match does; seat s picks "
        f"uniformly among its {choices} with Rng({seed}).fork(\"seat-s\")",
        f"#   (the match `arena play --game {info.name} --seed {seed}{play_options}` plays)",
        (f"# steps: all {total}" if whole else
         f"# steps: the first {shown_steps} of {total} (the whole game would exceed "
         f"{MAX_BYTES // 1000} KB); the end (final position, views, outcome) is the whole "
         "game's"),
        "# Per step: decision, position (notation), every view (compact JSON, in full at the",
        "# start and the end, otherwise \"Δ /pointer=value\" changes since the viewer's",
        "# previous step, \"/pointer-\" a removed key; \"= spectator\" when identical to the",
        f"# spectator's), {listed} of the acting seats, the action(s) applied, events per",
        "# viewer.",
    ]
    previous: list[Any] | None = None
    for step in match.steps[:shown_steps]:
        yield ""
        yield f"== step {step.index} =="
        views = _views(game, step.state, len(names))
        yield from _position_lines(game, step.state, step.decision, names, views, previous)
        previous = views
        if step.decision.chance:
            outcomes = game.chance_outcomes(step.state)
            picked = step.joint[CHANCE]
            yield (f"chance: {len(outcomes)} outcomes, total weight "
                   f"{sum(w for _, w in outcomes)}; drawn: {canonical_json(picked)}")
        else:
            for seat in step.decision.seats:
                if space:
                    described = game.action_space(step.state, seat)
                    yield f"action space {names[seat]}: {canonical_json(described)}"
                    continue
                legal = game.legal_actions(step.state, seat)
                yield (f"legal {names[seat]} ({len(legal)}): "
                       + ", ".join(game.action_text(a) for a in legal))
            for seat in step.decision.seats:
                yield f"action {names[seat]}: {game.action_text(step.joint[seat])}"
        yield from _event_lines(step.transition.events, names)
    yield ""
    if whole:
        yield f"== end after {total} steps =="
    else:
        yield f"== end after {total} steps (steps {shown_steps}–{total - 1} not shown) =="
    yield from _position_lines(game, match.final, game.decision(match.final), names,
                               _views(game, match.final, len(names)))
    outcome = game.outcome(match.final)
    yield "outcome: " + ("none" if outcome is None else canonical_json(outcome.to_json()))


def _seat_names(game: Game, num_seats: int) -> list[str]:
    names = list(game.info.seat_names[:num_seats])
    return names + [f"seat{s}" for s in range(len(names), num_seats)]


def _decision_text(decision: Decision, names: list[str]) -> str:
    if decision.terminal:
        return "terminal"
    if decision.chance:
        return "chance"
    acting = ", ".join(names[s] for s in decision.seats)
    return f"{acting} (simultaneous)" if decision.simultaneous else acting


def _views(game: Game, state: State, num_seats: int) -> list[Any]:
    """Every seat's view, then the spectator's."""
    return [game.view(state, seat) for seat in range(num_seats)] + [game.view(state, None)]


def _position_lines(game: Game, state: State, decision: Decision, names: list[str],
                    views: list[Any], previous: list[Any] | None = None) -> list[str]:
    """Decision, notation and ``views`` (of :func:`_views`); as changes when ``previous``
    views are given."""
    lines = [f"decision: {_decision_text(decision, names)}",
             f"position: {game.to_notation(state)}"]
    spectator = views[-1]
    for n, label in enumerate([*names, "spectator"]):
        view = views[n]
        if n < len(names) and view == spectator:
            text = "= spectator"
        elif previous is None:
            text = canonical_json(view)
        else:
            text = _delta(previous[n], view)
        lines.append(f"view {label}: {text}")
    return lines


def _delta(old: Any, new: Any) -> str:
    changes = [f"{path}-" if value is MISSING else f"{path}={canonical_json(value)}"
               for path, _, value in json_differences(old, new)]
    return "Δ " + " ".join(changes) if changes else "Δ none"


def _event_lines(events: Iterable[Event], names: list[str]) -> list[str]:
    events = list(events)
    spectator = _events_text(events, None)
    lines = []
    for seat, name in enumerate(names):
        text = _events_text(events, seat)
        lines.append(f"events {name}: {'= spectator' if text == spectator else text}")
    lines.append(f"events spectator: {spectator}")
    return lines


def _events_text(events: list[Event], viewer: int | None) -> str:
    rendered: list[Any] = [e.render(viewer) for e in events]
    return canonical_json(rendered)
