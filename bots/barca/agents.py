"""The seed's Barca agent as bots: ``choose(request) -> action`` (rules §12.1-§12.3).

:class:`BarcaBot` rebuilds the exact position from the request's view (``bpn`` and the
repetition ``history``: Barca is perfect information, so the bot sees repetitions as the
referee does), searches it with :mod:`bots.barca.search` on the evaluation vector of
:mod:`bots.barca.evaluation` and answers with the JSON action, applying the claim policy of
§12.3: a bare ``claim`` when one is available and the best move's value is below 0; ``claim``
attached to a move whose resulting position has occurred 3 times (the search scored it 0
on purpose). :class:`GreedyBarcaBot` is the same at depth 1.

Without ``time_budget_s`` (the default) a decision is a pure function of the request, the
depth and the weights; with it the search deepens iteratively and plays the deepest
completed depth (faster machines may then play differently).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bots.barca.evaluation import validate_weights
from bots.barca.search import RootResult, search, search_timed
from bots.barca.weights_file import DEFAULT_NAME, load_weights
from engine.barca import move_json
from engine.barca.position import PASS, REPETITIONS_TO_CLAIM, Position

_CLAIM: dict[str, Any] = {"type": "claim"}
_PASS: dict[str, Any] = {"type": "pass"}


@dataclass
class Decision:
    """How the last decision was made: the search's ``result`` (``None`` for a single legal
    action), the ``action`` sent and wall ``seconds``."""

    result: RootResult | None
    action: dict[str, Any]
    seconds: float


class BarcaBot:
    """The evaluation-vector agent: negamax alpha-beta at ``depth`` (default 3) with integer
    ``weights`` (15 integers, or the name of a shipped weights file or a path to one, see
    :mod:`bots.barca.weights_file`; default ``tuned``, the weights ``arena tune barca`` found,
    shipped in ``bots/barca/weights/tuned.json``; ``start`` is the rule book's §12.2);
    ``time_budget_s`` switches to iterative deepening within that many seconds per move
    (``depth`` is then the deepest it goes). ``seed`` is accepted for the bot contract; the
    agent uses no randomness."""

    name = "barca"
    games = ("barca",)
    """The games this bot plays (``arena run`` offers a house bot only for these)."""

    def __init__(self, seed: int | None = None, depth: int = 3,
                 weights: Sequence[int] | str | None = None,
                 time_budget_s: float | None = None) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be an integer of at least 1, not {depth!r}")
        if time_budget_s is not None and not time_budget_s > 0:
            raise ValueError(f"time_budget_s must be positive, not {time_budget_s!r}")
        self.seed = seed
        self.depth = depth
        self.weights = (load_weights(DEFAULT_NAME) if weights is None
                        else load_weights(weights) if isinstance(weights, str)
                        else validate_weights(weights))
        self.time_budget_s = time_budget_s
        self.last: Decision | None = None

    def choose(self, request: Mapping[str, Any]) -> Any:
        """The JSON action for a server ``request`` (``view``, ``legal_actions``)."""
        legal = request["legal_actions"]
        if len(legal) == 1:
            self.last = Decision(None, legal[0], 0.0)
            return legal[0]
        action = self.decide(Position.from_state(request["view"]))
        # The view and the legal list come from the same state, so this always holds; if it
        # ever did not, an answer from the list beats an illegal one.
        return action if action in legal else legal[0]

    def decide(self, pos: Position) -> dict[str, Any]:
        """The JSON action in ``pos`` (an ongoing game, history included; left unchanged).
        Records :attr:`last`."""
        self.decide_move(pos)
        assert self.last is not None
        return self.last.action

    def decide_move(self, pos: Position) -> tuple[int | None, bool]:
        """The decision in ``pos`` on the fast core: ``(None, True)`` for a bare claim, else
        ``(move, claim)`` (``move`` may be :data:`PASS`). Records :attr:`last` (its action
        is the JSON form)."""
        start = time.perf_counter()
        if self.time_budget_s is None:
            result = search(pos, self.depth, self.weights)
        else:
            result = search_timed(pos, self.time_budget_s, self.depth, self.weights)
        move, claim = claim_policy(pos, result)
        action = (dict(_CLAIM) if move is None else dict(_PASS) if move == PASS
                  else move_json(move, claim=claim))
        self.last = Decision(result, action, time.perf_counter() - start)
        return move, claim


def claim_policy(pos: Position, result: RootResult) -> tuple[int | None, bool]:
    """The claim policy of §12.3 on top of the search's choice: a bare claim (``None``)
    when one is available and the best move's value is below 0; otherwise the move, with
    ``claim`` when the position it makes has occurred 3 times (scored 0 on purpose)."""
    if pos.can_claim() and result.value < 0:
        return None, True
    if result.move == PASS:
        return PASS, False
    return result.move, pos.count_after(result.move) >= REPETITIONS_TO_CLAIM


class GreedyBarcaBot(BarcaBot):
    """The greedy baseline: :class:`BarcaBot` at depth 1 (the best-evaluated move now)."""

    name = "greedy"

    def __init__(self, seed: int | None = None, weights: Sequence[int] | str | None = None,
                 time_budget_s: float | None = None) -> None:
        super().__init__(seed, depth=1, weights=weights, time_budget_s=time_budget_s)
