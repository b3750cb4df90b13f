"""Deep Barca's probabilistic model (paper sections 3.2–3.4), for one seat and one decision.

Per flag, each side's top formations (:mod:`bots.battleline.formations`), each with the chance
of making it; from them the chance that the seat wins the flag; from the nine flags the chance
that it wins the game.

Card probabilities (section 3.4), for a formation of the seat (``p_me``) and of the opponent
(``p_opp``):

=====================================  ===============  ===============
card                                   ``p_me``         ``p_opp``
=====================================  ===============  ===============
on this flag, in the formation         1                1
elsewhere on the table or discarded    0                0
in the seat's hand                     1                0
known to be in the opponent's hand     0                1
unseen (troop deck or opponent's hand) share            1 − share
=====================================  ===============  ===============

``share`` = (troop deck ÷ 2) ÷ unseen troop cards: the seat's half of the deck over every card
it has not seen. Wishlists settle a card wanted in several places (section 3.5): with
``conflicts="hand"`` (the default) a hand card that the seat's top formations want on ``k``
flags where it has started counts ``1/k`` on each; ``"all"`` does that for unseen cards too,
``"both"`` for the opponent's cards as well, ``"none"`` never. (An empty side's top formations
are the strongest of the game on every empty flag alike: they claim no card.)

A *formation* is a rank and a total (``formation="class"``, the default): three nines is one
formation however they are coloured, a straight flush 10-9-8 one formation whatever its
colour; its chance is the union of its card sets. ``formation="cards"`` counts each card set
apart. Table 1 is the same either way.

A flag (section 3.2):

a) both sides empty: ``empty_flag`` (0.5);
b) both sides started: the *MFA* — for each of the seat's top formations F, P(make F) ×
   (1 − P(opponent beats F)); the flag is the union of those;
c) one side empty: for the side that has started, ``mfa_weight`` × MFA + (1 − ``mfa_weight``)
   × *BSFA*; the BSFA pits its top formations against the empty side's single best formation
   — its *goal*, the formation of its pool (every wedge, phalanx and straight, the best
   flushes and hosts) that leaves the started side the least chance. When the opponent is
   the side that has started, the seat's chance is one minus the opponent's.

"Union" and "beats" combine independent events as ``1 − ∏(1 − p)``: that is how the paper's
Table 1 gets 0.58 for "the opponent makes one of three straight flushes" (the exact union of
those overlapping events is 0.50). A formation of equal strength beats the side that completes
later: a complete side wins the tie, and with neither complete it is ``tie_share``.

The game (section 3.2): ``w`` × P(at least 5 of 9 flags) + (1 − ``w``) × P(3 adjacent flags),
flags independent, ``w`` = troop cards left in the deck ÷ the deck after the deal (46): early
on the majority matters, near the end three in a row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from bots.battleline.formations import Candidate, candidates, probability, set_bits, strike
from bots.battleline.formations import count_formations as _count
from bots.battleline.formations import wanted as wanted_by
from engine.battleline.cards import ALL_TROOPS_MASK, INDEX, NUM_TROOPS, TROOPS
from engine.battleline.cards import troop_mask as mask_of
from engine.battleline.formations import unseen_mask

DECK_AFTER_DEAL: Final = 46
GOAL_SPREAD: Final = 3
"""Flushes per colour and hosts in the pool the empty side of a flag picks its goal from."""

Top = tuple[tuple[int, float, int], ...]
"""A side's top formations: ``(strength, probability, wanted mask)``, strongest first."""


@dataclass(frozen=True)
class Params:
    """The model's knobs; the defaults are the paper's values (or, where the paper names no
    number, the neutral choice)."""

    top_formations: int = 16
    """Formations kept per side and flag. The paper keeps four "mainly for efficiency
    reasons" and names raising that number as future work; 16 is our default (a measured
    deviation, see bots/battleline/README.md); ``top_formations=4`` is the paper's agent."""
    mfa_weight: float = 0.5
    """Case c: weight of the MFA against the BSFA (the paper mixes them, weight unstated)."""
    empty_flag: float = 0.5
    """Case a: the chance of a flag nobody has played on."""
    tie_share: float = 0.5
    """Equal formations, neither side complete: the chance of completing first."""
    conflicts: str = "hand"
    """Wishlist conflicts: ``"hand"``, ``"all"``, ``"both"`` or ``"none"`` (see the module
    docstring)."""
    formation: str = "class"
    """What one of the top formations is: ``"class"`` — a rank and total, made by any of its
    card sets (three nines; a straight 8-9-10 in any colours; a straight flush 10-9-8 in
    any colour), or ``"cards"`` — one card set (one colour for a straight flush)."""
    majority_weight: str = "deck"
    """``"deck"``: w = troop deck ÷ 46 (the paper); or a number as text, e.g. ``"0.5"``."""

    def __post_init__(self) -> None:
        if self.top_formations < 1:
            raise ValueError("top_formations must be at least 1")
        if self.conflicts not in ("all", "both", "hand", "none"):
            raise ValueError("conflicts must be all, both, hand or none")
        if not 0.0 <= self.mfa_weight <= 1.0:
            raise ValueError("mfa_weight must be within 0..1")
        if self.formation not in ("class", "cards"):
            raise ValueError("formation must be class or cards")
        if self.majority_weight != "deck":
            float(self.majority_weight)


def split_side(cards: Sequence[str]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Troop indices (sorted) and wild card names (sorted) of a side."""
    troops = []
    wilds = []
    for card in cards:
        i = INDEX[card]
        if i < NUM_TROOPS:
            troops.append(i)
        else:
            wilds.append(card)
    return tuple(sorted(troops)), tuple(sorted(wilds))


def seen_mask(board: Mapping[str, Any]) -> int:
    """Troop cards on the table or in a discard pile (a view has the state's layout)."""
    return ALL_TROOPS_MASK & ~unseen_mask(board)


def union(probs: Sequence[float]) -> float:
    """P(at least one) of independent events."""
    miss = 1.0
    for p in probs:
        miss *= 1.0 - p
    return 1.0 - miss


def at_least_of(probs: Sequence[float], k: int) -> float:
    """P(at least ``k`` of independent events)."""
    dist = [1.0] + [0.0] * k
    for p in probs:
        dist[k] += dist[k - 1] * p
        for j in range(k - 1, 0, -1):
            dist[j] = dist[j] * (1.0 - p) + dist[j - 1] * p
        dist[0] *= 1.0 - p
    return dist[k]


def adjacent_three(probs: Sequence[float]) -> float:
    """P(three adjacent flags won), flags independent."""
    # run[k]: P(no three in a row yet and the last k flags won), k = 0, 1, 2.
    r0, r1, r2 = 1.0, 0.0, 0.0
    done = 0.0
    for p in probs:
        q = 1.0 - p
        done += r2 * p
        r0, r1, r2 = (r0 + r1 + r2) * q, r0 * p, r1 * p
    return done


def game_probability(flag_probs: Sequence[float], troop_deck: int, params: Params) -> float:
    """The weighted chance of winning the game from the chances of the nine flags."""
    if params.majority_weight == "deck":
        w = min(1.0, max(0.0, troop_deck / DECK_AFTER_DEAL))
    else:
        w = float(params.majority_weight)
    return w * at_least_of(flag_probs, 5) + (1.0 - w) * adjacent_three(flag_probs)


class Model:
    """The model for ``seat`` at one decision: card probabilities fixed from what the seat
    knows (its hand, the board, the opponent's Scout-known cards, the troop deck size), then
    flag and game probabilities for the current board or any board reachable by one play.

    Results are cached for the life of the object (one decision)."""

    def __init__(self, board: Mapping[str, Any], seat: int, hand: Sequence[str],
                 opponent_known: Sequence[str], troop_deck: int,
                 params: Params | None = None) -> None:
        self.params = params or Params()
        self.seat = seat
        self.opp = 1 - seat
        self.board = board
        self.troop_deck = troop_deck
        self.hand_mask = mask_of(hand)
        known = mask_of(opponent_known)
        self.seen = seen_mask(board)
        unseen = ALL_TROOPS_MASK & ~self.seen & ~self.hand_mask & ~known
        self.unseen = unseen
        n_unseen = unseen.bit_count()
        share = min(1.0, troop_deck / 2 / n_unseen) if n_unseen else 0.0
        self.share = share
        p_me = [0.0] * NUM_TROOPS
        p_opp = [0.0] * NUM_TROOPS
        for i in set_bits(unseen):
            p_me[i] = share
            p_opp[i] = 1.0 - share
        for i in set_bits(self.hand_mask):
            p_me[i] = 1.0
        for i in set_bits(known):
            p_opp[i] = 1.0
        self.my_avail = self.hand_mask | (unseen if share > 0.0 else 0)
        self.opp_avail = known | (unseen if share < 1.0 else 0)
        self.p = (p_me, p_opp)
        self._memo: tuple[dict[tuple[int, int], float], dict[tuple[int, int], float]] = ({}, {})
        self._cands: dict[Any, list[Candidate]] = {}
        self._tops: dict[Any, Top] = {}
        self._flags: dict[Any, float] = {}
        if self.params.conflicts != "none":
            self._settle_conflicts()

    # ---- tops ---------------------------------------------------------------------------------

    def _pool(self, troops: tuple[int, ...], wilds: tuple[str, ...], size: int, fog: bool,
              avail: int, who: int, spread: int) -> list[Candidate]:
        """The candidates of a side (cached). A narrower ``avail`` than the side's full one
        (a card played elsewhere) is answered by striking the lost cards out of the full
        list when enough formations survive, instead of a new enumeration."""
        tmask = 0
        for i in troops:
            tmask |= 1 << i
        avail &= ~tmask
        key = (troops, wilds, size, fog, avail, spread)
        found = self._cands.get(key)
        if found is not None:
            return found
        limit = self.params.top_formations
        by_class = self.params.formation == "class"
        full = (self.my_avail if who == 0 else self.opp_avail) & ~tmask
        removed = full & ~avail
        if removed and not avail & ~full:
            base = self._pool(troops, wilds, size, fog, full, who, spread)
            found = []
            for cand in base:
                kept = strike(cand, removed)
                if kept is not None:
                    found.append(kept)
            if spread or _count(found, by_class) >= limit or len(found) == len(base):
                self._cands[key] = found
                return found
        found = candidates(troops, wilds, size, fog, avail, limit, spread=spread,
                           by_strength=by_class)
        self._cands[key] = found
        return found

    def top(self, cards: Sequence[str], size: int, fog: bool, who: int,
            avail: int | None = None) -> Top:
        """The top formations of a side holding ``cards`` for ``who`` (0: this seat, 1: the
        opponent), with that side's card probabilities; ``avail`` narrows the cards it may
        still get (default: all it may get)."""
        return self._scored(cards, size, fog, who, avail, 0)

    def goals(self, cards: Sequence[str], size: int, fog: bool, who: int,
              avail: int | None = None) -> Top:
        """Every formation of the pool a side picks its goal from (all wedges, phalanxes and
        straights, the best few flushes per colour and hosts) with its probability."""
        return self._scored(cards, size, fog, who, avail, GOAL_SPREAD)

    def _scored(self, cards: Sequence[str], size: int, fog: bool, who: int,
                avail: int | None, spread: int) -> Top:
        if avail is None:
            avail = self.my_avail if who == 0 else self.opp_avail
        troops, wilds = split_side(cards)
        key = (troops, wilds, size, fog, avail, who, spread)
        found = self._tops.get(key)
        if found is not None:
            return found
        cands = self._pool(troops, wilds, size, fog, avail, who, spread)
        p = self.p[who]
        memo = self._memo[who]
        scored = []
        for cand in cands:
            prob = probability(cand, p, memo)
            if prob > 0.0:
                scored.append((cand[0], prob, wanted_by(cand)))
        if self.params.formation == "class":
            # One formation per rank and total: the union of the ways to make it.
            merged: dict[int, tuple[float, int]] = {}
            for s, prob, want in scored:
                if s in merged:
                    miss, w = merged[s]
                    merged[s] = (miss * (1.0 - prob), w | want)
                else:
                    merged[s] = (1.0 - prob, want)
            scored = [(s, 1.0 - miss, w) for s, (miss, w) in merged.items()]
        scored.sort(key=lambda t: (-t[0], -t[1]))
        if spread:
            # Only goals no other goal beats on both strength and chance can be the best
            # (a stronger, likelier goal leaves the started side no more chance).
            front = []
            best = 0.0
            for item in scored:
                if item[1] > best:
                    front.append(item)
                    best = item[1]
            found = tuple(front)
        else:
            found = tuple(scored[:self.params.top_formations])
        self._tops[key] = found
        return found

    def _settle_conflicts(self) -> None:
        """Wishlists: a card wanted by a side's top formations on k flags counts 1/k there
        (this seat's side; with ``conflicts="both"`` the opponent's too)."""
        sides = (0, 1) if self.params.conflicts == "both" else (0,)
        new_p = list(self.p)
        for who in sides:
            counts = [0] * NUM_TROOPS
            side = self.seat if who == 0 else self.opp
            for f in self.board["flags"]:
                # An empty side's top formations are the strongest of the game on every
                # empty flag alike: they name no intention, so they claim no card.
                if f["sides"][side]:
                    for i in set_bits(self.wanted(f, who)):
                        counts[i] += 1
            p = list(self.p[who])
            only_hand = self.params.conflicts == "hand"
            for i, k in enumerate(counts):
                if k > 1 and (not only_hand or self.hand_mask >> i & 1):
                    p[i] /= k
            new_p[who] = p
        self.p = (new_p[0], new_p[1])
        self._memo = ({}, {})
        self._tops = {}

    # ---- flags and the game -------------------------------------------------------------------

    def flag(self, f: Mapping[str, Any], my_avail: int | None = None) -> float:
        """The chance that this seat wins flag ``f`` (a board flag dict)."""
        claimed = f["claimed"]
        if claimed is not None:
            return 1.0 if claimed == self.seat else 0.0
        mine = f["sides"][self.seat]
        theirs = f["sides"][self.opp]
        if not mine and not theirs:
            return self.params.empty_flag
        env = f["env"]
        size = 4 if "Mud" in env else 3
        fog = "Fog" in env
        if my_avail is None:
            my_avail = self.my_avail
        key = (tuple(mine), tuple(theirs), size, fog, tuple(f["order"]), my_avail)
        found = self._flags.get(key)
        if found is not None:
            return found
        mine_done = len(mine) >= size
        theirs_done = len(theirs) >= size
        my_top = self.top(mine, size, fog, 0, my_avail)
        opp_top = self.top(theirs, size, fog, 1)
        if mine_done and theirs_done:
            s, t = my_top[0][0], opp_top[0][0]
            order = f["order"]
            result = 1.0 if s > t or (s == t and order and order[0] == self.seat) else 0.0
        elif not my_top:
            result = 0.0
        elif not opp_top:
            result = union([p for _, p, _ in my_top])
        else:
            tie = 0.0 if mine_done else (1.0 if theirs_done else self.params.tie_share)
            if not theirs:
                goals = self.goals(theirs, size, fog, 1)
                result = self._committed(my_top, opp_top, goals, tie)
            elif not mine:
                goals = self.goals(mine, size, fog, 0, my_avail)
                result = 1.0 - self._committed(opp_top, my_top, goals, 1.0 - tie)
            else:
                result = mfa(my_top, opp_top, tie)
        self._flags[key] = result
        return result

    def _committed(self, started: Top, empty: Top, goals: Top, tie: float) -> float:
        """Case c, for the side that has started the flag: the MFA against the empty side's
        top formations, mixed with the BSFA against the empty side's single best formation —
        its goal: the formation of its pool that leaves the started side the least chance."""
        bsfa = 1.0
        for goal_s, goal_p, _ in goals or empty:
            miss = 1.0
            for s, p, _ in started:
                if s > goal_s:
                    miss *= 1.0 - p
                else:
                    miss *= 1.0 - p * (1.0 - goal_p * (1.0 if goal_s > s else tie))
            if 1.0 - miss < bsfa:
                bsfa = 1.0 - miss
        w = self.params.mfa_weight
        return w * mfa(started, empty, tie) + (1.0 - w) * bsfa

    def flags(self, board: Mapping[str, Any] | None = None) -> list[float]:
        """The chance of winning each of the nine flags of ``board`` (default: the board)."""
        board = self.board if board is None else board
        return [self.flag(f) for f in board["flags"]]

    def game(self, flag_probs: Sequence[float]) -> float:
        return game_probability(flag_probs, self.troop_deck, self.params)

    def wanted(self, f: Mapping[str, Any], who: int) -> int:
        """The union of the cards ``who``'s top formations on flag ``f`` want."""
        if f["claimed"] is not None:
            return 0
        side = f["sides"][self.seat if who == 0 else self.opp]
        size = 4 if "Mud" in f["env"] else 3
        if len(side) >= size:
            return 0
        out = 0
        for _, _, w in self.top(side, size, "Fog" in f["env"], who):
            out |= w
        return out

    def play_values(self, cards: Sequence[str], open_slots: Sequence[int],
                    board: Mapping[str, Any] | None = None) -> dict[tuple[str, int], float]:
        """The game-win chance after each play of a troop card of ``cards`` on a flag of
        ``open_slots`` (0-based flags where this seat has a free slot). The played card is on
        the table afterwards: 100% on its flag, 0% on every other one. ``board`` (default:
        the model's) values the plays on another table with this model's card probabilities
        (flags it shares with the model's board are looked up, not recomputed)."""
        board = self.board if board is None else board
        flags = board["flags"]
        base = self.flags(board)
        wanted = [self.wanted(f, 0) for f in flags]
        out: dict[tuple[str, int], float] = {}
        for card in cards:
            bit = 1 << INDEX[card]
            avail = self.my_avail & ~bit
            # Flags that counted on this card elsewhere lose it.
            without = list(base)
            for g, f in enumerate(flags):
                if wanted[g] & bit:
                    without[g] = self.flag(f, avail)
            for n in open_slots:
                f = flags[n]
                placed = dict(f)
                sides = [list(f["sides"][0]), list(f["sides"][1])]
                sides[self.seat].append(card)
                placed["sides"] = sides
                size = 4 if "Mud" in f["env"] else 3
                if len(sides[self.seat]) >= size and self.seat not in f["order"]:
                    placed["order"] = list(f["order"]) + [self.seat]
                probs = list(without)
                probs[n] = self.flag(placed, avail)
                out[(card, n)] = self.game(probs)
        return out

    # ---- wishlists ----------------------------------------------------------------------------

    def wishlist_counts(self, who: int, public: bool = False) -> list[int]:
        """Per troop card, on how many of ``who``'s top formations it stands, over the open
        flags where that side has started (an empty side's top formations are the game's
        strongest on every empty flag alike: they name no intention).

        ``public`` counts the opponent's formations over every card not on the table (the
        cards a claim proof may give it, this seat's hand included): a card this seat holds
        and the opponent's formations want is one whose play may help a proof later."""
        counts = [0] * NUM_TROOPS
        n = self.params.top_formations
        for f in self.board["flags"]:
            if f["claimed"] is not None:
                continue
            side = f["sides"][self.seat if who == 0 else self.opp]
            size = 4 if "Mud" in f["env"] else 3
            if not side or len(side) >= size:
                continue
            fog = "Fog" in f["env"]
            if public:
                troops, wilds = split_side(side)
                cands = candidates(troops, wilds, size, fog, ALL_TROOPS_MASK & ~self.seen, n)
                cands.sort(key=lambda c: -c[0])
                wants = [wanted_by(c) for c in cands[:n]]
            else:
                wants = [w for _, _, w in self.top(side, size, fog, who)]
            for w in wants:
                for i in set_bits(w):
                    counts[i] += 1
        return counts


def _beats(t: int, s: int, tie: float) -> float:
    """Weight of "a formation of strength ``t`` beats one of strength ``s``"."""
    if t > s:
        return 1.0
    if t == s:
        return tie
    return 0.0


def beaten(s: int, opp_top: Top, tie: float) -> float:
    """P(the opponent makes one of its top formations that beats strength ``s``)."""
    miss = 1.0
    for t, q, _ in opp_top:  # strongest first
        if t < s:
            break
        miss *= 1.0 - q * (1.0 if t > s else tie)
    return 1.0 - miss


def mfa(my_top: Top, opp_top: Top, tie: float) -> float:
    """The Multiple Formation Approach: the union over the seat's top formations of
    P(make it) × P(not beaten)."""
    miss = 1.0
    for s, p, _ in my_top:
        miss *= 1.0 - p * (1.0 - beaten(s, opp_top, tie))
    return 1.0 - miss


def card_names(mask: int) -> list[str]:
    return [TROOPS[i] for i in set_bits(mask)]
