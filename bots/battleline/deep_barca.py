"""Deep Barca (McCulloch, Bladow, Dobrow, Wright, MAICS 2017), as section 3 describes it.

One decision, from the seat's view alone (the ``view`` of a ``request``), in this order:

1. **Claims** (3.1): every claim the engine offers (it offers only proven ones), lowest flag
   first. Under ``claim_timing="after_play"``, ``end_claims`` once none is left.
2. **A play that wins the game now** (3.6): a play after which the flags held plus the flags
   provable at the next turn make five or three adjacent. The paper states the rule for
   tactics cards; troop plays are checked too (only those completing a side can prove a flag).
3. **A tactics card that saves a flag about to be lost** (3.6): a flag is about to be lost
   when the opponent can prove it now (it claims at the start of its turn). A tactics play
   that leaves it unprovable is taken if it lifts the model's chance of that flag above 50%,
   or if losing the threatened flags would lose the game and the play prevents that; among
   several, the one with the best game-win chance.
4. **Discard on a lost flag** (3.5): a troop card on the free slot of a flag about to be lost
   — the card most wanted by the opponent's top formations (counted over every card not on
   the table, since it is proofs the discard helps) and least by this seat's own.
5. **The model** (3.2–3.4, :mod:`bots.battleline.model`): for each troop card × each flag with
   a free slot, the chance of winning the game after that play; the maximum is played.
6. Otherwise a pass (only tactics cards in hand, or no free slot): the paper plays tactics
   only by rules 2–3.

**Draws** (3.6): the troop deck, except that a tactics card is drawn defensively: when the
opponent is one card from completing a flag whose best formation no troop completion of this
seat can beat, and this seat holds no tactics card — or holds one "less useful" card
(``Scout``, ``Redeploy``, ``Shield``) or the opponent holds two or more tactics cards, in which
case a second is drawn. Never a tactics card it could not play: not while the tactics limit
would keep a new one in hand for good (this seat's played + held tactics above the
opponent's played + held), nor when every tactics card it has not seen is a Leader and it
has played one.

**Scout** returns (never played by these rules, but handled): unplayable tactics cards first,
then the troop cards the seat's own top formations want least, lowest value first.

Options (``arena bot deep-barca --options``… or ``DeepBarca(**options)``): the model's
:class:`~bots.battleline.model.Params` (``top_formations=4``, ``mfa_weight=0.5``,
``empty_flag=0.5``, ``tie_share=0.5``, ``conflicts="all"``, ``majority_weight="deck"``) and
the policy switches ``discard=True`` and ``tactics=True`` (rules 2–4 and defensive draws).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Final

from bots.battleline.board import (
    Board,
    after_play,
    board_of,
    has_slot,
    is_troop,
    provable,
    wins,
)
from bots.battleline.model import Model, Params
from engine.battleline.cards import INDEX, LEADERS, NUM_TROOPS, TACTICS

LESS_USEFUL: Final = frozenset({"Scout", "Redeploy", "Shield"})
"""Tactics cards that cannot turn a threatened flag by themselves (for the second draw)."""


@dataclass(frozen=True)
class Decision:
    """An action and the rule that chose it (``claim``, ``win``, ``save``, ``discard``,
    ``model``, ``pass``, ``draw``, ``draw_tactics``, ``return``, ``end_claims``, ``only``)."""

    action: Any
    rule: str
    value: float | None = None


class DeepBarca:
    """``choose(request)``: Deep Barca's action for a Battle Line request."""

    name = "deep-barca"
    games = ("battleline",)
    """The games this bot plays (``arena run`` offers it as a house bot only for these)."""

    def __init__(self, seed: int | None = None, *, discard: bool = True, tactics: bool = True,
                 **model_options: Any) -> None:
        known = {f.name for f in fields(Params)}
        unknown = set(model_options) - known
        if unknown:
            raise ValueError(f"unknown Deep Barca options: {', '.join(sorted(unknown))}")
        self.seed = seed  # the bot is deterministic; the seed is accepted for the registry
        self.params = Params(**model_options)
        self.discard = discard
        self.tactics = tactics

    def choose(self, request: Mapping[str, Any]) -> Any:
        return self.decide(request["view"], request["legal_actions"], request["seat"]).action

    # ---- the decision ---------------------------------------------------------------------

    def decide(self, view: Mapping[str, Any], legal: Sequence[Any], seat: int) -> Decision:
        """The action for ``seat`` with the rule that chose it."""
        if not legal:
            raise ValueError("a request always lists at least one legal action")
        for action in legal:
            if action["type"] == "claim":
                return Decision(action, "claim")
        if len(legal) == 1:
            return Decision(legal[0], "end_claims" if legal[0]["type"] == "end_claims"
                            else "only")
        phase = view["phase"]
        if phase == "play":
            return self._play(view, legal, seat)
        if phase == "draw":
            return self._draw(view, legal, seat)
        if phase == "return":
            return self._return(view, legal, seat)
        for action in legal:
            if action["type"] == "end_claims":
                return Decision(action, "end_claims")
        return Decision(legal[0], "only")

    def model(self, view: Mapping[str, Any], seat: int, board: Board | None = None) -> Model:
        """The probabilistic model of this decision."""
        return Model(board_of(view) if board is None else board, seat, view["hand"],
                     view.get("opponent_known", ()), view["decks"]["troop"], self.params)

    def _play(self, view: Mapping[str, Any], legal: Sequence[Any], seat: int) -> Decision:
        board = board_of(view)
        opp = 1 - seat
        model = self.model(view, seat, board)
        troop_plays = [a for a in legal if a["type"] == "play" and is_troop(a["card"])]
        tactic_plays = ([a for a in legal if a["type"] == "play" and not is_troop(a["card"])
                         and a["card"] != "Scout"] if self.tactics else [])
        threatened = provable(board, opp)

        won = self._winning_play(board, seat, troop_plays + tactic_plays, model)
        if won is not None:
            return won
        if tactic_plays and threatened:
            saved = self._saving_tactic(board, seat, tactic_plays, threatened, model)
            if saved is not None:
                return saved
        if self.discard and troop_plays:
            lost = [n for n in sorted(threatened) if has_slot(board["flags"][n], seat)]
            if lost:
                return self._discard(troop_plays, lost, model)
        if troop_plays:
            cards = sorted({a["card"] for a in troop_plays}, key=INDEX.__getitem__)
            slots = sorted({a["flag"] - 1 for a in troop_plays})
            values = model.play_values(cards, slots)
            best = max(troop_plays, key=lambda a: values[(a["card"], a["flag"] - 1)])
            return Decision(best, "model", values[(best["card"], best["flag"] - 1)])
        for action in legal:
            if action["type"] == "pass":
                return Decision(action, "pass")
        # Only tactics plays are legal (no pass): the best by the model.
        return self._best_by_model(board, seat, legal, model, "model")

    def _winning_play(self, board: Board, seat: int, plays: Sequence[Any],
                      model: Model) -> Decision | None:
        """A play after which this seat holds or can prove a winning set of flags."""
        already = provable(board, seat)
        winners = []
        for action in plays:
            card = action["card"]
            if is_troop(card) or card in ("Alexander", "Darius", "Cavalry", "Shield"):
                f = board["flags"][action["flag"] - 1]
                size = 4 if "Mud" in f["env"] else 3
                if len(f["sides"][seat]) + 1 < size:
                    continue  # a side that stays incomplete proves nothing
            after, touched = after_play(board, seat, action)
            proved = (already - touched) | provable(after, seat, touched)
            if wins(after, seat, proved):
                winners.append(action)
        if not winners:
            return None
        return self._best_by_model(board, seat, winners, model, "win")

    def _saving_tactic(self, board: Board, seat: int, plays: Sequence[Any],
                       threatened: set[int], model: Model) -> Decision | None:
        opp = 1 - seat
        loses = wins(board, opp, threatened)
        best: Decision | None = None
        for action in plays:
            after, touched = after_play(board, seat, action)
            if not touched & threatened:
                continue
            still = (threatened - touched) | provable(after, opp, touched & threatened)
            saved = threatened - still
            if not saved:
                continue
            probs = model.flags(after)
            if any(probs[n] > 0.5 for n in saved) or (loses and not wins(after, opp, still)):
                value = model.game(probs)
                if best is None or value > (best.value or 0.0):
                    best = Decision(action, "save", value)
        return best

    def _discard(self, plays: Sequence[Any], lost: Sequence[int], model: Model) -> Decision:
        mine = model.wishlist_counts(0)
        theirs = model.wishlist_counts(1, public=True)
        options = [a for a in plays if a["flag"] - 1 in lost]

        def score(action: Any) -> tuple[int, int, int, int]:
            i = INDEX[action["card"]]
            return (theirs[i] - mine[i], -mine[i], -(i % 10), -action["flag"])

        return Decision(max(options, key=score), "discard")

    def _best_by_model(self, board: Board, seat: int, plays: Sequence[Any], model: Model,
                       rule: str) -> Decision:
        best: Decision | None = None
        for action in plays:
            if action["type"] != "play":
                continue
            after, _ = after_play(board, seat, action)
            value = model.game(model.flags(after))
            if best is None or value > (best.value or 0.0):
                best = Decision(action, rule, value)
        return best if best is not None else Decision(plays[0], rule)

    # ---- draws and returns ----------------------------------------------------------------

    def _draw(self, view: Mapping[str, Any], legal: Sequence[Any], seat: int) -> Decision:
        decks = {a["deck"]: a for a in legal if a["type"] == "draw"}
        if "troop" not in decks or "tactics" not in decks:
            return Decision(next(iter(decks.values())) if decks else legal[0], "draw")
        if self.tactics and self._wants_tactics(view, seat):
            return Decision(decks["tactics"], "draw_tactics")
        return Decision(decks["troop"], "draw")

    def _wants_tactics(self, view: Mapping[str, Any], seat: int) -> bool:
        opp = 1 - seat
        hand = view["hand"]
        held = [c for c in hand if INDEX[c] >= NUM_TROOPS]
        opp_held = view["hands"][opp]["tactics"]
        played = view["tactics_played"]
        if played[seat] + len(held) > played[opp] + opp_held:
            return False  # the tactics limit would keep it in hand
        unseen = set(TACTICS) - set(held) - _tactics_seen(view)
        if view["leaders_played"][seat] or any(c in LEADERS for c in held):
            unseen -= set(LEADERS)
        if not unseen:
            return False
        if len(held) >= 2:
            return False
        if len(held) == 1 and not (held[0] in LESS_USEFUL or opp_held >= 2):
            return False
        return self._threat_beyond_troops(view, seat)

    def _threat_beyond_troops(self, view: Mapping[str, Any], seat: int) -> bool:
        """Whether the opponent is one card from completing a flag whose best formation no
        troop completion of this seat can beat."""
        board = board_of(view)
        opp = 1 - seat
        close = [f for f in board["flags"] if f["claimed"] is None
                 and len(f["sides"][opp]) == (4 if "Mud" in f["env"] else 3) - 1]
        if not close:
            return False
        # Only which formations are possible matters here, not their chances: no wishlists.
        model = Model(board, seat, view["hand"], view.get("opponent_known", ()),
                      view["decks"]["troop"], replace(self.params, conflicts="none"))
        for f in close:
            size = 4 if "Mud" in f["env"] else 3
            fog = "Fog" in f["env"]
            theirs = model.top(f["sides"][opp], size, fog, 1)
            if not theirs:
                continue
            mine = model.top(f["sides"][seat], size, fog, 0)
            if not mine or mine[0][0] < theirs[0][0]:
                return True
        return False

    def _return(self, view: Mapping[str, Any], legal: Sequence[Any], seat: int) -> Decision:
        model = self.model(view, seat)
        mine = model.wishlist_counts(0)
        leader_used = view["leaders_played"][seat]

        def keep(action: Any) -> tuple[int, int, int]:
            card = action["card"]
            i = INDEX[card]
            if i >= NUM_TROOPS:
                return (0, 0, 0) if (card in LEADERS and leader_used) else (2, 0, 0)
            return (1, mine[i], i % 10)

        returns = [a for a in legal if a["type"] == "return"]
        return Decision(min(returns, key=keep), "return")


def _tactics_seen(view: Mapping[str, Any]) -> set[str]:
    """Tactics cards on the table or in a discard pile."""
    seen: set[str] = set()
    for f in view["flags"]:
        for side in f["sides"]:
            seen.update(c for c in side if INDEX[c] >= NUM_TROOPS)
        seen.update(f["env"])
    for pile in view["discards"]:
        seen.update(c for c in pile if INDEX[c] >= NUM_TROOPS)
    return seen
