"""The seed report's Chexers agents as bots: ``choose(request) -> action`` (rules §9.2-§9.8).

Every bot rebuilds the exact position from the request's view (Chexers is perfect
information; the view carries the repetition history, so draws by repetition are seen as the
referee sees them), searches it with :mod:`bots.chexers.search` and answers with the JSON
action. :meth:`ChexersBot.decide` does the same on a :class:`Position` (benches, tests).

Time: ``depth`` is the deepest search; a per-move budget comes from ``time_ms`` and, when the
request carries the seat's clock (``clock_ms``), from ``clock_share`` of the remaining bank,
whichever is smaller. With a budget the search deepens iteratively (1, 2, … ``depth``) and
plays the deepest complete result; without one it searches ``depth`` directly, and then every
bot but :class:`RandomMaxnBot` is a pure function of the position (RandomMaxn draws from its
own seeded generator, so it too repeats itself under the same seed).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from bots.chexers.evaluation import Evaluator
from bots.chexers.search import RootResult, Search, SearchTimeout
from engine.chexers import Act, Position
from engine.rng import Rng

DEFAULT_CLOCK_SHARE: Final = 1 / 30
"""Of the remaining bank, what one decision may spend (a game rarely lasts 60 own turns)."""
MIN_BUDGET_S: Final = 0.02
DEFAULT_THRESHOLD: Final = 40
"""MP-Mix's default T_d and T_o: two piece-equivalents in ×20 units (§9.7)."""


def _positive_or_none(name: str, value: Any) -> int | None:
    """``value`` if it is ``None`` or an integer ≥ 1 (not a bool), else :class:`ValueError`
    (options arrive from command lines, so a string or a float must not slip through)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer of at least 1, not {value!r}")
    return value


@dataclass
class Decision:
    """How the last decision was made: the ``mode`` searched (``maxn``, ``paranoid``,
    ``offensive``, ``greedy``, ``two_player`` or ``forced`` for a single legal action), the
    ``depth`` completed, the root ``value``, node counts and wall ``seconds``."""

    mode: str
    depth: int
    value: tuple[int, ...] | int | None
    action: Act
    nodes: int = 0
    leaves: int = 0
    cutoffs: int = 0
    seconds: float = 0.0
    target: int | None = None


SearchFn = Callable[[Search, int], RootResult]


class ChexersBot:
    """Base of the search bots. Subclasses implement :meth:`_decide`."""

    name = "chexers"
    games = ("chexers",)
    """The games these bots play (``arena run`` offers a house bot only for these)."""

    def __init__(self, seed: int | None = None, *, depth: int | None = None,
                 time_ms: float | None = None, clock_share: float = DEFAULT_CLOCK_SHARE,
                 variant: str = "sum", prune: bool = True, two_player: bool = False,
                 two_player_depth: int | None = None, leaf_scan: bool = True,
                 cautious: bool | None = None, max_nodes: int | None = None,
                 quiesce: int = 0, zero_sum: bool = False) -> None:
        self.seed = seed
        self.depth = depth if depth is not None else self.default_depth
        if self.depth < 1:
            raise ValueError("depth must be at least 1")
        self.time_ms = time_ms
        self.clock_share = clock_share
        self.variant = variant
        Evaluator(12, variant)  # validate the name now rather than mid-match
        self.prune = prune
        self.two_player = two_player
        self.two_player_depth = two_player_depth
        self.leaf_scan = leaf_scan
        if cautious is None:
            cautious = self.default_cautious
        if not isinstance(cautious, bool):
            raise ValueError(f"cautious must be true or false, not {cautious!r}")
        self.cautious = cautious
        self.max_nodes = _positive_or_none("max_nodes", max_nodes)
        if isinstance(quiesce, bool) or not isinstance(quiesce, int) or quiesce < 0:
            raise ValueError(f"quiesce must be an integer of at least 0, not {quiesce!r}")
        self.quiesce = quiesce
        if not isinstance(zero_sum, bool):
            raise ValueError(f"zero_sum must be true or false, not {zero_sum!r}")
        self.zero_sum = zero_sum
        self.rng = Rng(seed if seed is not None else 0)
        self.last: Decision | None = None

    default_depth = 3
    default_cautious = False
    """Ties as §9.1 says (the first child); MP-Mix breaks them cautiously by default."""

    # ---- the bot interface --------------------------------------------------------------------

    def choose(self, request: Mapping[str, Any]) -> Any:
        """The JSON action for a server ``request`` (``view``, ``legal_actions``,
        ``clock_ms``)."""
        legal = request["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        pos = Position.from_view(request["view"])
        act = self.decide(pos, budget_s=self.budget_s(request.get("clock_ms")))
        chosen = act.to_json()
        # The view and the legal list come from the same state, so this always holds; if it
        # ever did not, an answer from the list beats an illegal one.
        return chosen if chosen in legal else legal[0]

    def budget_s(self, clock_ms: int | None) -> float | None:
        """Seconds this decision may take: ``None`` for no limit (fixed depth)."""
        budgets = []
        if self.time_ms is not None:
            budgets.append(self.time_ms / 1000)
        if clock_ms is not None:
            budgets.append(clock_ms / 1000 * self.clock_share)
        if not budgets:
            return None
        return max(MIN_BUDGET_S, min(budgets))

    def decide(self, pos: Position, budget_s: float | None = None) -> Act:
        """The action to play in ``pos`` (left unchanged). Records :attr:`last`."""
        start = time.perf_counter()
        legal = pos.legal_actions()
        if len(legal) == 1:
            self.last = Decision("forced", 0, None, legal[0])
        else:
            deadline = None if budget_s is None else start + budget_s
            self.last = self._decide(pos, deadline)
        self.last.seconds = time.perf_counter() - start
        return self.last.action

    def _decide(self, pos: Position, deadline: float | None) -> Decision:
        raise NotImplementedError

    # ---- helpers ------------------------------------------------------------------------------

    def evaluator(self, pos: Position) -> Evaluator:
        return Evaluator.for_position(pos, self.variant)

    def deepen(self, pos: Position, search: SearchFn, depth: int, deadline: float | None,
               mode: str, rival: int = -1) -> tuple[Decision, RootResult]:
        """Run ``search`` at ``depth`` (no deadline, no node budget), or at 1, 2, … ``depth``
        until the deadline or the node budget (``max_nodes``, interior nodes over all
        iterations) runs out, keeping the deepest complete result. An iteration is not started
        when the last one's cost times the observed growth would overrun the deadline or the
        budget. Depth 1 always completes."""
        ev = self.evaluator(pos)
        nodes = leaves = cutoffs = 0
        budget = self.max_nodes
        if deadline is None and budget is None:
            s = Search(pos, ev, prune=self.prune, leaf_scan=self.leaf_scan,
                       cautious=self.cautious, quiesce=self.quiesce, rival=rival)
            result = search(s, depth)
            return self._record(mode, depth, result, s), result
        best: tuple[int, RootResult] | None = None
        previous = 0.0
        previous_nodes = 0
        for d in range(1, depth + 1):
            t0 = time.perf_counter()
            s = Search(pos, ev, prune=self.prune, leaf_scan=self.leaf_scan,
                       cautious=self.cautious, quiesce=self.quiesce, rival=rival,
                       deadline=deadline if d > 1 else None,
                       max_nodes=budget - nodes if budget is not None and d > 1 else None)
            try:
                result = search(s, d)
            except SearchTimeout:
                nodes += s.stats.nodes
                break
            nodes += s.stats.nodes
            leaves += s.stats.leaves
            cutoffs += s.stats.cutoffs
            best = (d, result)
            if budget is not None:
                # Deterministic: node counts, not the clock, decide whether to go on.
                done = s.stats.nodes
                growth_n = (max(3.0, done / previous_nodes) if previous_nodes > 0
                            else 8.0)
                previous_nodes = max(done, 1)
                if nodes + done * growth_n > budget:
                    break
            if deadline is not None:
                now = time.perf_counter()
                spent = now - t0
                growth = max(3.0, spent / previous) if previous > 0 else 8.0
                previous = spent
                if now + spent * growth > deadline:
                    break
        assert best is not None  # depth 1 runs without a deadline
        d, result = best
        decision = Decision(mode, d, result.value, result.action, nodes, leaves, cutoffs)
        return decision, result

    @staticmethod
    def _record(mode: str, depth: int, result: RootResult, s: Search) -> Decision:
        return Decision(mode, depth, result.value, result.action, s.stats.nodes,
                        s.stats.leaves, s.stats.cutoffs)

    def knocked_out_opponent(self, pos: Position) -> bool:
        """Exactly one opponent has no piece left (it can only PASS from now on)."""
        me = pos.turn % 3
        return sum(1 for c in range(3) if c != me and pos.bb[c] == 0) == 1

    def two_player_search(self, pos: Position, deadline: float | None) -> Decision:
        """The report's reduction once an opponent is knocked out: the game is a duel, so
        search it as paranoid alpha-beta (the knocked-out seat's passes are single-child
        turns, so two more turns of depth cost little). The report's duel values the root's
        utility alone; with ``zero_sum`` it values ``U_root − U_rival`` (the opponent still
        in play), so the rival's progress and a lost race count against the root too."""
        depth = self.two_player_depth or self.depth + 2
        me = pos.turn % 3
        rival = -1
        if self.zero_sum:
            rival = next(c for c in range(3) if c != me and pos.bb[c])
        decision, _ = self.deepen(pos, lambda s, d: s.paranoid(d), depth, deadline,
                                  "two_player", rival)
        return decision


# ---- the agents ------------------------------------------------------------------------------


class GreedyBot(ChexersBot):
    """One ply: the action with the highest ``U_me`` afterwards; ties to the first (§9.3)."""

    name = "greedy"
    default_depth = 1

    def _decide(self, pos: Position, deadline: float | None) -> Decision:
        s = Search(pos, self.evaluator(pos), leaf_scan=self.leaf_scan, quiesce=self.quiesce)
        return self._record("greedy", 1, s.maxn(1), s)


class MaxnBot(ChexersBot):
    """Maxⁿ (default depth 3) with shallow pruning (flag ``prune``, default on) (§9.4)."""

    name = "maxn"
    default_depth = 3

    def _decide(self, pos: Position, deadline: float | None) -> Decision:
        if self.two_player and self.knocked_out_opponent(pos):
            return self.two_player_search(pos, deadline)
        decision, result = self.deepen(pos, lambda s, d: s.maxn(d), self.depth, deadline,
                                       "maxn")
        return self._pick(pos, decision, result)

    def _pick(self, pos: Position, decision: Decision, result: RootResult) -> Decision:
        return decision


def pick_random_tie(pos: Position, decision: Decision, result: RootResult, rng: Rng
                    ) -> Decision:
    """RandomMaxn's root choice: a draw from ``rng`` among the root actions whose maxⁿ vector
    ties for the best ``v[root]`` (no draw when only one does, so the generator moves only on
    real ties)."""
    root = pos.turn % 3

    def own(value: tuple[int, ...] | int) -> int:
        assert isinstance(value, tuple)
        return value[root]

    top = own(result.value)
    tied = [(act, v) for act, v in result.children if own(v) == top]
    act, value = tied[rng.below(len(tied))] if len(tied) > 1 else tied[0]
    decision.action, decision.value = act, value
    return decision


class RandomMaxnBot(MaxnBot):
    """Maxⁿ, but a seeded random choice among the root actions whose vector ties for the best
    ``v[root]`` (§9.4, the report's RandomMaxn)."""

    name = "random-maxn"

    def _pick(self, pos: Position, decision: Decision, result: RootResult) -> Decision:
        return pick_random_tie(pos, decision, result, self.rng)


class ParanoidBot(ChexersBot):
    """Paranoid (default depth 4): negamax alpha-beta of the root's utility against both
    opponents (§9.5)."""

    name = "paranoid"
    default_depth = 4

    def _decide(self, pos: Position, deadline: float | None) -> Decision:
        decision, _ = self.deepen(pos, lambda s, d: s.paranoid(d), self.depth, deadline,
                                  "paranoid")
        return decision


def leader_of(h: list[int] | tuple[int, ...], root: int) -> int:
    """The colour with the largest ``h``; ties go to ``root``, then to the earliest colour
    after it in turn order (§9.7)."""
    order = [root, (root + 1) % 3, (root + 2) % 3]
    return max(order, key=lambda c: (h[c], -order.index(c)))


def strongest_opponent(h: list[int] | tuple[int, ...], root: int) -> int:
    """The opponent with the largest ``h``; ties to the earliest after ``root``."""
    order = [(root + 1) % 3, (root + 2) % 3]
    return max(order, key=lambda c: (h[c], -order.index(c)))


class OffensiveBot(ChexersBot):
    """Offensive (default depth 3): maxⁿ where the root minimises the leader's utility
    (§9.6). ``target`` fixes the colour to attack; by default the strongest opponent by the
    current utilities."""

    name = "offensive"
    default_depth = 3

    def __init__(self, seed: int | None = None, *, target: int | None = None,
                 **options: Any) -> None:
        super().__init__(seed, **options)
        self.target = target

    def _decide(self, pos: Position, deadline: float | None) -> Decision:
        root = pos.turn % 3
        ev = self.evaluator(pos)
        target = self.target
        if target is None or target == root:
            target = strongest_opponent([ev.static(pos, c) for c in range(3)], root)
        decision, _ = self.deepen(pos, lambda s, d: s.offensive(d, target), self.depth,
                                  deadline, "offensive")
        decision.target = target
        return decision


def mpmix_strategy(h: list[int] | tuple[int, ...], root: int, t_d: int, t_o: int
                   ) -> tuple[str, int | None]:
    """MP-Mix's choice (§9.7): ``("paranoid", None)`` when the root leads by ``≥ t_d``,
    ``("offensive", leader)`` when another colour leads by ``≥ t_o``, else
    ``("maxn", None)``."""
    leader = leader_of(h, root)
    ranked = sorted(h, reverse=True)
    edge = ranked[0] - ranked[1]
    if leader == root and edge >= t_d:
        return "paranoid", None
    if leader != root and edge >= t_o:
        return "offensive", leader
    return "maxn", None


class MPMixBot(ChexersBot):
    """MP-Mix(T_d, T_o) (§9.7): paranoid (depth ``paranoid_depth``, default 4) when leading
    by ``t_d``, offensive against the leader (depth ``offensive_depth``, default ``depth``)
    when it leads by ``t_o``, else maxⁿ (depth ``depth``). Exactly one search per decision;
    with ``random_ties`` the maxⁿ mode draws among root ties as RandomMaxn does.

    Three defaults differ from §9.7 (measured in ``bots/chexers/README.md``): ``depth`` 4
    instead of 3 (maxⁿ and offensive then end on the root's own turn, as paranoid 4 does),
    ``cautious`` ties (an opponent's tie is resolved against the root; the root's offensive
    tie in its own favour), and the duel once an opponent is knocked out: ``two_player`` and
    ``zero_sum`` (alpha-beta of ``U_root − U_rival`` at depth ``depth + 2``).
    ``MPMixBot(depth=3, cautious=False, two_player=False, zero_sum=False)`` is §9.7's agent
    exactly."""

    name = "mp-mix"
    default_depth = 4
    default_cautious = True

    def __init__(self, seed: int | None = None, *, t_d: int = DEFAULT_THRESHOLD,
                 t_o: int = DEFAULT_THRESHOLD, paranoid_depth: int = 4,
                 offensive_depth: int | None = None, random_ties: bool = False,
                 **options: Any) -> None:
        options.setdefault("two_player", True)
        options.setdefault("zero_sum", True)
        super().__init__(seed, **options)
        self.t_d = t_d
        self.t_o = t_o
        self.paranoid_depth: int = _positive_or_none("paranoid_depth", paranoid_depth) or 4
        self.offensive_depth = (_positive_or_none("offensive_depth", offensive_depth)
                                or self.depth)
        if not isinstance(random_ties, bool):
            raise ValueError(f"random_ties must be true or false, not {random_ties!r}")
        self.random_ties = random_ties

    def strategy(self, pos: Position) -> tuple[str, int | None]:
        ev = self.evaluator(pos)
        h = [ev.static(pos, c) for c in range(3)]
        return mpmix_strategy(h, pos.turn % 3, self.t_d * ev.scale, self.t_o * ev.scale)

    def _decide(self, pos: Position, deadline: float | None) -> Decision:
        if self.two_player and self.knocked_out_opponent(pos):
            return self.two_player_search(pos, deadline)
        mode, target = self.strategy(pos)
        if mode == "paranoid":
            decision, _ = self.deepen(pos, lambda s, d: s.paranoid(d), self.paranoid_depth,
                                      deadline, "paranoid")
        elif mode == "offensive":
            assert target is not None
            decision, _ = self.deepen(pos, lambda s, d: s.offensive(d, target),
                                      self.offensive_depth, deadline, "offensive")
            decision.target = target
        else:
            decision, result = self.deepen(pos, lambda s, d: s.maxn(d), self.depth, deadline,
                                           "maxn")
            if self.random_ties:
                decision = pick_random_tie(pos, decision, result, self.rng)
        return decision


#: Registry names → bot classes (each is also a factory ``cls(seed=None, **options)``).
AGENTS: Final[dict[str, type[ChexersBot]]] = {
    "greedy": GreedyBot,
    "maxn": MaxnBot,
    "random-maxn": RandomMaxnBot,
    "paranoid": ParanoidBot,
    "offensive": OffensiveBot,
    "mp-mix": MPMixBot,
}
