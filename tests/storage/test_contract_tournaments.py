"""Store contract, the tournaments' sub-store: headers, entrants in join order, pairings
with their results, rebuilt whole (every backend of ``contract.BACKENDS``)."""

from __future__ import annotations

from server.storage import Store
from server.tournaments import Entrant, Tournament


def swiss(tid: str, created_at: str) -> Tournament:
    return Tournament(tid, "Friday Swiss", "battleline", "swiss", 2, 3, "ann", created_at,
                      {"variant": "tactics"}, {"initial_ms": 60000, "increment_ms": 1000})


def test_a_tournament_is_stored_and_rebuilt_as_it_was(store: Store) -> None:
    tournaments = store.tournaments()
    assert tournaments is store.tournaments()
    t = swiss("t1", "2026-01-01T10:00:00.000Z")
    tournaments.save_tournament(t)
    for seq, name in enumerate(["cy", "ann", "bob", "dee", "eve"]):
        entrant = Entrant(name, "bot" if name == "cy" else "human", 1.5 * seq,
                          f"2026-01-01T10:0{seq}:00.000Z")
        t.join(entrant)
        tournaments.save_entrant(t.id, seq, entrant)
    t.leave("bob")
    tournaments.remove_entrant(t.id, "bob")
    for seq, entrant in enumerate(t.entrants.values()):
        tournaments.save_entrant(t.id, seq, entrant)
    tournaments.flush()
    loaded = tournaments.load("t1")
    assert loaded is not None and list(loaded.entrants) == ["cy", "ann", "dee", "eve"]
    assert loaded.entrants["dee"] == t.entrants["dee"]

    for p in t.start("2026-01-01T11:00:00.000Z"):  # two games and a bye
        tournaments.save_pairing(t.id, p)
    tournaments.save_tournament(t)
    first, second = [p for p in t.round_pairings(1) if not p.is_bye]
    t.record(1, first.board, "live", None, None, "m1")
    tournaments.save_pairing(t.id, t.pairing(1, first.board))
    tournaments.save_pairing(t.id, t.record(1, first.board, "over", [1, 0], "flags"))
    tournaments.save_pairing(t.id, t.record(1, second.board, "forfeit", [0, 1], "forfeit"))
    tournaments.flush()
    loaded = tournaments.load("t1")
    assert loaded is not None
    assert loaded.to_json() == t.to_json()
    assert loaded.pairing(1, first.board).match_id == "m1"
    assert loaded.round_complete()


def test_listing_is_newest_first_by_status_and_unfinished_ones_come_back(store: Store
                                                                          ) -> None:
    tournaments = store.tournaments()
    assert tournaments.load("nope") is None and tournaments.list_ids() == []
    old, new, done = (swiss("a", "2026-01-01T00:00:00.000Z"),
                      swiss("b", "2026-01-02T00:00:00.000Z"),
                      swiss("c", "2026-01-03T00:00:00.000Z"))
    done.status = "over"
    for t in (old, new, done):
        tournaments.save_tournament(t)
    new.status = "running"
    tournaments.save_tournament(new)  # a second save replaces the header
    tournaments.flush()
    assert tournaments.list_ids() == ["c", "b", "a"]
    assert tournaments.list_ids(limit=2) == ["c", "b"]
    assert tournaments.list_ids(status="over") == ["c"]
    assert [t.id for t in tournaments.unfinished()] == ["a", "b"]
    assert tournaments.unfinished()[1].status == "running"
