"""``arena bench order``: single games against duplicate pairs, by simulation over a record
(tools/bench/order.py). Synthetic records with known odds check the simulation's direction,
its separations and its seeds; a tiny real round robin checks the record's round trip."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import registry
from tools import cli
from tools.bench import order
from tools.bench.strength import pair_tasks

BOTS = ("a", "b", "c", "d")   # strongest first


def synthetic(deals: int, luck: float, seed: int = 7,
              even: frozenset[str] = frozenset()) -> list[order.GameRecord]:
    """A round robin where on a ``luck`` share of the deals (the same deals for every
    pairing) seat 0 wins whoever sits there, and on the others the stronger bot wins both
    seatings: a duplicate pair scores 1 or ½, a single game is a coin weighted 1 − luck/2.
    Bots in ``even`` are equal: between them seat 0 always wins."""
    rng = random.Random(seed)
    lucky = [rng.random() < luck for _ in range(deals)]
    records = []
    for k in range(deals):
        for x, y in [(x, y) for i, x in enumerate(BOTS) for y in BOTS[i + 1:]]:
            for seats in ((x, y), (y, x)):
                if lucky[k] or {x, y} <= even:
                    ranks = (0, 1)
                else:
                    ranks = (0, 1) if seats[0] == x else (1, 0)
                records.append(order.GameRecord("battleline", k, 1000 + k, seats, ranks))
    return records


def test_duplicate_pairs_order_bots_with_fewer_games_when_seat_luck_cancels() -> None:
    table = order.build_table(synthetic(120, luck=0.6))
    truth = order.true_order(table, trials=400, seed=3)
    assert [table.bots[k] for k in truth.order] == list(BOTS) and truth.established
    sizes = (2, 4, 8, 16, 32, 64, 128)
    single, dup = order.simulate(table, truth.required, sizes, trials=600, seed=3)
    assert (single.mode, dup.mode) == ("single", "duplicate")
    assert dup.smallest is not None and single.smallest is not None
    assert dup.smallest < single.smallest
    # Per game, a duplicate pair is at least as informative at every size.
    assert all(dup.points[n] >= single.points[n] - 0.02 for n in sizes)
    assert dup.points[16] > single.points[16] + 0.05
    # The same seed gives the very same figures; another seed other figures.
    again = order.simulate(table, truth.required, sizes, trials=600, seed=3)
    assert [c.points for c in again] == [single.points, dup.points]
    other = order.simulate(table, truth.required, sizes, trials=600, seed=4, refine=False)
    assert other[0].points != {n: single.points[n] for n in sizes}


def test_without_luck_every_size_orders_the_bots_and_two_games_suffice() -> None:
    table = order.build_table(synthetic(20, luck=0.0))
    truth = order.true_order(table, trials=200, seed=1)
    for mode in order.MODES:
        assert order.p_correct(table, truth.required, mode, 2, trials=200, seed=1) == 1.0
    assert [c.smallest for c in order.simulate(table, truth.required, (2, 4), 200, 1)] == [2, 2]


def test_bots_within_noise_are_a_tier_and_no_order_is_claimed_between_them() -> None:
    table = order.build_table(synthetic(60, luck=0.3, even=frozenset({"c", "d"})))
    truth = order.true_order(table, trials=300, seed=1)
    c, d = table.bots.index("c"), table.bots.index("d")
    assert not truth.established
    assert (c, d) not in truth.required and (d, c) not in truth.required
    assert len(truth.required) == 5
    assert [[table.bots[k] for k in tier] for tier in truth.tiers()] == [["a"], ["b"],
                                                                         ["c", "d"]]
    done = order.studies(table, truth, (2, 4, 8, 16, 32, 64), 300, 1)
    assert [(s.what, s.claimed) for s in done] == [
        ("the separated pairs' order", True),
        ("the record's full order (NOT established)", False)]
    assert len(done[1].pairs) == 6
    # c and d are equal: each wins its pairing's seat-0 games only, the record's order
    # between them (a name) is a coin flip or a tie in any sample.
    assert all(p < 0.6 for p in done[1].curves[0].points.values())
    assert done[0].curves[1].smallest is not None
    text = order.report(table, truth, done, {"trials": 300, "seed": 1})
    assert "NOT established (a > b > c ~ d" in text and "c > d:" in text
    assert "NOT SEPARATED" in text and "95% the separated pairs' order: single" in text


def test_seat_correlation_is_negative_when_the_deal_favours_a_seat() -> None:
    # Per deal, a's scores in its two seatings: (1, 0), (0, 1), (1, 1) in turn: r = -0.5.
    outcomes = [((0, 1), (0, 1)), ((1, 0), (1, 0)), ((0, 1), (1, 0))]
    records = [order.GameRecord("battleline", k, k, seats, ranks)
               for k in range(30)
               for seats, ranks in zip((("a", "b"), ("b", "a")), outcomes[k % 3], strict=True)]
    table = order.build_table(records)
    assert table.scores[0].mean(axis=0).tolist() == [2 / 3, 2 / 3]
    assert table.seat_correlation(0) == pytest.approx(-0.5)
    stats = table.head_to_head(0).to_json()
    assert (stats["pairs_won_both"], stats["pairs_split"], stats["pairs_lost_both"]) == \
        (10, 20, 0)
    assert order.build_table(synthetic(4, luck=0.0)).seat_correlation(0) is None


def test_the_table_keeps_only_deals_complete_for_every_pairing() -> None:
    records = synthetic(5, luck=0.5)
    gone = next(r for r in records if r.deal == 2 and set(r.seats) == {"b", "c"})
    table = order.build_table([r for r in records if r is not gone])
    assert table.deals == (1000, 1001, 1003, 1004) and table.dropped == 11
    assert order.build_table(records, ["d", "a"]).bots == ("d", "a")
    with pytest.raises(ValueError, match="distinct"):
        order.build_table(records, ["a"])
    with pytest.raises(ValueError, match="mixes games"):
        order.build_table([*records, order.GameRecord("barca", 0, 1, ("a", "b"), (0, 1))])
    with pytest.raises(ValueError, match="duplicate pairs need an even"):
        order.totals(table, "duplicate", 3, 10, 1)


def test_a_tiny_real_round_robin_round_trips_through_its_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "order.jsonl"
    common = ["--trials", "50", "--sizes", "2,4,8", "--json"]
    assert cli.main(["bench", "order", "battleline", "random", "greedy", "--deals", "2",
                     "--seed", "5", "--record", str(path), *common]) == 0
    played = json.loads(capsys.readouterr().out)
    records = order.read_records(path)
    assert len(records) == 4 and len(path.read_text().splitlines()) == 4
    assert all(order.GameRecord.from_json(r.to_json()) == r for r in records)
    seeds = [t.seed for t in pair_tasks(registry.get("battleline"), ("random", "greedy"), 4, 5)]
    assert [(r.deal, r.seed, r.seats) for r in records] == [
        (0, seeds[0], ("random", "greedy")), (0, seeds[0], ("greedy", "random")),
        (1, seeds[1], ("random", "greedy")), (1, seeds[1], ("greedy", "random"))]
    assert all(sorted(r.ranks) in ([0, 0], [0, 1]) and r.turns > 0 for r in records)

    assert cli.main(["bench", "order", "battleline", "--from", str(path), "--seed", "5",
                     *common]) == 0
    again = json.loads(capsys.readouterr().out)
    for report in (played, again):
        del report["settings"]["source"], report["settings"]["record"]
    assert again == played and played["deals"] == 2 and played["bots"] == ["random", "greedy"]


@pytest.mark.parametrize("argv, message", [
    (["battleline", "random"], "two or more bots"),
    (["battleline", "random", "random"], "each bot once"),
    (["battleline", "random", "nobody"], "bad bot 'nobody'"),
    (["chexers", "random", "greedy"], "not a two-seat game"),
])
def test_bad_arguments_are_refused(argv: list[str], message: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "order", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_record_of_another_game_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        order.write_records(f, synthetic(2, luck=0.5))
    assert cli.main(["bench", "order", "barca", "--from", str(path)]) == 2
    assert "records battleline, not barca" in capsys.readouterr().err
