"""Rules §14.2: influence colours (cases 4–8)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.boundary.influence import (
    NEUTRAL,
    TEAM0,
    TEAM1,
    Blobs,
    cell_colours,
    colour_map,
    decode_runs,
    encode_runs,
    full_colour_map,
)


def blobs_of(team0: list[tuple[int, int]], team1: list[tuple[int, int]],
             groups: list[list[int]] | None = None) -> Blobs:
    pos = team0 + team1
    teams = [0] * len(team0) + [1] * len(team1)
    groups = groups or [[p] for p in range(len(pos))]
    return Blobs.of(pos, groups, teams)


def row(colours: np.ndarray, j: int, i0: int, i1: int) -> list[int]:
    return colours[j, i0:i1 + 1].tolist()


def test_a_lone_piece_owns_a_disc_just_under_20_px_case_4() -> None:
    colours = colour_map(blobs_of([(400, 400)], [(100, 100)]), 20)
    assert row(colours, 200, 191, 209) == [TEAM0] * 19
    assert colours[200, 190] == NEUTRAL and colours[200, 210] == NEUTRAL


def test_opposing_lone_pieces_push_and_leave_a_neutral_gap_case_5() -> None:
    colours = colour_map(blobs_of([(400, 400)], [(440, 400)]), 20)
    assert row(colours, 200, 198, 206) == [TEAM0] * 9
    assert row(colours, 200, 207, 213) == [NEUTRAL] * 7
    assert row(colours, 200, 214, 222) == [TEAM1] * 9


FIVE = ([(300, 420), (330, 380), (356, 402)], [(395, 405), (410, 440)])


def test_mirroring_the_pieces_mirrors_the_map_case_6() -> None:
    team0, team1 = FIVE
    groups = [[0, 1, 2], [3, 4]]
    base = colour_map(blobs_of(team0, team1, groups), 20)
    flipped_x = colour_map(blobs_of([(799 - x, y) for x, y in team0],
                                    [(799 - x, y) for x, y in team1], groups), 20)
    assert (flipped_x == base[:, ::-1]).all()
    flipped_y = colour_map(blobs_of([(x, 799 - y) for x, y in team0],
                                    [(x, 799 - y) for x, y in team1], groups), 20)
    assert (flipped_y == base[::-1, :]).all()
    # Swapping the teams' labels swaps the colours exactly.
    swapped = colour_map(blobs_of(team1, team0, [[0, 1], [2, 3, 4]]), 20)
    relabel = np.array([TEAM1, TEAM0, NEUTRAL])
    assert (swapped == relabel[base]).all()
    assert (base == TEAM0).sum() > 0 and (base == TEAM1).sum() > 0


def test_an_exact_tie_inside_both_radii_is_neutral_case_7() -> None:
    # Two lone pieces whose sample points are mirror images: along the mirror line every
    # cell is equally close to both, and where both are inside, it is a tie.
    blobs = blobs_of([(400, 400)], [(405, 400)])
    cells = np.arange(190, 210, dtype=np.int64)
    # The centre sample of cell i is 2i + ½: cell 201 (x = 402.5) is equidistant.
    colours = cell_colours(np.array([201], dtype=np.int64), np.array([200], dtype=np.int64),
                           blobs, 20)
    assert colours.tolist() == [NEUTRAL]
    line = cell_colours(np.full(cells.shape, 201), cells, blobs, 20)
    assert set(line.tolist()) == {NEUTRAL}


@pytest.mark.parametrize("layout", [
    ([(400, 400)], [(440, 400)], None),
    (FIVE[0], FIVE[1], [[0, 1, 2], [3, 4]]),
    ([(10, 10), (790, 790), (40, 30)], [(400, 20), (20, 400)], [[0, 2], [1], [3], [4]]),
])
def test_culling_gives_the_colours_of_the_full_map_case_8(layout: tuple) -> None:
    team0, team1, groups = layout
    blobs = blobs_of(team0, team1, groups)
    assert (colour_map(blobs, 20) == full_colour_map(blobs, 20)).all()


def test_run_length_text_round_trips() -> None:
    colours = colour_map(blobs_of(*FIVE, [[0, 1, 2], [3, 4]]), 20)
    text = encode_runs(colours)
    assert text[0] in "abn" and (decode_runs(text) == colours).all()
    assert encode_runs(np.full((400, 400), NEUTRAL)) == "n160000"
