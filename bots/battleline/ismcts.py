"""ISMCTS for Battle Line: information-set Monte Carlo search over worlds drawn from the view,
with Deep Barca's model as prior and NumPy rollouts to the end of the game (or the model) as
the leaves.

Deep Barca (:mod:`bots.battleline.deep_barca`) values each play by one look at the table: the
chance of winning the game once the card lies there, every unseen card shared out evenly. It
never looks at what the opponent can answer, at the card it will draw, or at a tactics card
beyond its few rules. This bot searches those.

One decision (``choose``):

1. Claims, forced actions, draws and Scout returns: Deep Barca's rules (they are cheap and
   sound; the search is spent on the plays, where the game is decided).
2. A play that wins the game now (Deep Barca's rule 2): played at once.
3. Otherwise the **candidates**: every legal play — troop and tactics cards alike, pass
   included — valued by Deep Barca's model right after it (its *prior*: the chance of winning
   the game by one look), the ``width`` best kept, and Deep Barca's own choice always among
   them.
4. The **search** with ``leaf="model"``: the root of the tree is this seat's information
   set, its children the candidates. Each iteration samples a *world*
   (:func:`bots.battleline.worlds.sample_world`:
   the opponent's hand, the deck order and the cards the opponent returned with Scout, drawn
   from the view alone — the bot never sees a hidden card) and plays one candidate in it: this
   seat's claims and draw, then the opponent's claims, its reply and its draw, up to this
   seat's next play. There the leaf is valued by the model from this seat's view of the world
   it has reached (a terminal leaf is 1 or 0). The opponent's node is played by ``reply``:
   ``"model"`` (default) — Deep Barca deciding from the opponent's view of the world, so the
   search asks "what will a sound opponent holding these cards answer?"; ``"greedy"`` — the
   formation-strength baseline, ten times cheaper and, measured, much worse (see the README).
   The root allocates iterations by *sequential halving* (Karnin et al. 2013, the root rule of
   Gumbel MuZero): a round plays every surviving candidate in the same fresh world — common
   worlds, so two candidates are compared on the same cards — and each phase keeps the
   better half. A candidate's value is the mean of its leaves mixed with its prior, which
   counts as ``prior_weight`` leaves.
5. **Anytime**: ``iterations`` bounds the leaves of one decision (deterministic for a given
   ``seed``: the budget the strength runs use), ``time_ms`` bounds its wall time (default
   900 ms, checked before every leaf; a leaf takes 10–30 ms, so a decision stays under a
   second; with rollouts a chunk starts only if, at the slowest rate per rollout seen so far,
   it ends within the time); when time runs out the best candidate so far is played.
6. ``leaf="rollout"`` (the default; measured stronger, see the README): instead of one look
   by the model after the opponent's reply (``leaf="model"``, steps 4–5), every
   candidate troop play is played out **to the end of the game** in the same deals
   (:mod:`bots.battleline.rollouts`: NumPy, all candidates and worlds in one batch of
   arrays, a noisy policy for both seats — ``policy``), ``chunk`` worlds at a time. A
   candidate's value is its share of won rollouts plus ``mix`` times its prior. The worlds
   are **raced**: after each chunk (from the second on) a candidate leaves when the leader's
   value is ahead of its own by more than ``race`` standard errors of their paired
   difference over the worlds both played, so the rollouts go to the candidates still in
   doubt; the search stops at ``worlds`` worlds, at ``budget`` rollouts in all, when one
   candidate is left, or at ``time_ms``. A pass, a tactics play or a play on a flag
   carrying a tactics card is left to Deep Barca (a rollout plays troop cards only).

Options: ``iterations=20``, ``time_ms=900`` (``None``: no wall-time bound), ``width=6``,
``prior_weight=8``, ``reply="model"``, ``tactics=False`` (search tactics plays beyond the one
Deep Barca's rules pick; measured worse: the model overvalues a wild card laid now),
``rules=True`` (keep Deep Barca's save and discard rules rather than search them),
``leaf="rollout"`` (with ``worlds=3000``, ``chunk=100``, ``race=2.0`` (``None``: every
candidate plays every world), ``budget=6000`` rollouts (``None``: no bound), ``claims=True``
(a rollout closes a flag once a side is proven to win it, :mod:`bots.battleline.rollouts`;
``False``: every flag stays open until both sides complete), ``unplayed=True`` (the proofs
and the formation policy count only the troop cards the table has not played: a pair whose
completions are gone is neither proven able to win nor courted as a wedge; ``False``: a
pair's kind alone), ``mix=1.0``, the
rollout ``policy`` — ``"formation"``, ``"imitation"`` or a weights file from ``arena tune
battleline-rollout``, see :mod:`bots.battleline.rollout_policy` — and its
``temperature=0.3``; ``infer=0``: when positive, the opponent's last play (one troop card since
this seat's previous play) weighs each rollout world by how likely the imitation policy at
temperature ``infer`` makes that play from the world's dealt hand, so worlds that explain the
reply count more; ``first_reply=True``: the opponent's first move in every rollout is Deep
Barca's choice rather than the policy's — each candidate's table of Deep Barca's values for
every card the opponent may hold on every flag, from what the opponent knows (the table and
the deck, its own hand unknown to this seat), and each world's opponent plays the best card
of its dealt hand by it (56% of Deep Barca's model plays agree with that choice, 147 of 261
in six self-play games; the formation policy's top play 25.6%, see the README; measured 4.3
points stronger on the same deals; ``False``: the policy's move); ``"model"``: the
model-valued leaves of step 4), ``seed``, and Deep Barca's model options
(``top_formations`` …) for the priors, the leaves and the modelled opponent.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bots.battleline import rollouts
from bots.battleline.board import after_play, board_of, has_slot, is_troop
from bots.battleline.deep_barca import DeepBarca
from bots.battleline.greedy import GreedyBot
from bots.battleline.model import Model, card_names
from bots.battleline.rollout_policy import (
    FORMATION,
    IMITATION,
    caps_given,
    formation_given,
    load_policy,
)
from bots.battleline.worlds import DeckOrder, sample_world
from engine import registry
from engine.battleline.cards import INDEX, NUM_TROOPS
from engine.battleline.rules import NUM_FLAGS
from engine.core import CHANCE, State, canonical_json

REPLIES = ("greedy", "model")
PREVIOUS_KEPT = 256
"""Matches (x seats) whose last table ``infer`` remembers."""
LEAVES = ("model", "rollout")


@dataclass
class Candidate:
    """A root child: an action, its prior (the model's one-look value) and its leaves."""

    action: Any
    prior: float
    total: float = 0.0
    visits: float = 0

    def value(self, prior_weight: float) -> float:
        return (self.total + prior_weight * self.prior) / (self.visits + prior_weight)


@dataclass
class SearchStats:
    """What the last decision's search did (for benches and tests)."""

    iterations: int = 0
    candidates: int = 0
    elapsed_ms: float = 0.0
    rule: str = ""
    values: dict[str, float] = field(default_factory=dict)


class IsmctsBot:
    """``choose(request)``: an ISMCTS decision for a Battle Line request."""

    name = "ismcts"
    games = ("battleline",)
    """The games this bot plays (``arena run`` offers it as a house bot only for these)."""

    def __init__(self, seed: int | None = None, *, iterations: int = 20,
                 time_ms: float | None = 900.0, width: int = 6, prior_weight: float = 8.0,
                 reply: str = "model", tactics: bool = False, rules: bool = True,
                 leaf: str = "rollout", worlds: int = 3000, chunk: int = 100, mix: float = 1.0,
                 temperature: float = 0.3, policy: str = "formation", infer: float = 0.0,
                 budget: int | None = 6000, race: float | None = 2.0, claims: bool = True,
                 unplayed: bool = True, first_reply: bool = True,
                 **model_options: Any) -> None:
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        if width < 1:
            raise ValueError("width must be at least 1")
        if reply not in REPLIES:
            raise ValueError(f"reply must be one of {', '.join(REPLIES)}")
        if leaf not in LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(LEAVES)}")
        if worlds < 1 or chunk < 1:
            raise ValueError("worlds and chunk must be at least 1")
        self.seed = seed
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.time_ms = time_ms
        self.width = width
        self.prior_weight = prior_weight
        self.reply = reply
        self.tactics = tactics
        self.searched = ("model", "pass") if rules else ("model", "pass", "save", "discard")
        self.base = DeepBarca(**model_options)
        self.opponent = DeepBarca(**model_options) if reply == "model" else GreedyBot()
        self.game = registry.get("battleline")
        self.stats = SearchStats()
        self.leaf = leaf
        self.worlds = worlds
        self.chunk = chunk
        if budget is not None and budget < 1:
            raise ValueError("budget must be at least 1 rollout (or None: no bound)")
        if race is not None and race < 0:
            raise ValueError("race must be a number of standard errors, 0 or more")
        if not isinstance(claims, bool):
            raise ValueError("claims must be true or false")
        if not isinstance(unplayed, bool):
            raise ValueError("unplayed must be true or false")
        self.unplayed = unplayed
        if not isinstance(first_reply, bool):
            raise ValueError("first_reply must be true or false")
        self.first_reply = first_reply
        self.budget = budget
        self.race = race
        self.claims = claims
        self.mix = mix
        if infer < 0:
            raise ValueError("infer must be 0 (off) or a positive temperature")
        self.infer = infer
        # (match, seat) -> the view this seat last moved on: one bot may play many matches at
        # once (a house bot), so keyed by match, and only the most recent kept.
        self._previous: dict[tuple[Any, int], Mapping[str, Any]] = {}
        self.temperature = temperature
        self.policy = load_policy(policy)
        self.np_rng = np.random.default_rng(seed)

    def choose(self, request: Mapping[str, Any]) -> Any:
        view, seat = request["view"], request["seat"]
        action = self._choose(request)
        if view["phase"] == "play" and action["type"] in ("play", "pass"):
            # The table this seat last moved on: the next decision reads the opponent's
            # reply from the difference (``infer``).
            key = (request.get("match_id"), seat)
            self._previous.pop(key, None)
            self._previous[key] = view
            if len(self._previous) > PREVIOUS_KEPT:
                del self._previous[next(iter(self._previous))]
        return action

    def _choose(self, request: Mapping[str, Any]) -> Any:
        start = time.perf_counter()
        view, legal, seat = request["view"], request["legal_actions"], request["seat"]
        base = self.base.decide(view, legal, seat)
        self.stats = SearchStats(rule=base.rule)
        if view["phase"] != "play" or base.rule not in self.searched:
            return base.action
        candidates = self._candidates(view, legal, seat, base.action)
        if len(candidates) == 1:
            return candidates[0].action
        if self.leaf == "rollout":
            previous = self._previous.get((request.get("match_id"), seat))
            return self._rollout_search(view, seat, candidates, base.action, start, previous)
        return self._search(view, seat, candidates, start)

    # ---- candidates -------------------------------------------------------------------------

    def _candidates(self, view: Mapping[str, Any], legal: Sequence[Any], seat: int,
                    chosen: Any) -> list[Candidate]:
        board = board_of(view)
        model = self.base.model(view, seat, board)
        plays = [a for a in legal if a["type"] == "play"]
        troop = [a for a in plays if is_troop(a["card"])]
        out: list[Candidate] = []
        if troop:
            cards = sorted({a["card"] for a in troop})
            slots = sorted({a["flag"] - 1 for a in troop})
            values = model.play_values(cards, slots)
            out.extend(Candidate(a, values[(a["card"], a["flag"] - 1)]) for a in troop)
        now = model.game(model.flags())
        for action in plays:
            if is_troop(action["card"]) or (not self.tactics and action != chosen):
                continue
            if action["card"] == "Scout":
                out.append(Candidate(action, now))
                continue
            after, _ = after_play(board, seat, action)
            out.append(Candidate(action, model.game(model.flags(after))))
        out.extend(Candidate(a, now) for a in legal if a["type"] == "pass")
        out.sort(key=lambda c: (-c.prior, canonical_json(c.action)))
        # A card on one empty flag or another differs only by the flags' neighbours: keep
        # the best-valued empty flag per card, so the width holds different ideas.
        flags = view["flags"]
        seen: set[str] = set()
        distinct = []
        for cand in out:
            a = cand.action
            if a["type"] == "play" and "flag" in a and is_troop(a["card"]):
                f = flags[a["flag"] - 1]
                if not f["sides"][0] and not f["sides"][1] and not f["env"]:
                    if a["card"] in seen and a != chosen:
                        continue
                    seen.add(a["card"])
            distinct.append(cand)
        out = distinct
        kept = out[:self.width]
        if all(c.action != chosen for c in kept):
            kept.extend(c for c in out if c.action == chosen)
        return kept

    # ---- the search -------------------------------------------------------------------------

    def _search(self, view: Mapping[str, Any], seat: int, candidates: list[Candidate],
                start: float) -> Any:
        deadline = None if self.time_ms is None else start + self.time_ms / 1000.0
        alive = list(candidates)
        phases = max(1, (len(alive) - 1).bit_length())
        budget = self.iterations
        spent = 0
        out_of_time = False
        for phase in range(phases):
            if len(alive) == 1:
                break
            rounds = max(1, (budget - spent) // ((phases - phase) * len(alive)))
            for _ in range(rounds):
                world = sample_world(view, seat, self.rng)
                order = DeckOrder(self.rng)
                for cand in alive:
                    if deadline is not None and time.perf_counter() > deadline:
                        out_of_time = True
                        break
                    cand.total += self._leaf(world, order, seat, cand.action)
                    cand.visits += 1
                    spent += 1
                if out_of_time:
                    break
            alive.sort(key=lambda c: -c.value(self.prior_weight))
            if out_of_time:
                break
            alive = alive[:max(1, (len(alive) + 1) // 2)]
        best = max(alive, key=lambda c: c.value(self.prior_weight))
        self.stats.iterations = spent
        self.stats.candidates = len(candidates)
        self.stats.elapsed_ms = (time.perf_counter() - start) * 1000.0
        self.stats.values = {canonical_json(c.action): round(c.value(self.prior_weight), 4)
                             for c in candidates}
        return best.action

    def _rollout_search(self, view: Mapping[str, Any], seat: int, candidates: list[Candidate],
                        chosen: Any, start: float,
                        previous: Mapping[str, Any] | None = None) -> Any:
        """``leaf="rollout"``: the candidates played out to the end in common worlds, ``chunk``
        worlds at a time and raced (module docstring, step 6); a candidate's value is its
        share of won rollouts plus ``mix`` times its prior."""
        deadline = None if self.time_ms is None else start + self.time_ms / 1000.0
        chance = self.base.model(view, seat).flags()
        table = rollouts.table_of(view, seat, chance)
        alive = [c for c in candidates if c.action["type"] == "play"
                 and is_troop(c.action["card"]) and not table.fixed[c.action["flag"] - 1]]
        if len(alive) < 2 or all(c.action != chosen for c in alive):
            # A pass, a tactics play or a flag a rollout cannot play on: Deep Barca decides.
            return chosen
        likelihood = (_last_play_likelihood(previous, view, seat, table, self.infer)
                      if self.infer > 0 and previous is not None else None)
        policy, caps = self.policy, None
        if self.unplayed:
            caps = caps_given(rollouts.unplayed(view))
            if policy is FORMATION:
                policy = formation_given(caps)
        first = (dict(zip(map(id, alive), self._first_reply_values(
            view, seat, [c.action for c in alive]), strict=True)) if self.first_reply else None)
        results: dict[int, list[np.ndarray]] = {id(c): [] for c in alive}
        weights: list[np.ndarray] = []
        racing = list(alive)
        done = spent = 0
        per_rollout = 0.0     # seconds a rollout took so far: a chunk starts only if it fits
        while done < self.worlds:
            if deadline is not None and done and time.perf_counter() + per_rollout * len(
                    racing) * min(self.chunk, self.worlds - done) > deadline:
                break
            chunk_start = time.perf_counter()
            if self.budget is not None and done and spent + len(racing) * min(
                    self.chunk, self.worlds - done) > self.budget:
                break
            n = min(self.chunk, self.worlds - done)
            plays = [(INDEX[c.action["card"]], c.action["flag"] - 1) for c in racing]
            finals = rollouts.play_out(
                table, plays, n, self.np_rng, self.temperature, policy, claims=self.claims,
                caps=caps, first=None if first is None else np.stack(
                    [first[id(c)] for c in racing]))
            won = rollouts.wins(table, finals, self.np_rng)
            weight = (np.ones(n) if likelihood is None else likelihood(finals.opp_hand))
            weights.append(weight)
            for cand, row in zip(racing, won, strict=True):
                results[id(cand)].append(row)
                cand.total += float(row @ weight)
                cand.visits += float(weight.sum())
            done += n
            spent += n * len(racing)
            per_rollout = max(per_rollout, (time.perf_counter() - chunk_start) / (n * len(racing)))
            if self.race is not None and len(racing) > 1:
                racing = self._race(racing, results, np.concatenate(weights))
                if len(racing) == 1:
                    break

        def value(c: Candidate) -> float:
            return c.total / c.visits + self.mix * c.prior

        # A candidate dropped from the race kept its value over the worlds it played; the
        # winner is among those still racing (they played every world).
        best = max(racing, key=value)
        self.stats.iterations = spent
        self.stats.candidates = len(alive)
        self.stats.elapsed_ms = (time.perf_counter() - start) * 1000.0
        self.stats.values = {canonical_json(c.action): round(value(c), 4) for c in alive}
        return best.action

    def _first_reply_values(self, view: Mapping[str, Any], seat: int,
                            actions: Sequence[Any]) -> list[np.ndarray]:
        """Per action, ``(60, 9)``: Deep Barca's value, for the opponent, of each troop card
        it may hold on each flag it may play on once this seat made the action (-inf
        elsewhere). The opponent's model is built from what it knows — the table and the
        deck; its hand is unknown to this seat, so every card the opponent has not seen
        counts as unseen — and is the same in every world: each world's opponent plays the
        best card of its dealt hand. One model serves every action (the card this seat lays
        stays in the opponent's unseen pool, a small approximation), so flags an action
        leaves alone are valued once."""
        opp = 1 - seat
        board = board_of(view)
        deck = max(0, view["decks"]["troop"] - 1)       # this seat draws after its play
        model = Model(board, opp, [], [], deck, self.base.params)
        unseen = card_names(model.unseen)     # its hand is empty: all it has not seen
        out = []
        for action in actions:
            after, _ = after_play(board, seat, action)
            slots = [n for n, f in enumerate(after["flags"]) if has_slot(f, opp)]
            cards = [c for c in unseen if c != action["card"]]
            table = np.full((NUM_TROOPS, NUM_FLAGS), -np.inf)
            for (card, n), value in model.play_values(cards, slots, after).items():
                table[INDEX[card], n] = value
            out.append(table)
        return out

    def _race(self, racing: list[Candidate], results: Mapping[int, list[np.ndarray]],
              weight: np.ndarray) -> list[Candidate]:
        """The candidates still in the race: a candidate leaves when the leader's value is
        ahead of its own by more than ``race`` standard errors of their paired difference
        over the common worlds (its rollouts and the leader's ran on the same cards)."""
        wins = {id(c): np.concatenate(results[id(c)]).astype(np.float64) for c in racing}
        total = float(weight.sum())
        race = 0.0 if self.race is None else self.race
        if len(weight) < 2 * self.chunk or total <= 0:
            return racing
        norm = weight / total
        ess = total * total / float(weight @ weight)
        value = {id(c): float(wins[id(c)] @ norm) + self.mix * c.prior for c in racing}
        leader = max(racing, key=lambda c: value[id(c)])
        kept = []
        for cand in racing:
            if cand is leader:
                kept.append(cand)
                continue
            diff = wins[id(leader)] - wins[id(cand)]
            mean = float(diff @ norm)
            spread = float(np.sqrt(max(float((diff - mean) ** 2 @ norm), 1e-12) / ess))
            if value[id(leader)] - value[id(cand)] <= race * spread:
                kept.append(cand)
        return kept

    def _leaf(self, world: State, order: DeckOrder, seat: int, action: Any) -> float:
        """Play ``action`` in ``world`` up to this seat's next play; the model's value there."""
        game = self.game
        state = game.apply_unchecked(world, {seat: action}).state
        while True:
            decision = game.decision(state)
            if decision.terminal:
                outcome = game.outcome(state)
                if outcome is None:
                    return 0.5
                ranks = outcome.ranks
                if ranks[seat] == ranks[1 - seat]:
                    return 0.5
                return 1.0 if ranks[seat] < ranks[1 - seat] else 0.0
            if decision.chance:
                card = order.pick([c for c, _ in game.chance_outcomes(state)])
                state = game.apply_unchecked(state, {CHANCE: card}).state
                continue
            actor = decision.seats[0]
            if actor == seat and state["phase"] == "play" and not state["claimable"]:
                view = game.view(state, seat)
                model = self.base.model(view, seat)
                return model.game(model.flags())
            legal = game.legal_actions(state, actor)
            if actor == seat or state["phase"] != "play":
                act = _routine(legal)
            else:
                request = {"view": game.view(state, actor), "legal_actions": legal,
                           "seat": actor}
                act = self.opponent.choose(request)
            state = game.apply_unchecked(state, {actor: act}).state


def _last_play_likelihood(before: Mapping[str, Any], view: Mapping[str, Any], seat: int,
                          table: rollouts.Table, temperature: float
                          ) -> Callable[[np.ndarray], np.ndarray] | None:
    """How likely each dealt opponent hand makes the opponent's last play, by the imitation
    policy at ``temperature``: ``None`` unless that play was one troop card on a flag a rollout
    plays on and nothing else left the table since this seat's previous play."""
    opp = 1 - seat
    new: list[tuple[str, int]] = []
    for n, (was, now) in enumerate(zip(before["flags"], view["flags"], strict=True)):
        for s in (0, 1):
            if not set(was["sides"][s]) <= set(now["sides"][s]):
                return None   # a card moved or left (Redeploy, Deserter, Traitor)
        new.extend((card, n) for card in now["sides"][opp] if card not in was["sides"][opp])
    if len(new) != 1 or not is_troop(new[0][0]) or table.fixed[new[0][1]]:
        return None
    card, flag = INDEX[new[0][0]], new[0][1]
    mine = table.sides[:, opp].copy()           # the opponent's sides before its play
    k = int(np.nonzero(mine[flag] == card)[0][0])
    mine[flag, k:] = np.append(mine[flag, k + 1:], -1)
    theirs = table.sides[:, seat]
    own, opp_count = (mine >= 0).sum(-1), (theirs >= 0).sum(-1)

    def likelihood(hands: np.ndarray) -> np.ndarray:
        w = len(hands)
        hand = hands.copy()
        slot = (hand >= 0).sum(axis=1)          # the played card goes in the first free slot
        hand[np.arange(w), slot] = card
        scores = IMITATION.scores(hand, np.broadcast_to(mine, (w, 9, 3)),
                                  np.broadcast_to(own, (w, 9)),
                                  np.broadcast_to(theirs, (w, 9, 3)),
                                  np.broadcast_to(opp_count, (w, 9))) / temperature
        legal = (hand[:, :, None] >= 0) & (own < 3)[None, None, :] & ~table.fixed[None, None, :]
        flat = np.where(legal, scores, -np.inf).reshape(w, -1)
        top = flat.max(axis=1, keepdims=True)
        log_z = np.log(np.exp(flat - top).sum(axis=1)) + top[:, 0]
        chosen = flat[np.arange(w), slot * 9 + flag] - log_z
        return np.exp(chosen - chosen.max())

    return likelihood


def _routine(legal: Sequence[Any]) -> Any:
    """The searched line's own steps besides plays: claim, draw a troop card (a tactics card
    when no troop is left), return the lowest troop card after a Scout, end claims."""
    for action in legal:
        if action["type"] == "claim":
            return action
    for action in legal:
        if action["type"] == "draw" and action["deck"] == "troop":
            return action
    returns = [a for a in legal if a["type"] == "return"]
    if returns:
        return min(returns, key=lambda a: (is_troop(a["card"]), INDEX[a["card"]] % 10))
    return legal[0]
