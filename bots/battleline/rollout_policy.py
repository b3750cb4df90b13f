"""The rollouts' move policies: a score for every (hand card, flag) a seat can play, as arrays.

A rollout (:mod:`bots.battleline.rollouts`) moves by a soft argmax: the play with the highest
score plus Gumbel noise of scale ``temperature``, which samples from the softmax of
``score / temperature``. Two policies:

* :data:`FORMATION` — the hand-set formation builder: the card and flag whose side the card
  fits best (on an empty side its value; next to one card how well the pair can still grow;
  onto two cards the formation the three make). It looks at its own sides only.
  :func:`formation_given` is the same builder with a pair valued by the best category it can
  still become from the cards still unplayed (:func:`caps_given`), which the search uses.
* :data:`IMITATION` — a linear softmax fitted to Deep Barca's own plays (a conditional logit
  over the legal troop plays of Deep Barca self-play, :mod:`tools.tune.battleline_rollout`).
  Besides the seat's own formation it reads the opponent's side of each flag: how many cards
  it holds, whether completing this side now wins the flag against a complete one, and whether
  the flag is already out of reach (where Deep Barca drops its lowest cards). Played at
  temperature 1 it samples Deep Barca-like plays, so a rollout plays out the game as the
  opponent the bot meets would. Measured, the search is no stronger with it than with
  ``FORMATION`` (``bots/battleline/README.md``), which stays the default.

Every score is a handful of table lookups: the features that read the seat's own side are
folded into one table over (first card, second card, card played) — :func:`unified` — the
rest are per-flag terms and a sparse pass over the flags whose opposite side is complete.
:func:`features` spells every feature out (for fitting and for the test that the folded
tables give the same scores).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Final

import numpy as np

from engine.battleline.cards import NUM_TROOPS
from engine.battleline.rules import NUM_FLAGS

_N = NUM_TROOPS
_VAL = np.arange(_N) % 10 + 1
_COL = np.arange(_N) // 10


_POT: Final = np.asarray([0.0, 0.9, 1.8, 2.7, 3.5])
"""The formation policy's pair potential by the best category the pair can still become
(host … wedge): by its kind in :data:`SCORE2`, by the cards still unplayed in
:func:`formation_given`."""


def _formation_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Three cards' strength (category * 100 + sum) and category; the formation policy's
    pair and three-card scores."""
    v, c = _VAL, _COL
    a, b, d = np.meshgrid(np.arange(_N), np.arange(_N), np.arange(_N), indexing="ij")
    va, vb, vd = v[a], v[b], v[d]
    same_colour = (c[a] == c[b]) & (c[b] == c[d])
    lo = np.minimum(np.minimum(va, vb), vd)
    hi = np.maximum(np.maximum(va, vb), vd)
    distinct = (va != vb) & (vb != vd) & (va != vd)
    run = distinct & (hi - lo == 2)
    three = (va == vb) & (vb == vd)
    cat = np.where(run & same_colour, 4, np.where(three, 3, np.where(
        same_colour, 2, np.where(run, 1, 0))))
    total = va + vb + vd
    strength = (cat * 100 + total).astype(np.int16).reshape(-1)
    score3 = (cat + total / 30.0).astype(np.float32).reshape(-1)
    p, q = np.meshgrid(np.arange(_N), np.arange(_N), indexing="ij")
    vp, vq = v[p], v[q]
    gap = np.abs(vp - vq)
    near = (gap >= 1) & (gap <= 2)
    colour = c[p] == c[q]
    pot = _POT[np.where(colour & near, 4, np.where(gap == 0, 3, np.where(
        colour, 2, np.where(near, 1, 0))))]
    score2 = (pot + (vp + vq) / 30.0).astype(np.float32).reshape(-1)
    return strength, score3, score2, cat.astype(np.int8).reshape(-1)


STRENGTH3, SCORE3, SCORE2, CAT3 = _formation_tables()
"""Indexed by ``a * 3600 + b * 60 + c`` (three troop indices) or ``a * 60 + b`` (a pair)."""
SCORE1: Final = (0.6 + _VAL / 30.0).astype(np.float32)
SUM3: Final = ((STRENGTH3 % 100) / 30.0).astype(np.float32)


def _pair_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A pair's kind (five one-hot columns: same colour one apart, same colour two apart,
    same value, same colour further, different colours one or two apart), its sum / 20, and
    the best category it can still become."""
    p, q = np.meshgrid(np.arange(_N), np.arange(_N), indexing="ij")
    gap = np.abs(_VAL[p] - _VAL[q])
    colour = _COL[p] == _COL[q]
    near = (gap >= 1) & (gap <= 2)
    kinds = np.stack([colour & (gap == 1), colour & (gap == 2), gap == 0, colour & (gap > 2),
                      ~colour & near], -1).astype(np.float32).reshape(_N * _N, -1)
    best = np.where(colour & near, 4, np.where(gap == 0, 3, np.where(
        colour, 2, np.where(near, 1, 0)))).astype(np.int8).reshape(-1)
    return kinds, ((_VAL[p] + _VAL[q]) / 20.0).astype(np.float32).reshape(-1), best


PAIR_KIND, PAIR_SUM, PAIR_BEST = _pair_tables()

FEATURES: Final = (
    "empty", "empty_value",                                           # own side empty
    "pair_wedge1", "pair_wedge2", "pair_phalanx", "pair_colour", "pair_near", "pair_sum",
    "three_host", "three_skirmish", "three_battalion", "three_phalanx", "three_wedge",
    "three_sum",                                                      # own side completed
    "value",
    "opp_1", "opp_2", "opp_3", "opp_3_own_0", "opp_3_own_1",
    "wins_flag", "out_of_reach", "out_of_reach_value", "opp_pair", "opp_category",
    "centre", "ahead", "behind",
)
"""The imitation policy's features of one play (card ``c`` on a flag; own side count ``m``,
the opponent's ``o``): ``empty``/``empty_value`` (m = 0, and the card's value / 10);
``pair_*`` (m = 1: the pair's kind and sum); ``three_*`` (m = 2: the formation's category and
sum); ``value`` (the card's value / 10); ``opp_k`` (o = k) and ``opp_3_own_k`` (o = 3 and
m = k); ``wins_flag`` (m = 2, o = 3 and the three beat the opponent's); ``out_of_reach`` (o =
3 and this side cannot win: its pair cannot become the opponent's category, or its three lose)
and ``out_of_reach_value`` (that times the value / 10); ``opp_pair`` (o = 2: the formation
score of the opponent's pair / 4); ``opp_category`` (o = 3: its category / 4); ``centre`` (1 on
the middle flag, 0 at the ends); ``ahead``/``behind`` (m > o, m < o)."""

_CENTRE = (1.0 - np.abs(np.arange(NUM_FLAGS) - 4) / 4.0).astype(np.float32)


_E = _N + 1
"""A side's first two cards as table coordinates: troop index + 1, 0 for none."""


def unified(own1: np.ndarray, own2: np.ndarray, own3: np.ndarray) -> np.ndarray:
    """One table for every side size: ``[(first + 1) * 61 + (second + 1)] * 60 + card`` (an
    empty slot counts as -1), so a play's own-side score is a single lookup."""
    out = np.zeros((_E, _E, _N), dtype=np.float32)
    out[0, 0] = own1
    out[1:, 0] = own2.reshape(_N, _N)
    out[1:, 1:] = own3.reshape(_N, _N, _N)
    return out.reshape(-1)


# The best a side can still make, on the same coordinates: three cards their strength, a pair
# the strongest formation of the category it can still become, fewer cards anything.
_CAP = np.full((_E, _E, _N), 999, dtype=np.int16)
_CAP[1:, 0] = PAIR_BEST.reshape(_N, _N).astype(np.int16) * 100 + 99
_CAP[1:, 1:] = STRENGTH3.reshape(_N, _N, _N)
CAP: Final = _CAP.reshape(-1)


@dataclass(frozen=True)
class Caps:
    """The most a side can still be worth when only the ``unplayed`` troop cards can join it
    (:func:`caps_given`): ``table`` on :data:`CAP`'s coordinates (a pair: its strongest
    completion, -1 none), ``one`` (60,) a side of one card, ``none`` an empty side."""

    table: np.ndarray
    one: np.ndarray
    none: int


def caps_given(unplayed: np.ndarray) -> Caps:
    """:class:`Caps` for a table whose troop cards still unplayed are ``unplayed`` (60,) bool
    (in a deck or a hand: any of them may yet join a side). A card on a side is never its own
    completion. Played in a rollout, a card the table had unplayed can only lower a cap, so
    these never understate it during the rollout either."""
    s3 = STRENGTH3.reshape(_N, _N, _N)
    idx = np.arange(_N)
    free = np.asarray(unplayed, dtype=bool)
    # Pairs: the best third card still unplayed (not one of the pair).
    third = free[None, None, :] & (idx[None, None, :] != idx[:, None, None]) \
        & (idx[None, None, :] != idx[None, :, None])
    two = np.where(third, s3, -1).max(axis=2)                           # (a, b)
    # One card: the best two distinct unplayed others.
    both = free[:, None] & free[None, :] & (idx[:, None] != idx[None, :])
    one = np.where(both[None] & (idx[None, :, None] != idx[:, None, None])
                   & (idx[None, None, :] != idx[:, None, None]), s3, -1).max(axis=(1, 2))
    none = int(np.where(free[:, None, None] & both[None], s3, -1).max())
    table = _CAP.copy()
    table[1:, 0] = two.astype(np.int16)
    return Caps(table.reshape(-1), one.astype(np.int16), none)


def side_cap(cards: np.ndarray, count: np.ndarray, caps: Caps | None = None) -> np.ndarray:
    """The most each side can still be worth: ``cards`` (r, 3) troop indices (-1 empty),
    ``count`` (r,) cards held. Three cards their strength. Without ``caps``, by :data:`CAP`:
    two cards the strongest formation of the category they can still become, fewer anything
    (999) — which cards are still unplayed is not consulted, so it never understates. With
    ``caps`` (:func:`caps_given`) the strongest completion from the cards still unplayed."""
    s = np.maximum(cards, 0).astype(np.int64)
    first = (s[:, 0] + 1) * _E
    table = CAP if caps is None else caps.table
    three = table[(first + s[:, 1] + 1) * _N + s[:, 2]]
    two = table[first * _N + s[:, 1]]
    if caps is None:
        return np.where(count == 3, three, np.where(count == 2, two, 999))
    return np.where(count == 3, three, np.where(count == 2, two, np.where(
        count == 1, caps.one[s[:, 0]], caps.none)))


@dataclass(frozen=True)
class Policy:
    """A rollout policy's folded tables (see the module docstring)."""

    name: str
    own: np.ndarray                    # (61 * 61 * 60,) see :func:`unified`
    aware: bool = False                # reads the opponent's sides (the terms below)
    counts: np.ndarray | None = None   # (3, 4) [own count, opponent count]
    centre: np.ndarray | None = None   # (9,)
    wins_flag: float = 0.0
    out_of_reach: np.ndarray | None = None   # (60,) by the card played
    opp_pair: float = 0.0
    opp_category: float = 0.0

    @cached_property
    def masked(self) -> np.ndarray:
        """``own`` with a row of -inf for a blocked flag (coordinate 61 * 61) and a column of
        -inf for an empty hand slot (card 60): ``[pair * 61 + card]``."""
        out = np.full((_E * _E + 1, _N + 1), -np.inf, dtype=np.float32)
        out[:-1, :-1] = self.own.reshape(_E * _E, _N)
        return out.reshape(-1)

    def scores(self, hand: np.ndarray, mine: np.ndarray, own: np.ndarray,
               theirs: np.ndarray, opp: np.ndarray,
               blocked: np.ndarray | None = None) -> np.ndarray:
        """``(n, H, 9)`` scores of every hand card on every flag: ``hand`` (n, H) troop
        indices (-1 none), ``mine``/``theirs`` (n, 9, 3) the sides (-1 empty), ``own``/``opp``
        (n, 9) their card counts. With ``blocked`` (n, 9: flags nobody may play on) every
        illegal play — an empty hand slot, a blocked flag — scores -inf; without it they are
        the caller's to mask."""
        pair = (mine[:, :, 0].astype(np.int32) + 1) * _E + mine[:, :, 1].astype(np.int32) + 1
        if blocked is not None:
            # One gather gives the score and the legality (the masked table's -inf cells).
            slot = np.where(hand >= 0, hand, _N).astype(np.int32)[:, :, None]
            out = self.masked[np.where(blocked, _E * _E, pair)[:, None, :] * (_N + 1) + slot]
            if not self.aware:
                return out
        c = np.maximum(hand, 0).astype(np.int32)[:, :, None]
        idx = pair[:, None, :] * _N + c
        if blocked is None:
            out = self.own[idx]
        if not self.aware:
            return out
        assert self.counts is not None and self.centre is not None
        assert self.out_of_reach is not None
        t = np.maximum(theirs, 0).astype(np.int32)
        o_str = STRENGTH3[(t[..., 0] * _N + t[..., 1]) * _N + t[..., 2]]     # (n, 9)
        full = opp == 3
        pair = SCORE2[t[..., 0] * _N + t[..., 1]]
        flag = (self.counts[np.minimum(own, 2), opp] + self.centre
                + np.float32(self.opp_pair / 4.0) * (opp == 2) * pair
                + np.float32(self.opp_category / 4.0) * full * (o_str // 100))
        out = out + flag[:, None, :].astype(np.float32)
        # Only a flag whose opposite side is complete can be won now or be out of reach.
        rows, flags = np.nonzero(full)
        if len(rows):
            reach = CAP[idx[rows, :, flags]] <= o_str[rows, flags][:, None]     # (k, H)
            won = np.where(own[rows, flags] == 2, np.float32(self.wins_flag), np.float32(0))
            out[rows, :, flags] += np.where(reach, self.out_of_reach[c[rows, :, 0]],
                                            won[:, None])
        return out


FORMATION: Final = Policy("formation", unified(SCORE1, SCORE2, SCORE3))


def formation_given(caps: Caps) -> Policy:
    """:data:`FORMATION` scoring a pair by the best category it can still become from the
    cards still unplayed (``caps``) rather than by its kind alone: a red 10-9 whose red 8 is
    gone is no longer a wedge in the making; a pair that can never complete scores -1."""
    two = caps.table.reshape(_E, _E, _N)[1:, 0].reshape(-1).astype(np.int32)
    p, q = np.meshgrid(np.arange(_N), np.arange(_N), indexing="ij")
    pot = np.where(two >= 0, _POT[np.maximum(two, 0) // 100], -1.0)
    score2 = (pot + (_VAL[p] + _VAL[q]).reshape(-1) / 30.0).astype(np.float32)
    return Policy("formation", unified(SCORE1, score2, SCORE3))


def features(hand: np.ndarray, mine: np.ndarray, own: np.ndarray, theirs: np.ndarray,
             opp: np.ndarray) -> np.ndarray:
    """``(n, H, 9, len(FEATURES))``: every feature of every play, spelled out."""
    n, h = hand.shape
    shape = (n, h, NUM_FLAGS)
    c = np.maximum(hand, 0).astype(np.int64)[:, :, None]
    e1 = np.maximum(mine[:, None, :, 0], 0).astype(np.int64)
    e2 = np.maximum(mine[:, None, :, 1], 0).astype(np.int64)
    m = np.broadcast_to(own[:, None, :], shape)
    o = np.broadcast_to(opp[:, None, :], shape)
    pair = np.broadcast_to(e1 * _N + c, shape)
    three = np.broadcast_to(e1 * 3600 + e2 * _N + c, shape)
    value = np.broadcast_to(_VAL[c] / 10.0, shape)
    x = np.zeros(shape + (len(FEATURES),), dtype=np.float32)
    x[..., 0] = m == 0
    x[..., 1] = (m == 0) * value
    x[..., 2:7] = PAIR_KIND[pair] * (m == 1)[..., None]
    x[..., 7] = PAIR_SUM[pair] * (m == 1)
    cat = CAT3[three]
    x[..., 8:13] = (cat[..., None] == np.arange(5)) & (m == 2)[..., None]
    x[..., 13] = SUM3[three] * (m == 2)
    x[..., 14] = value
    for k in (1, 2, 3):
        x[..., 14 + k] = o == k
    x[..., 18] = (o == 3) & (m == 0)
    x[..., 19] = (o == 3) & (m == 1)
    t = np.maximum(theirs, 0).astype(np.int64)
    o_str = np.broadcast_to(
        STRENGTH3[t[..., 0] * 3600 + t[..., 1] * _N + t[..., 2]][:, None, :], shape)
    o_cat = o_str // 100
    beats = STRENGTH3[three] > o_str
    x[..., 20] = (o == 3) & (m == 2) & beats
    reach = (o == 3) & (((m == 1) & (PAIR_BEST[pair] < o_cat)) | ((m == 2) & ~beats))
    x[..., 21] = reach
    x[..., 22] = reach * value
    x[..., 23] = (o == 2) * SCORE2[t[..., 0] * _N + t[..., 1]][:, None, :] / 4.0
    x[..., 24] = (o == 3) * o_cat / 4.0
    x[..., 25] = _CENTRE
    x[..., 26] = m > o
    x[..., 27] = m < o
    return x


def fold(weights: np.ndarray, name: str = "imitation") -> Policy:
    """The :class:`Policy` whose scores are ``features(...) @ weights``."""
    w = dict(zip(FEATURES, (float(v) for v in weights), strict=True))
    value = _VAL / 10.0
    own1 = w["empty"] + (w["empty_value"] + w["value"]) * value
    own2 = (PAIR_KIND @ np.asarray([w[k] for k in FEATURES[2:7]], dtype=np.float32)
            + w["pair_sum"] * PAIR_SUM + w["value"] * np.tile(value, _N))
    cat_w = np.asarray([w[k] for k in FEATURES[8:13]], dtype=np.float32)
    own3 = cat_w[CAT3] + w["three_sum"] * SUM3 + w["value"] * np.tile(value, _N * _N)
    counts = np.zeros((3, 4), dtype=np.float32)
    for m in range(3):
        for o in range(4):
            counts[m, o] = (w.get(f"opp_{o}", 0.0) + (o == 3) * w.get(f"opp_3_own_{m}", 0.0)
                            + (m > o) * w["ahead"] + (m < o) * w["behind"])
    return Policy(name, unified(own1, own2, own3), aware=True, counts=counts,
                  centre=(w["centre"] * _CENTRE).astype(np.float32),
                  wins_flag=w["wins_flag"],
                  out_of_reach=(w["out_of_reach"] + w["out_of_reach_value"] * value).astype(
                      np.float32),
                  opp_pair=w["opp_pair"], opp_category=w["opp_category"])


IMITATION_WEIGHTS: Final = (
    4.652, 0.91, 4.942, 3.74, 2.845, 1.848, 0.139, 0.101, -0.196, 0.643, 1.812, 5.316, 5.676,
    0.19, 1.194, 2.68, 3.407, 2.151, -0.522, 0.672, 2.149, 1.443, -1.694, -0.686, 0.425,
    -0.253, 0.591, 0.143,
)
"""Fitted by ``arena tune battleline-rollout`` (400 Deep Barca self-play games, seed 1: 18,427
plays; on the held-out fifth the fit's mean negative log-likelihood is 2.60 against 3.81 for
a uniform choice and 5.55 for the formation policy at temperature 0.3)."""

IMITATION: Final = fold(np.asarray(IMITATION_WEIGHTS), "imitation")
POLICIES: Final = {p.name: p for p in (FORMATION, IMITATION)}


def save_weights(path: str | Path, weights: Iterable[float], fit: Mapping[str, Any]) -> None:
    """Write fitted weights as JSON (``arena tune battleline-rollout --out``)."""
    data = {"policy": "battleline-rollout", "features": list(FEATURES),
            "weights": [round(float(w), 6) for w in weights], "fit": dict(fit)}
    Path(path).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def load_policy(spec: str) -> Policy:
    """A policy by name (``formation``, ``imitation``) or from a weights file written by
    ``arena tune battleline-rollout``; ``ValueError`` says what is wrong with either."""
    if spec in POLICIES:
        return POLICIES[spec]
    path = Path(spec)
    if not path.is_file():
        raise ValueError(f"policy must be one of {', '.join(POLICIES)} or a weights file "
                         f"from arena tune battleline-rollout; no file {spec!r}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        features, weights = data["features"], data["weights"]
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{spec}: not a rollout weights file ({exc})") from exc
    if features != list(FEATURES) or len(weights) != len(FEATURES) or not all(
            isinstance(w, int | float) and math.isfinite(w) for w in weights):
        raise ValueError(f"{spec}: its features are not this version's ({len(FEATURES)}: "
                         f"{', '.join(FEATURES)}) or a weight is not a finite number")
    return fold(np.asarray(weights, dtype=np.float64), path.stem)
