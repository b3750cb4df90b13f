"""The SPSA tuner of the Barca agent's weights (rules §12.5), with a resumable log.

For ``k = 0 … K−1``, with ``θ`` the integer weights (``θ_0`` = the starting weights)::

    c_k = max(1, round(c / (k+1)^0.101))        a_k = a / (k+1+A)^0.602
    Δ_i = +1 if rng.random() < 0.5 else −1,     rng = random.Random(seed·1_000_003 + k)
    m   = M(θ + c_k·Δ, θ − c_k·Δ)               (the match score of §12.4, openings O)
    θ   ← clamp(round_half_even(θ + a_k · m / (2·c_k·Δ)), −1000, 1000)

and every ``check_every`` iterations (and after the last) ``M(θ, θ_best)`` on a larger
opening set: if it is > 0, ``θ_best ← θ``. The result is ``θ_best``.

**The log** is JSON lines: a header (the settings and ``θ_0``), then per iteration
``{"k", "c_k", "a_k", "delta", "m", "theta"}`` and per check ``{"check": k, "m", "best",
"accepted"}``. Nothing in it depends on the clock or on the number of worker processes, so the
same settings and code reproduce it byte for byte. :func:`tune` resumes from an existing log
with the same settings (only ``iterations`` may grow): it replays the state from the log and
goes on; a torn last line (a killed run) is dropped first.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from bots.barca.evaluation import DEFAULT_WEIGHTS, WEIGHT_LIMIT, validate_weights
from tools.tune.barca_match import Agent, GamePool, Opening, openings, play_match
from tools.tune.jsonlog import LogMismatch, read_records

__all__ = ["LogMismatch", "Settings", "State", "games_done", "read_log", "total_games", "tune"]

LOG_FORMAT: Final = "arena-tune-barca/1"


@dataclass(frozen=True)
class Settings:
    """Everything a run's log depends on (``iterations`` aside, which a resume may raise)."""

    seed: int = 1
    iterations: int = 200
    depth: int = 2
    openings: int = 8
    check_openings: int = 32
    check_every: int = 20
    c: float = 10.0
    a: float = 10.0
    big_a: float = 20.0
    start: tuple[int, ...] = DEFAULT_WEIGHTS

    def identity(self) -> dict[str, Any]:
        """The settings a resumed log must share."""
        out = asdict(self)
        del out["iterations"]
        out["start"] = list(self.start)
        return out




def gains(k: int, s: Settings) -> tuple[int, float]:
    """``(c_k, a_k)``."""
    return max(1, round(s.c / (k + 1) ** 0.101)), s.a / (k + 1 + s.big_a) ** 0.602


def perturbation(k: int, seed: int, n: int) -> list[int]:
    """``Δ`` of iteration ``k``: ``n`` signs from ``random.Random(seed·1_000_003 + k)``."""
    rng = random.Random(seed * 1_000_003 + k)
    return [1 if rng.random() < 0.5 else -1 for _ in range(n)]


def step(theta: Sequence[int], delta: Sequence[int], m: float, c_k: int,
         a_k: float) -> list[int]:
    """``clamp(round_half_even(θ + a_k · m / (2 c_k Δ)))`` (Python's ``round`` is half-even)."""
    return [max(-WEIGHT_LIMIT, min(WEIGHT_LIMIT, round(t + a_k * m / (2 * c_k * d))))
            for t, d in zip(theta, delta, strict=True)]


@dataclass
class State:
    """Where a run stands: the next ``k``, ``θ``, ``θ_best`` and the last ``m``."""

    k: int
    theta: list[int]
    best: list[int]
    last_m: float | None = None
    checks: int = 0
    accepted: int = 0


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":")) + "\n"


def read_log(path: Path, settings: Settings) -> State | None:
    """The state a log leaves off at (``None`` when there is no log yet); drops a torn last
    line; :class:`LogMismatch` if its settings differ."""
    records = read_records(path, LOG_FORMAT, settings.identity(), "arena tune barca")
    if records is None:
        return None
    state = State(0, list(settings.start), list(settings.start))
    for r in records:
        if "check" in r:
            state.best = list(r["best"])
            state.checks += 1
            state.accepted += int(r["accepted"])
        else:
            state.k = r["k"] + 1
            state.theta = list(r["theta"])
            state.last_m = r["m"]
    return state


Listener = Callable[[str, State, Settings], None]
"""Told ``("game", state, settings)`` after every finished game and
``("iteration", …)`` / ``("check", …)`` after each; for progress output."""


def total_games(s: Settings) -> int:
    """Games a whole run plays: 2 per opening per iteration and per check."""
    return 2 * (s.iterations * s.openings + _checks_before(s.iterations, s) * s.check_openings)


def games_done(state: State, s: Settings) -> int:
    """Games the iterations and checks logged so far played."""
    return 2 * (state.k * s.openings + state.checks * s.check_openings)


def _check_due(k: int, s: Settings) -> bool:
    return (k + 1) % s.check_every == 0 or k == s.iterations - 1


def tune(settings: Settings, log: str | Path, jobs: int = 1,
         on_event: Listener | None = None) -> State:
    """Run (or resume) the tuner; append to ``log``; return the final state (``best`` is
    the result)."""
    validate_weights(settings.start)
    path = Path(log)
    state = read_log(path, settings)
    notify = on_event or (lambda *_: None)
    with path.open("a", encoding="utf-8") as out:
        if state is None:
            state = State(0, list(settings.start), list(settings.start))
            out.write(_dump({"format": LOG_FORMAT, "settings": settings.identity()}))
            out.flush()
        train = openings(settings.openings, settings.seed)
        check = openings(settings.check_openings, settings.seed + 1)
        with GamePool(jobs) as pool:
            # A run killed between an iteration and its check does the check first.
            if state.k > 0 and _check_due(state.k - 1, settings) and \
                    state.checks < _checks_before(state.k, settings):
                _check(state.k - 1, state, settings, check, pool, out, notify)
            while state.k < settings.iterations:
                _iteration(state, settings, train, pool, out, notify)
                if _check_due(state.k - 1, settings):
                    _check(state.k - 1, state, settings, check, pool, out, notify)
    return state


def _checks_before(k: int, s: Settings) -> int:
    """How many checks the iterations ``0 … k−1`` are followed by."""
    return sum(1 for j in range(k) if (j + 1) % s.check_every == 0 or j == s.iterations - 1)


def _iteration(state: State, s: Settings, train: Sequence[Opening], pool: GamePool,
               out: Any, notify: Listener) -> None:
    k = state.k
    c_k, a_k = gains(k, s)
    delta = perturbation(k, s.seed, len(state.theta))
    plus = Agent(tuple(t + c_k * d for t, d in zip(state.theta, delta, strict=True)), s.depth)
    minus = Agent(tuple(t - c_k * d for t, d in zip(state.theta, delta, strict=True)), s.depth)
    m, _ = play_match(plus, minus, train, pool, lambda _r: notify("game", state, s))
    state.theta = step(state.theta, delta, m, c_k, a_k)
    state.last_m = m
    out.write(_dump({"k": k, "c_k": c_k, "a_k": a_k, "delta": delta, "m": m,
                     "theta": state.theta}))
    out.flush()
    state.k = k + 1
    notify("iteration", state, s)


def _check(k: int, state: State, s: Settings, check: Sequence[Opening], pool: GamePool,
           out: Any, notify: Listener) -> None:
    m, _ = play_match(Agent(tuple(state.theta), s.depth), Agent(tuple(state.best), s.depth),
                      check, pool, lambda _r: notify("game", state, s))
    accepted = m > 0
    if accepted:
        state.best = list(state.theta)
        state.accepted += 1
    state.checks += 1
    out.write(_dump({"check": k, "m": m, "best": state.best, "accepted": accepted}))
    out.flush()
    notify("check", state, s)
