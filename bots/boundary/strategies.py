"""The six basic strategies of the Boundary thesis (rules §11.2), as the rule book fixes
them: Greedy Treasure (GT), Best Treasure (BT), Greedy Capture (GC), Hybrid Capture (HC),
Defensive Treasure (DT) and Defensive Capture (DC).

A strategy is an object with persistent memory (the targets it keeps from turn to turn) and
one method, :meth:`Strategy.plan`, that builds the plan of ``world.team`` for the current
turn. The same classes play the opponent's side inside the adaptive agent (as *shadows* that
predict its plans), so nothing here knows which side it plays for.

``predictions`` (piece → point) replace the inertia guess of where an enemy piece goes, for
the capture strategies: the adaptive agent's "using the model" (rules §11.3).
"""

from __future__ import annotations

from collections.abc import Mapping

from bots.boundary.world import PlanBuilder, Point, World, d2, nearest

NAMES = ("GT", "BT", "GC", "HC", "DT", "DC")
TITLES = {
    "GT": "Greedy Treasure",
    "BT": "Best Treasure",
    "GC": "Greedy Capture",
    "HC": "Hybrid Capture",
    "DT": "Defensive Treasure",
    "DC": "Defensive Capture",
}


class Strategy:
    """One basic strategy. ``plan(world)`` returns piece → target for ``world.team``."""

    name = ""
    threshold = 1   # the blob size the strategy groups up to before it acts as a group

    def __init__(self) -> None:
        self.predictions: Mapping[int, Point] | None = None

    def plan(self, world: World) -> dict[int, Point]:
        raise NotImplementedError

    # ---- shared helpers ------------------------------------------------------------------

    def th(self, world: World) -> int:
        """The size threshold, never more than the pieces the side still has."""
        return min(self.threshold, len(world.own()))

    def ordered_blobs(self, world: World) -> list[tuple[int, ...]]:
        """Blobs that meet the threshold first, then the smaller ones; each in id order."""
        th = self.th(world)
        blobs = world.own_blobs()
        return [b for b in blobs if len(b) >= th] + [b for b in blobs if len(b) < th]

    def aim_at(self, world: World, enemy: int) -> Point:
        if self.predictions is not None and enemy in self.predictions:
            return self.predictions[enemy]
        return world.predict(enemy)


def _nearest_ally(world: World, origin: Point, blob: tuple[int, ...], prefer_lone: bool
                  ) -> int | None:
    outside = {p: world.pos[p] for p in world.own() if p not in blob}
    if prefer_lone:
        lone = {p: xy for p, xy in outside.items() if world.size(p) == 1}
        if lone:
            return nearest(origin, lone)
    return nearest(origin, outside)


class _TreasureRacer(Strategy):
    """GT and BT: every piece chases its own treasure, remembered until it is gone."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: dict[int, int] = {}

    def better(self, world: World, origin: Point, t: int, u: int) -> bool:
        raise NotImplementedError

    def pick(self, world: World, origin: Point, candidates: list[int]) -> int | None:
        best: int | None = None
        for t in sorted(candidates):
            if best is None or self.better(world, origin, t, best):
                best = t
        return best

    def plan(self, world: World) -> dict[int, Point]:
        builder = PlanBuilder(world)
        left = world.treasures
        for p in world.own():
            if self.targets.get(p) not in left:
                self.targets.pop(p, None)
        for p in world.own():
            target = self.targets.get(p)
            if target is None:
                taken = {t for q, t in self.targets.items() if q != p and q in world.pos}
                free = [t for t in left if t not in taken]
                target = self.pick(world, world.pos[p], free or list(left))
                if target is None:
                    continue
                self.targets[p] = target
            x, y, _ = left[target]
            builder.move(p, (x, y))
        return builder.plan


class GreedyTreasure(_TreasureRacer):
    name = "GT"

    def better(self, world: World, origin: Point, t: int, u: int) -> bool:
        xt, yt, _ = world.treasures[t]
        xu, yu, _ = world.treasures[u]
        return d2(origin, (xt, yt)) < d2(origin, (xu, yu))


class BestTreasure(_TreasureRacer):
    name = "BT"

    def better(self, world: World, origin: Point, t: int, u: int) -> bool:
        # value / distance, compared exactly: v_t² · D2_u > v_u² · D2_t.
        xt, yt, vt = world.treasures[t]
        xu, yu, vu = world.treasures[u]
        return vt * vt * d2(origin, (xu, yu)) > vu * vu * d2(origin, (xt, yt))


class _Hunter(Strategy):
    """A blob at the threshold keeps one enemy target while it lives and every member
    agrees, else takes the enemy nearest its centroid; it FLANKs toward where the target
    will be. Smaller blobs :meth:`gather` first."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: dict[int, int] = {}

    def plan(self, world: World) -> dict[int, Point]:
        builder = PlanBuilder(world)
        th = self.th(world)
        for blob in self.ordered_blobs(world):
            if len(blob) >= th:
                self.hunt(world, builder, blob)
            else:
                self.gather(world, builder, blob)
        return builder.plan

    def gather(self, world: World, builder: PlanBuilder, blob: tuple[int, ...]) -> None:
        raise NotImplementedError

    def hunt(self, world: World, builder: PlanBuilder, blob: tuple[int, ...]) -> None:
        enemies = {e: world.pos[e] for e in world.enemy()}
        if not enemies:
            return
        stored = {self.targets.get(m) for m in blob}
        target = next(iter(stored)) if len(stored) == 1 else None
        if target not in enemies:
            target = nearest(world.centroid(blob), enemies)
            assert target is not None
            for m in blob:
                self.targets[m] = target
        builder.flank(blob, self.aim_at(world, target))


class GreedyCapture(_Hunter):
    name = "GC"
    threshold = 2

    def gather(self, world: World, builder: PlanBuilder, blob: tuple[int, ...]) -> None:
        # A lone piece joins the nearest ally outside its blob, a lone one if any; with no
        # ally left it hunts alone.
        (p,) = blob
        ally = _nearest_ally(world, world.pos[p], blob, prefer_lone=True)
        if ally is None:
            self.hunt(world, builder, blob)
        else:
            builder.move(p, builder.ally_point(ally))


class HybridCapture(Strategy):
    name = "HC"
    threshold = 2

    def plan(self, world: World) -> dict[int, Point]:
        builder = PlanBuilder(world)
        th = self.th(world)
        treasures = world.treasure_points()
        enemies = {e: world.pos[e] for e in world.enemy()}
        for blob in self.ordered_blobs(world):
            c = world.centroid(blob)
            lone = len(blob) < th
            if lone:
                ally = _nearest_ally(world, c, blob, prefer_lone=True)
                primary = None if ally is None else builder.ally_point(ally)
                primary_here = None if ally is None else world.pos[ally]
            else:
                enemy = nearest(c, enemies)
                primary = None if enemy is None else self.aim_at(world, enemy)
                primary_here = None if enemy is None else world.pos[enemy]
            treasure = nearest(c, treasures)
            secondary = None if treasure is None else treasures[treasure]
            go_treasure = secondary is not None and (
                primary_here is None or d2(c, primary_here) > d2(c, secondary))
            if go_treasure:
                assert secondary is not None
                if len(blob) == 1:
                    builder.move(blob[0], secondary)
                else:
                    builder.translate(blob, secondary)
            elif primary is not None:
                if lone:
                    builder.move(blob[0], primary)
                else:
                    builder.flank(blob, primary)
        return builder.plan


def _group_up(world: World, builder: PlanBuilder, blob: tuple[int, ...]) -> None:
    """A blob below the threshold joins the nearest ally outside it (where it is going)."""
    ally = _nearest_ally(world, world.centroid(blob), blob, prefer_lone=False)
    if ally is not None:
        builder.translate(blob, builder.ally_point(ally))


class DefensiveTreasure(Strategy):
    name = "DT"
    threshold = 3

    def __init__(self) -> None:
        super().__init__()
        self.targets: dict[int, int] = {}

    def plan(self, world: World) -> dict[int, Point]:
        builder = PlanBuilder(world)
        th = self.th(world)
        treasures = world.treasure_points()
        for blob in self.ordered_blobs(world):
            if len(blob) < th:
                _group_up(world, builder, blob)
                continue
            stored = {self.targets.get(m) for m in blob}
            target = next(iter(stored)) if len(stored) == 1 else None
            if target not in treasures:
                claimed = {t for m, t in self.targets.items()
                           if m not in blob and m in world.pos and t in treasures}
                free = {t: xy for t, xy in treasures.items() if t not in claimed}
                target = nearest(world.centroid(blob), free or treasures)
                if target is None:
                    continue
                for m in blob:
                    self.targets[m] = target
            builder.translate(blob, treasures[target])
        return builder.plan


class DefensiveCapture(_Hunter):
    name = "DC"
    threshold = 3

    def gather(self, world: World, builder: PlanBuilder, blob: tuple[int, ...]) -> None:
        _group_up(world, builder, blob)


CLASSES: dict[str, type[Strategy]] = {
    "GT": GreedyTreasure,
    "BT": BestTreasure,
    "GC": GreedyCapture,
    "HC": HybridCapture,
    "DT": DefensiveTreasure,
    "DC": DefensiveCapture,
}


def make(name: str) -> Strategy:
    return CLASSES[name]()
