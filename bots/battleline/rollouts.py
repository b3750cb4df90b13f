"""Battle Line played out to the end, many worlds at once: NumPy rollouts for the search.

A *rollout* finishes a game from a position with a fast, noisy formation-building policy for
both seats and scores the table it ends with. :func:`rollout_values` plays ``worlds`` x
``candidates`` rollouts in one batch of arrays: every candidate play is tried in the same
worlds (the same opponent hand, the same deck order and the same policy noise: common random
numbers, so two candidates are compared on the same cards).

What a rollout keeps and what it leaves out:

* Troop cards only. Tactics cards in hands are dead weight (they hold a hand slot); both seats
  draw troop cards. A flag that is claimed keeps its owner; a flag that carries a tactics or
  environment card (Fog, Mud, a Leader …) is *fixed*: nobody plays there and its winner is
  drawn from the chance the caller gives it (Deep Barca's model), the same draw in every
  candidate of a world.
* The **policy** (:mod:`bots.battleline.rollout_policy`) places, each turn, the hand card and
  flag with the highest score plus Gumbel noise of scale ``temperature`` (a soft argmax: a
  sample from the softmax of score / temperature). ``FORMATION`` (the default) scores how well
  the card fits the seat's own side: on an empty side the card's value; next to one card how
  well the pair can still grow (same colour and near: a wedge; same value: a phalanx; same
  colour; near); onto two cards the formation the three make (category, then sum).
  ``IMITATION`` is fitted to Deep Barca's plays and reads the opponent's sides too. A seat
  with no card or no free slot passes; the rollout ends when both pass.
* **Claims.** As in the game, a flag is closed once a side is proven to win it: a complete
  side at least as strong as the best the other side can still make there. Given ``caps``
  (:func:`bots.battleline.rollout_policy.caps_given` over :func:`unplayed`, the search's
  default) that best is counted as the game's proof counts it — the strongest completion
  from the troop cards the start table had on no flag — so a flag whose last hope was played
  elsewhere is closed; cards played during the rollout are not struck out, so a rollout
  proves no more than the game would. Without ``caps`` only the cards on the side count
  (three cards: their strength; two: the strongest formation of the category they can still
  become; fewer: anything). Nobody plays on a closed flag again, so the policy does not pour
  cards into a flag already lost, and the flag counts as decided from that step
  (``claims=False`` leaves every flag open until both sides complete).
* The **score**: every open flag goes to the stronger complete side (equal: the side that
  completed first; a side left incomplete loses to a complete one, two incomplete sides are a
  coin), decided when its second side completed (claimed flags before any, flags proven in
  the rollout when proven). The seat whose won flags first make three adjacent or five wins;
  when both get there only at the end, three adjacent beats none, else the seat with five or
  more.

The seat's hidden information is dealt from its view only (:func:`deal`): the opponent's hand
and the deck order are drawn from the cards it has not seen, exactly the pool of
:func:`bots.battleline.worlds.unseen_cards`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bots.battleline.rollout_policy import FORMATION, STRENGTH3, Caps, Policy, side_cap
from bots.battleline.worlds import unseen_cards
from engine.battleline.cards import INDEX, NUM_TROOPS
from engine.battleline.formations import unseen_mask
from engine.battleline.rules import NUM_FLAGS

HAND_SLOTS = 8
SIDE = 3


@dataclass
class Table:
    """The public position a rollout starts from, from one seat's view."""

    seat: int
    sides: np.ndarray          # (9, 2, 3) troop indices, -1 empty (open flags only)
    fixed: np.ndarray          # (9,) bool: claimed, or holds a tactics/environment card
    owner: np.ndarray          # (9,) claimed flags: the owner; -1 otherwise
    chance: np.ndarray         # (9,) fixed open flags: the seat's chance to win the flag
    hand: list[int]            # the seat's troop cards
    opp_known: list[int]       # the opponent's troop cards the seat knows
    opp_troops: int            # troop cards in the opponent's hand
    deck: int                  # troop deck size
    known_tops: list[int | None]  # troop deck tops known (top first), None: unknown
    pool: list[int]            # troop cards the seat has not seen
    order: np.ndarray          # (9, 2) completion order index of complete sides (-1 none)


def table_of(view: Mapping[str, Any], seat: int, chance: Sequence[float]) -> Table:
    """The rollout's start from ``view``. ``chance[f]`` is the seat's chance to win flag ``f``
    (used only for fixed flags)."""
    sides = np.full((NUM_FLAGS, 2, SIDE), -1, dtype=np.int16)
    fixed = np.zeros(NUM_FLAGS, dtype=bool)
    owner = np.full(NUM_FLAGS, -1, dtype=np.int8)
    order = np.full((NUM_FLAGS, 2), -1, dtype=np.int16)
    for n, f in enumerate(view["flags"]):
        if f["claimed"] is not None:
            fixed[n] = True
            owner[n] = f["claimed"]
            continue
        cards = f["sides"][0] + f["sides"][1]
        if f["env"] or any(INDEX[x] >= NUM_TROOPS for x in cards) or max(
                len(f["sides"][0]), len(f["sides"][1])) > SIDE:
            fixed[n] = True
            continue
        for s in (0, 1):
            for k, card in enumerate(f["sides"][s]):
                sides[n, s, k] = INDEX[card]
        for k, s in enumerate(f["complete"]):
            order[n, s] = k - 10  # completed before any rollout step
    opp = 1 - seat
    known = [INDEX[c] for c in view.get("opponent_known", ()) if INDEX[c] < NUM_TROOPS]
    troops, _ = unseen_cards(view)
    tops = [None if c is None else INDEX[c] for c in view["known_tops"]["troop"]]
    return Table(
        seat=seat, sides=sides, fixed=fixed, owner=owner,
        chance=np.asarray(chance, dtype=np.float64),
        hand=[INDEX[c] for c in view["hand"] if INDEX[c] < NUM_TROOPS],
        opp_known=known, opp_troops=view["hands"][opp]["troop"], deck=view["decks"]["troop"],
        known_tops=tops, pool=[INDEX[c] for c in troops], order=order)


def unplayed(view: Mapping[str, Any]) -> np.ndarray:
    """(60,) bool: the troop cards on no flag and in no discard pile of ``view`` — in a hand or
    a deck, the seat's own included: the cards the engine's claim proof lets the other side
    use (:func:`engine.battleline.formations.unseen_mask`)."""
    mask = unseen_mask(view)
    return (np.int64(mask) >> np.arange(NUM_TROOPS, dtype=np.int64) & 1).astype(bool)


def deal(table: Table, worlds: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``worlds`` deals of the unseen troop cards: the opponent's hand ``(worlds, 8)`` and the
    troop deck in draw order ``(worlds, deck)`` (-1 pads)."""
    pool = np.asarray(table.pool, dtype=np.int16)
    perm = np.argsort(rng.random((worlds, len(pool))), axis=1)
    shuffled = pool[perm] if len(pool) else np.zeros((worlds, 0), dtype=np.int16)
    hidden = table.opp_troops - len(table.opp_known)
    hand = np.full((worlds, HAND_SLOTS), -1, dtype=np.int16)
    k = len(table.opp_known)
    if k:
        hand[:, :k] = table.opp_known
    hand[:, k:k + hidden] = shuffled[:, :hidden]
    rest = shuffled[:, hidden:]
    deck = np.full((worlds, table.deck), -1, dtype=np.int16)
    col = 0
    for pos in range(table.deck):
        top = table.known_tops[pos] if pos < len(table.known_tops) else None
        if top is not None:
            deck[:, pos] = top
        elif col < rest.shape[1]:
            deck[:, pos] = rest[:, col]
            col += 1
    return hand, deck


@dataclass
class Finals:
    """The tables the rollouts ended with: row ``i * worlds + w`` is play ``i`` in world
    ``w``."""

    sides: np.ndarray          # (rows, 9, 2, 3) troop indices, -1 empty
    count: np.ndarray          # (rows, 9, 2) cards per side
    order: np.ndarray          # (rows, 9, 2) the step a side was completed at (-1: never)
    worlds: int
    plays: int
    opp_hand: np.ndarray       # (worlds, 8) the opponent's troop cards each world dealt
    claim: np.ndarray | None = None       # (rows, 9) the seat a flag was proven for, -1 none
    claim_step: np.ndarray | None = None  # (rows, 9) the step it was proven at


def rollout_values(table: Table, plays: Sequence[tuple[int, int]], worlds: int,
                   rng: np.random.Generator, temperature: float = 0.3,
                   policy: Policy = FORMATION) -> np.ndarray:
    """Each play's share of wins over ``worlds`` rollouts (common worlds).

    ``plays``: (troop index, flag 0..8) the seat plays now on an open, unfixed flag; the seat
    then draws and the opponent moves first in the rollout."""
    finals = play_out(table, plays, worlds, rng, temperature, policy)
    return score(table, finals, rng)


def play_out(table: Table, plays: Sequence[tuple[int, int]], worlds: int,
             rng: np.random.Generator, temperature: float = 0.3,
             policy: Policy = FORMATION, max_steps: int = 200, claims: bool = True,
             caps: Caps | None = None, first: np.ndarray | None = None) -> Finals:
    """Play every ``plays`` in each of ``worlds`` deals, then both seats to the end. With
    ``claims``, a flag is closed as soon as a side is proven to win it (:func:`_prove`; with
    ``caps`` the proof counts only the cards the table had unplayed, as the game's does).

    ``first`` (``(len(plays), 60, 9)``, -inf where a card cannot go): the opponent's first
    move after each play is the best of its dealt hand by these values rather than the
    policy's sample (the search's ``first_reply``: Deep Barca's values from what the
    opponent knows, the same in every world)."""
    k = len(plays)
    seat, opp = table.seat, 1 - table.seat
    n = k * worlds
    opp_hand, deck = deal(table, worlds, rng)
    hands = np.full((n, 2, HAND_SLOTS), -1, dtype=np.int16)
    hands[:, opp] = np.tile(opp_hand, (k, 1))
    decks = np.tile(deck, (k, 1))
    sides = np.broadcast_to(table.sides, (n, NUM_FLAGS, 2, SIDE)).copy()
    order = np.broadcast_to(table.order, (n, NUM_FLAGS, 2)).copy()
    own = np.full((k, HAND_SLOTS), -1, dtype=np.int16)
    for i, (card, _flag) in enumerate(plays):
        rest = list(table.hand)
        rest.remove(card)
        own[i, :len(rest)] = rest
    hands[:, seat] = np.repeat(own, worlds, axis=0)
    # The candidate play, then this seat's draw.
    rows = np.arange(n)
    cand_card = np.repeat(np.asarray([p[0] for p in plays], dtype=np.int16), worlds)
    cand_flag = np.repeat(np.asarray([p[1] for p in plays]), worlds)
    count = (sides >= 0).sum(axis=3)
    slot = count[rows, cand_flag, seat]
    sides[rows, cand_flag, seat, slot] = cand_card
    count[rows, cand_flag, seat] += 1
    done = count[rows, cand_flag, seat] == SIDE
    order[rows[done], cand_flag[done], seat] = 0
    ptr = np.zeros(n, dtype=np.int64)
    _draw(hands[:, seat], decks, ptr, np.full(n, len(table.hand) - 1, dtype=np.int64))
    fixed = table.fixed
    claim = np.full((n, NUM_FLAGS), -1, dtype=np.int8)
    claim_step = np.zeros((n, NUM_FLAGS), dtype=np.int16)
    if claims:
        every = np.repeat(rows, NUM_FLAGS)
        flag_of = np.tile(np.arange(NUM_FLAGS), n)
        open_ = ~fixed[flag_of]
        _prove(sides, count, claim, claim_step, every[open_], flag_of[open_], 0, caps)
    noise_shape = (worlds, HAND_SLOTS, NUM_FLAGS)
    scale = np.float32(temperature)
    tiny = np.float32(1e-12)
    passes = 0
    step = 1
    mover = opp
    while passes < 2 and step < max_steps:
        hand = hands[:, mover]
        cnt = count[:, :, mover]                            # (n, 9)
        blocked = (cnt >= SIDE) | fixed[None, :]
        if claims:
            blocked |= claim >= 0
        if first is not None and step == 1:
            by_row = np.repeat(np.arange(k), worlds)
            pref = first[by_row[:, None], np.maximum(hand, 0)].astype(np.float32)  # (n, 8, 9)
            pref[(hand < 0)[:, :, None] | blocked[:, None, :]] = -np.inf
        else:
            pref = policy.scores(hand, sides[:, :, mover], cnt, sides[:, :, 1 - mover],
                                 count[:, :, 1 - mover], blocked)
            # The same Gumbel noise for every candidate of a world (common random numbers).
            gumbel = -np.log(-np.log(rng.random(noise_shape, dtype=np.float32) + tiny) + tiny)
            pref.reshape(k, worlds, HAND_SLOTS, NUM_FLAGS)[...] += scale * gumbel
        flat = pref.reshape(n, -1)
        best = flat.argmax(axis=1)
        moved = np.isfinite(flat[rows, best])
        if moved.any():
            passes = 0
            r = rows[moved]
            h, f = np.divmod(best[moved], NUM_FLAGS)
            card = hand[r, h]
            k_slot = cnt[r, f]
            sides[r, f, mover, k_slot] = card
            count[r, f, mover] += 1
            full = count[r, f, mover] == SIDE
            order[r[full], f[full], mover] = step
            hand[r, h] = -1
            _draw_into(hand, decks, ptr, r, h)
            if claims:
                _prove(sides, count, claim, claim_step, r, f, step, caps)
        else:
            passes += 1
        mover = 1 - mover
        step += 1
    return Finals(sides, count, order, worlds, k, opp_hand,
                  claim if claims else None, claim_step if claims else None)


def _prove(sides: np.ndarray, count: np.ndarray, claim: np.ndarray,
           claim_step: np.ndarray, r: np.ndarray, f: np.ndarray, step: int,
           caps: Caps | None = None) -> None:
    """Close the flags ``(r, f)`` a side can now prove, as a seat claims a flag at its next
    turn: a complete side at least as strong as anything the other side can still make (equal
    formations go to the side completed first). Two complete sides are left to :func:`wins`,
    which decides them by strength when the second completes."""
    open_ = claim[r, f] < 0
    r, f = r[open_], f[open_]
    if not len(r):
        return
    cnt = count[r, f]                                           # (k, 2)
    for s in (0, 1):
        mine, theirs = cnt[:, s] == SIDE, cnt[:, 1 - s] < SIDE
        pick = mine & theirs
        if not pick.any():
            continue
        rs, fs = r[pick], f[pick]
        strength = side_cap(sides[rs, fs, s], count[rs, fs, s])  # complete: its strength
        cap = side_cap(sides[rs, fs, 1 - s], count[rs, fs, 1 - s], caps)
        won = strength >= cap                                    # ties: s completed first
        claim[rs[won], fs[won]] = s
        claim_step[rs[won], fs[won]] = step


def _draw(hand: np.ndarray, decks: np.ndarray, ptr: np.ndarray, slot: np.ndarray) -> None:
    rows = np.arange(len(hand))
    _draw_into(hand, decks, ptr, rows, slot)


def _draw_into(hand: np.ndarray, decks: np.ndarray, ptr: np.ndarray, rows: np.ndarray,
               slot: np.ndarray) -> None:
    if decks.shape[1] == 0:
        return
    left = ptr[rows] < decks.shape[1]
    r, s = rows[left], slot[left]
    hand[r, s] = decks[r, ptr[r]]
    ptr[r] += 1


def _first_win(won: np.ndarray, decided: np.ndarray, late: int) -> np.ndarray:
    """The time a seat's flags ``won`` first made a winning set (``late + 1``: never)."""
    t = np.where(won, decided, late + 1)
    three = np.maximum(np.maximum(t[:, :-2], t[:, 1:-1]), t[:, 2:]).min(axis=1)
    five = np.sort(t, axis=1)[:, 4]
    return np.minimum(three, five)


def score(table: Table, finals: Finals, rng: np.random.Generator) -> np.ndarray:
    """Each play's share of the worlds the seat wins at the end (module docstring)."""
    return wins(table, finals, rng).mean(axis=1)


def wins(table: Table, finals: Finals, rng: np.random.Generator) -> np.ndarray:
    """``(plays, worlds)``: whether the seat wins each rollout (module docstring)."""
    seat, worlds, k = table.seat, finals.worlds, finals.plays
    sides, count, order = finals.sides, finals.count, finals.order
    idx = np.maximum(sides, 0).astype(np.int64)
    strength = STRENGTH3[idx[..., 0] * 3600 + idx[..., 1] * 60 + idx[..., 2]].astype(np.int32)
    strength = np.where(count == SIDE, strength, -1)        # (n, 9, 2)
    mine, theirs = strength[:, :, seat], strength[:, :, 1 - seat]
    o_mine, o_theirs = order[:, :, seat], order[:, :, 1 - seat]
    coin = np.tile(rng.random((worlds, NUM_FLAGS)), (k, 1))
    won = (mine > theirs) | ((mine == theirs) & (mine >= 0) & (o_mine < o_theirs)) \
        | ((mine == theirs) & (mine < 0) & (coin < 0.5))
    chance = np.tile(rng.random((worlds, NUM_FLAGS)), (k, 1)) < table.chance[None, :]
    claimed = table.owner >= 0
    fixed_open = table.fixed & ~claimed
    won = np.where(fixed_open[None, :], chance, won)
    proven = None
    if finals.claim is not None:
        proven = finals.claim >= 0
        won = np.where(proven, finals.claim == seat, won)
    won = np.where(claimed[None, :], (table.owner == seat)[None, :], won)
    lost = ~won
    # When each flag was decided: claimed flags first, then as both sides completed; a flag
    # with an incomplete side or a fixed open one at the end.
    late = 10_000
    decided = np.where((mine < 0) | (theirs < 0), late, np.maximum(o_mine, o_theirs))
    decided = np.where(fixed_open[None, :], late, decided)
    if proven is not None and finals.claim_step is not None:
        decided = np.where(proven, finals.claim_step, decided)
    decided = np.where(claimed[None, :], -late, decided)
    first_w, first_l = _first_win(won, decided, late), _first_win(lost, decided, late)
    adj_w = (won[:, :-2] & won[:, 1:-1] & won[:, 2:]).any(axis=1)
    adj_l = (lost[:, :-2] & lost[:, 1:-1] & lost[:, 2:]).any(axis=1)
    many = won.sum(axis=1) >= 5
    at_end = np.where(adj_w & ~adj_l, True, np.where(adj_l & ~adj_w, False, many))
    win = np.where(first_w < first_l, True, np.where(first_l < first_w, False, at_end))
    return win.reshape(k, worlds)
