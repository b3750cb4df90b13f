"""Rules §14.1: the exact tables, their checksums, and SplitMix64."""

from __future__ import annotations

import numpy as np

from engine.boundary import tables
from engine.boundary.influence import lam
from engine.rng import Rng


def test_lambda_and_exp_spot_values_case_1() -> None:
    spots = {2: 1024, 3: 1623, 4: 2048, 5: 2377, 10: 3401, 100: 6803, 1000: 10204,
             5_100_818: 22817}
    for s, expected in spots.items():
        assert tables.lam(s) == expected, s
    values = lam(np.array(list(spots), dtype=np.int64))
    assert values.tolist() == list(spots.values())
    exp = tables.tables().exp
    assert {m: exp[m] for m in (0, 1024, 2048, 4096, 10000, 22824)} == {
        0: 8, 1024: 11, 2048: 16, 4096: 32, 10000: 236, 22824: 18110}


def test_the_tables_match_the_published_checksums() -> None:
    built = tables.tables()
    assert len(built.thresh) == len(built.exp) == 22825 == tables.K_MAX + 1
    assert tables.checksum(built.thresh) == tables.THRESH_SHA256
    assert tables.checksum(built.exp) == tables.EXP_SHA256


def test_integer_only_and_float_guess_derivations_agree_case_2() -> None:
    exact = tables.build_exact()
    assert exact == tables.build_fast()
    assert tables.checksum(exact.thresh) == tables.THRESH_SHA256


def test_lambda_table_is_the_definition_on_every_small_s() -> None:
    # λ(s) is the number of thresholds ≤ s, minus one: the flat table must say the same.
    thresh = np.array(tables.tables().thresh, dtype=np.int64)
    s = np.arange(1, 300_001, dtype=np.int64)
    expected = np.searchsorted(thresh, s, side="right") - 1
    assert (lam(s) == expected).all()
    # and λ(s) = floor(1024 log2 s) exactly: 2^λ ≤ s^1024 < 2^(λ+1), checked with big integers
    for value in (2, 3, 7, 1000, 65_537, 4_999_999, 5_100_818):
        k = tables.lam(value)
        assert (1 << k) <= value ** 1024 < (1 << (k + 1))


def test_splitmix64_seed_0_case_3() -> None:
    rng = Rng(0)
    assert [rng.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
