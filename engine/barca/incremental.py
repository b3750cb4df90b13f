"""Incremental move updates (rules §12.6): a :class:`Position` that keeps its move sets.

:class:`IncrementalPosition` is a :class:`~engine.barca.position.Position` (same contract:
``legal_moves()``, ``moves(side)``, ``apply``/``undo``, ``result``, ``history``, ``count()`` …,
and the same answers, in the same canonical order) that does not generate moves from scratch.
It keeps, for every animal, what the seed proposed to cache, and on each move repairs only what
the move can have changed:

* per animal on square ``q`` (arrays indexed by square; zero on vacant squares):
  ``reach_mask(q)`` — its visible rays, the vacant squares it can slide to (§3), as one bit set;
  ``blocker_mask(q)`` — the first occupied square of each ray (none at the edge), so that the
  visible ray and the blocker of direction ``d`` are ``reach & ray_d`` and ``blockers & ray_d``;
  ``valid_mask(q)`` — ``valid(p)``, its destinations under §5 before the side-wide L1 filter
  (safe squares if calm or forced, its whole reach if trapped); ``status_code(q)``
  (:data:`CALM_CODE`, :data:`FORCED_CODE`, :data:`TRAPPED_CODE`); its move list (built lazily,
  on the first ``moves`` that needs it);
* per piece code ``3*side + type``, per square, a **counter** of adjacent opposing animals that
  type fears, so that ``danger`` is ``count > 0`` and stays right when two such animals cover a
  square. A code has two animals at most, so a counter is 0, 1 or 2: the 100 counters of a
  code are kept bit-sliced, as two bit sets ``ones`` and ``twos`` (count = ones + 2·twos), and
  moving an animal's ``N8`` is a few integer operations instead of 16 list updates;
  ``danger`` is ``ones | twos``;
* per side, the bit set of its forced animals (the L1 flag is ``forced_mask(side) != 0``).

When the animal of code ``m`` moves ``x → y`` (:meth:`IncrementalPosition.apply`, after the
shared board and history update of :class:`Position`):

1. the counters of the opposing type that fears ``m`` go down on ``N8(x)``, up on ``N8(y)``;
   ``delta``, the squares whose danger flipped, is a subset of ``N8(x) ∪ N8(y)``;
2. the mover's cache is rebuilt at ``y`` and cleared at ``x``;
3. every other animal whose blocker was ``x`` gets that ray rescanned from ``x`` (it extends),
   and every animal that saw ``y`` gets that ray cut at ``y``; no other ray can change (only
   animals on a rank, file or diagonal through ``x`` or ``y`` are looked at);
4. those animals, and the animals of the fearing type whose square or reach meets ``delta``,
   get their status and ``valid`` re-filtered (bit operations on the whole set at once);
5. the forced bit sets follow the statuses.

Every change is logged (the old values of each touched animal, the old counters of the
fearing code, the old forced bit sets); :meth:`IncrementalPosition.undo` restores them exactly.
A pass changes no cache (all of them are "as if that side were to move").

What an evaluation needs, without generating moves: :meth:`~IncrementalPosition.legal_masks`
(per animal whose moves are legal, L1 applied: square, type, destination bit set),
:meth:`~IncrementalPosition.reach_mask`, :meth:`~IncrementalPosition.status_code`,
:meth:`~IncrementalPosition.danger`, :meth:`~IncrementalPosition.forced_mask`, and
:func:`move_features` (the §12.2 features MOBILITY, SCARE_THREATS and HOLE_REACH from the
masks). Proven equal to from-scratch generation by ``tests/barca/test_incremental.py`` (B25).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from engine.barca.geometry import HOLE_MASK, N8, NUM_SQUARES, RAYS
from engine.barca.position import CALM, FORCED, PASS, TRAPPED, Position, Result

CALM_CODE: Final = 0
FORCED_CODE: Final = 1
TRAPPED_CODE: Final = 2
STATUS_NAMES: Final = (CALM, FORCED, TRAPPED)
"""``STATUS_NAMES[status_code]``: the status words of :class:`Position`."""

_BIT: Final = tuple(1 << i for i in range(NUM_SQUARES))

Ray = tuple[tuple[int, ...], int, tuple[int, ...]]
"""A ray of a piece: its squares nearest first, ``~`` its bit set (to clear it), and its
prefix bit sets (``prefix[k]`` = the first ``k`` squares)."""


def _ray(squares: tuple[int, ...]) -> Ray:
    prefix = [0]
    for s in squares:
        prefix.append(prefix[-1] | _BIT[s])
    return squares, ~prefix[-1], tuple(prefix)


#: ``_RAYS[type][q]``: the rays of a piece of ``type`` on ``q`` (as :data:`RAYS`, with masks).
_RAYS: Final = tuple(tuple(tuple(_ray(r) for r in rays) for rays in by_square)
                     for by_square in RAYS)


def _on_ray(rays: tuple[Ray, ...]) -> list[tuple[Ray, int] | None]:
    out: list[tuple[Ray, int] | None] = [None] * NUM_SQUARES
    for ray in rays:
        for k, s in enumerate(ray[0]):
            out[s] = (ray, k)
    return out


#: ``_ON_RAY[type][q][s]``: ``(ray, k)`` when ``s`` is the ``k``-th square of a ray of a piece
#: of ``type`` on ``q``, else ``None``.
_ON_RAY: Final = tuple(tuple(_on_ray(rays) for rays in by_square) for by_square in _RAYS)

_BYTES: Final = (NUM_SQUARES + 7) // 8
#: ``_BYTE_SQUARES[i][byte]``: the squares of the bits of ``byte`` as the ``i``-th byte (least
#: significant first) of a bit set, ascending.
_BYTE_SQUARES: Final = tuple(
    tuple(tuple(8 * i + j for j in range(8) if byte >> j & 1) for byte in range(256))
    for i in range(_BYTES))

#: ``_LINES_THROUGH[q]``: the squares on a rank, file or diagonal through ``q`` (not ``q``).
_LINES_THROUGH: Final = tuple(sum(_BIT[s] for ray in RAYS[2][q] for s in ray)
                              for q in range(NUM_SQUARES))

#: ``_FEARING[code]``: the code of the opposing pieces that fear pieces of ``code``.
_FEARING: Final = tuple(3 - 3 * (c // 3) + (c % 3 + 2) % 3 for c in range(6))

_Saved = tuple[int, int, int, int, int, list[int] | None]
"""An animal's cache before a move: square, reach, blockers, valid, status, move list."""
_Log = tuple[int, int, int, int, int, list[_Saved]]
"""One move's change log: fearing code, its old counters (``ones``, ``twos``), the old forced
sets of both sides, the animals' saved caches."""


class IncrementalPosition(Position):
    """A :class:`Position` whose move sets are kept up to date by each move (§12.6); see the
    module docstring. Public behaviour is :class:`Position`'s; the extra queries read the
    caches. Change it only through :meth:`apply` / :meth:`undo`."""

    __slots__ = ("_reach", "_block", "_valid", "_stat", "_list", "_ones", "_twos", "_danger",
                 "_forced", "_log")

    def __init__(self, cells: Sequence[int], side: int, ply: int,
                 history: Mapping[int, int] | None = None,
                 result: Result | None = None) -> None:
        super().__init__(cells, side, ply, history, result)
        self._reach = [0] * NUM_SQUARES
        self._block = [0] * NUM_SQUARES
        self._valid = [0] * NUM_SQUARES
        self._stat = [CALM_CODE] * NUM_SQUARES
        self._list: list[list[int] | None] = [None] * NUM_SQUARES
        self._ones = [0] * 6
        self._twos = [0] * 6
        self._danger = [0] * 6
        self._forced = [0, 0]
        self._log: list[_Log | None] = []
        for q, m in enumerate(self.cells):
            if m >= 0:
                c = _FEARING[m]
                near = N8[q]
                self._twos[c] |= self._ones[c] & near  # count 1 → 2 (a carry)
                self._ones[c] ^= near
        for c in range(6):
            self._danger[c] = self._ones[c] | self._twos[c]
        for q, m in enumerate(self.cells):
            if m >= 0:
                self._scan(q, m % 3)
                self._refilter(q, m)

    def copy(self) -> IncrementalPosition:
        """An independent copy (undo stack not included)."""
        return IncrementalPosition(self.cells, self.side, self.ply, self.history, self.result)

    # ---- cache maintenance -----------------------------------------------------------------------

    def _scan(self, q: int, piece_type: int) -> None:
        """Rebuild the visible rays and blockers of the animal on ``q`` from the board."""
        cells = self.cells
        reach = block = 0
        for squares, _, prefix in _RAYS[piece_type][q]:
            k = 0
            n = len(squares)
            while k < n and cells[squares[k]] < 0:
                k += 1
            reach |= prefix[k]
            if k < n:
                block |= _BIT[squares[k]]
        self._reach[q] = reach
        self._block[q] = block

    def _refilter(self, q: int, code: int) -> None:
        """Status and ``valid`` of the animal of ``code`` on ``q`` from its reach and danger;
        drops its move list and updates its side's forced set."""
        danger = self._danger[code]
        reach = self._reach[q]
        if danger >> q & 1:
            safe = reach & ~danger
            if safe:
                status, valid = FORCED_CODE, safe
            else:
                status, valid = TRAPPED_CODE, reach
        else:
            status, valid = CALM_CODE, reach & ~danger
        self._valid[q] = valid
        self._list[q] = None
        old = self._stat[q]
        if status != old:
            self._stat[q] = status
            if status == FORCED_CODE or old == FORCED_CODE:
                self._forced[code // 3] ^= _BIT[q]

    def _save(self, q: int) -> _Saved:
        return q, self._reach[q], self._block[q], self._valid[q], self._stat[q], self._list[q]

    def apply(self, move: int) -> None:
        """:meth:`Position.apply`, then the caches' repair of §12.6 (module docstring)."""
        Position.apply(self, move)
        if move == PASS:
            self._log.append(None)
            return
        x, y = divmod(move, 100)
        cells = self.cells
        m = cells[y]
        bit_x = _BIT[x]
        bit_y = _BIT[y]
        reach = self._reach
        block = self._block
        valid = self._valid
        stat = self._stat
        lists = self._list
        forced = self._forced
        # y was vacant, and vacant squares hold zeros (as x will): what undo puts back there.
        saved = [self._save(x), (y, 0, 0, 0, CALM_CODE, None)]

        # 1. Danger counters of the opposing type that fears the mover (bit-sliced: minus one
        # on N8(x), a borrow where the count was 2; plus one on N8(y), a carry where it is 1).
        c = _FEARING[m]
        ones = old_ones = self._ones[c]
        twos = old_twos = self._twos[c]
        near = N8[x]
        twos &= ~(near & ~ones)
        ones ^= near
        near = N8[y]
        twos |= ones & near
        ones ^= near
        self._ones[c] = ones
        self._twos[c] = twos
        old_danger = self._danger[c]
        new_danger = self._danger[c] = ones | twos
        delta = old_danger ^ new_danger
        self._log.append((c, old_ones, old_twos, forced[0], forced[1], saved))

        # 2. The mover: cleared at x, rebuilt at y.
        if stat[x] == FORCED_CODE:
            forced[m // 3] ^= bit_x
        reach[x] = block[x] = valid[x] = 0
        stat[x] = CALM_CODE
        lists[x] = None
        self._scan(y, m % 3)
        self._refilter(y, m)

        # 3-4. The other animals: rays through x or y, then danger on the changed squares.
        bb = self.bb
        others = ((bb[0] | bb[1] | bb[2] | bb[3] | bb[4] | bb[5])
                  & (_LINES_THROUGH[x] | _LINES_THROUGH[y]) & ~bit_y)
        if delta:
            others |= bb[c]
        while others:
            low = others & -others
            others ^= low
            q = low.bit_length() - 1
            b = block[q]
            r = reach[q]
            extend = b & bit_x
            cut = r & bit_y
            code = cells[q]
            if not (extend or cut or (code == c and delta & (r | low))):
                continue
            saved.append((q, r, b, valid[q], stat[q], lists[q]))
            if extend or cut:
                on_ray = _ON_RAY[code % 3][q]
                if extend:  # the blocker left: the ray now runs on from x
                    (squares, clear, prefix), k = on_ray[x]  # type: ignore[misc]
                    n = len(squares)
                    while k < n and cells[squares[k]] < 0:
                        k += 1
                    r = (r & clear) | prefix[k]
                    b = (b & clear) | (_BIT[squares[k]] if k < n else 0)
                if cut:  # an animal entered the ray: it now ends before y
                    (_, clear, prefix), k = on_ray[y]  # type: ignore[misc]
                    r = (r & clear) | prefix[k]
                    b = (b & clear) | bit_y
                reach[q] = r
                block[q] = b
            self._refilter(q, code)

    def undo(self) -> None:
        """:meth:`Position.undo`, and every cache restored to what it was before the move."""
        Position.undo(self)
        entry = self._log.pop()
        if entry is None:
            return
        c, ones, twos, forced0, forced1, saved = entry
        self._ones[c] = ones
        self._twos[c] = twos
        self._danger[c] = ones | twos
        self._forced[0] = forced0
        self._forced[1] = forced1
        reach, block, valid, status, lists = (self._reach, self._block, self._valid,
                                              self._stat, self._list)
        for q, r, b, v, st, lst in saved:
            reach[q] = r
            block[q] = b
            valid[q] = v
            status[q] = st
            lists[q] = lst

    # ---- queries from the caches ---------------------------------------------------------------

    def _movers(self, side: int) -> int:
        """The squares of ``side``'s animals whose moves are legal now (rule L1)."""
        forced = self._forced[side]
        if forced:
            return forced
        bb = self.bb
        b = 3 * side
        return bb[b] | bb[b + 1] | bb[b + 2]

    def moves(self, side: int) -> list[int]:
        """The L1/L2 move set of ``side`` (as if it were to move), sorted; may be empty. Read
        from the caches: the animals in square order, each its move list (built once)."""
        lists = self._list
        out: list[int] = []
        bits = self._movers(side)
        while bits:
            low = bits & -bits
            bits ^= low
            q = low.bit_length() - 1
            moves = lists[q]
            if moves is None:
                moves = lists[q] = _move_list(q, self._valid[q])
            out += moves
        return out

    def legal_masks(self, side: int) -> list[tuple[int, int, int]]:
        """``(square, type, destinations)`` for each animal of ``side`` whose moves are legal
        (as if ``side`` were to move; L1 applied), squares ascending; ``destinations`` is a bit
        set. Their moves are exactly :meth:`moves`."""
        out = []
        bits = self._movers(side)
        cells = self.cells
        valid = self._valid
        while bits:
            low = bits & -bits
            bits ^= low
            q = low.bit_length() - 1
            if valid[q]:
                out.append((q, cells[q] % 3, valid[q]))
        return out

    def reach_mask(self, square: int) -> int:
        """The vacant squares the animal on ``square`` can slide to (§3), as a bit set."""
        return self._reach[square]

    def blocker_mask(self, square: int) -> int:
        """The first occupied square of each ray of the animal on ``square``, as a bit set."""
        return self._block[square]

    def valid_mask(self, square: int) -> int:
        """``valid(p)`` of §12.6 for the animal on ``square``: its destinations under §5 before
        the side-wide L1 filter, as a bit set."""
        return self._valid[square]

    def status_code(self, square: int) -> int:
        """:data:`CALM_CODE`, :data:`FORCED_CODE` or :data:`TRAPPED_CODE` of the animal on
        ``square`` (as if its side were to move)."""
        return self._stat[square]

    def forced_mask(self, side: int) -> int:
        """The squares of ``side``'s forced animals (non-zero: rule L1 applies)."""
        return self._forced[side]

    def danger_count(self, code: int, square: int) -> int:
        """How many opposing animals feared by pieces of ``code`` stand next to ``square``."""
        return (self._ones[code] >> square & 1) + 2 * (self._twos[code] >> square & 1)

    def danger(self, side: int) -> tuple[int, int, int]:
        d = self._danger
        b = 3 * side
        return d[b], d[b + 1], d[b + 2]

    def reach(self, square: int) -> list[int]:
        """As :meth:`Position.reach` (ray by ray, nearest first), from the visible rays."""
        reach = self._reach[square]
        out: list[int] = []
        for squares, clear, _ in _RAYS[self.cells[square] % 3][square]:
            out += squares[:(reach & ~clear).bit_count()]
        return out

    def piece_status(self, square: int) -> str:
        return STATUS_NAMES[self._stat[square]]

    def statuses(self, side: int) -> dict[int, str]:
        bb = self.bb
        b = 3 * side
        return {q: STATUS_NAMES[self._stat[q]]
                for q in _squares(bb[b] | bb[b + 1] | bb[b + 2])}

    def snapshot(self) -> tuple[object, ...]:
        """Every cache but the move lists (built lazily, so present or not; :meth:`moves`
        shows whether they are right), for tests of exact restoration."""
        return (list(self._reach), list(self._block), list(self._valid), list(self._stat),
                list(self._ones), list(self._twos), list(self._danger), list(self._forced))

    def __repr__(self) -> str:
        return f"IncrementalPosition.from_bpn({self.to_bpn()!r})"


def _squares(bits: int) -> list[int]:
    out = []
    while bits:
        low = bits & -bits
        bits ^= low
        out.append(low.bit_length() - 1)
    return out


def _move_list(q: int, valid: int) -> list[int]:
    """The moves of the animal on ``q`` to the squares of ``valid``, sorted. The bit set is read
    a byte at a time through a table of each byte's squares, which in CPython costs a fraction
    of reading it bit by bit."""
    squares: list[int] = []
    for i, byte in enumerate(valid.to_bytes(_BYTES, "little")):
        if byte:
            squares += _BYTE_SQUARES[i][byte]
    base = 100 * q
    return [base + s for s in squares]


def move_features(pos: IncrementalPosition, side: int) -> tuple[int, int, int]:
    """The §12.2 features MOBILITY, SCARE_THREATS and HOLE_REACH of ``side`` (as
    ``bots/barca/evaluation.features`` defines them), read from the caches' masks."""
    mobility = 0
    dests = [0, 0, 0]
    off_hole = 0
    for q, t, valid in pos.legal_masks(side):
        mobility += valid.bit_count()
        dests[t] |= valid
        if not HOLE_MASK >> q & 1:
            off_hole |= valid
    bb = pos.bb
    o = 3 - 3 * side
    threats = 0
    for u in range(3):
        reaching = dests[(u + 1) % 3]
        if reaching:
            threats += sum(1 for q in _squares(bb[o + u]) if N8[q] & reaching)
    return mobility, threats, (off_hole & HOLE_MASK).bit_count()

