"""A live match's progress into the :class:`~server.storage.Store`: the persistence half of a
live match.

The match's row goes in when it starts (:meth:`MatchRecorder.started`); new log entries are
taken in batches for all matches at once (:meth:`MatchRecorder.unpersisted`, the server's
persist loop); the result goes in when it ends (:meth:`MatchRecorder.finished`). A restarted
server finds in the store what it needs to replay, or to resume, the match.
"""

from __future__ import annotations

from typing import Any

from server.runner import MatchRunner
from server.storage import MatchRow, Store


class MatchRecorder:
    def __init__(self, runner: MatchRunner, store: Store) -> None:
        self.runner = runner
        self.store = store
        self._persisted = 0  # log entries already handed to the store

    def started(self, started_at: str, live_state: dict[str, Any]) -> None:
        """Store the match's row (call before the runner starts: its start record), with
        what a restarted server needs to resume it."""
        runner = self.runner
        record = runner.full_record()
        self.store.save_match(MatchRow(
            id=runner.match_id, game=runner.game.info.name, options=dict(runner.options),
            num_seats=runner.num_seats, seed=runner.match.seed,
            seats=[info.to_json(s) for s, info in enumerate(runner.seats)],
            clock=None if runner.clock is None else runner.clock.to_json(),
            start=record["start"], created_at=started_at, live_state=live_state,
            chance=runner.match.chance, pair=runner.pair))

    def resumed(self) -> None:
        """The match was rebuilt from its stored log: all of it is in the store."""
        self._persisted = len(self.runner.match.log)

    def unpersisted(self) -> list[tuple[str, int, dict[str, Any]]]:
        """Log entries not yet handed to the store, ``(match_id, index, entry)`` each; they
        count as handed over once returned (the server batches them for all matches)."""
        log = self.runner.match.log
        start, end = self._persisted, len(log)
        if start == end:
            return []
        self._persisted = end
        match_id = self.runner.match_id
        return [(match_id, index, log[index]) for index in range(start, end)]

    def finished(self, ended_at: str) -> None:
        """Store the result and the whole log of a match that just ended."""
        runner = self.runner
        outcome = runner.outcome
        self.store.update_match(runner.match_id, log=runner.match.log, moves=runner.moves,
                                status=runner.status,
                                outcome=None if outcome is None else outcome.to_json(),
                                ended_at=ended_at)
