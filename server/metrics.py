"""The operator's figures of one server, in the Prometheus text format at ``GET /metrics``.

:class:`ServerMetrics` keeps the counts the server adds to as things happen (matches started
and finished, actions taken, the action latency histogram, errors sent by code) and reads the
gauges (live matches, connections, sessions) from the server when scraped. Every figure lives
in the server's own :class:`~prometheus_client.CollectorRegistry`, never the process-wide
default one, so several servers in one process (the tests) keep separate figures.

The counting is plain ``+= 1`` on ints and dicts (the action path pays well under a
microsecond); the Prometheus families are built only when ``/metrics`` is read.

=============================================  =========  =======================================
metric                                         type       what
=============================================  =========  =======================================
``arena_live_matches``                         gauge      matches under way
``arena_connections``                          gauge      open websocket connections
``arena_sessions``                             gauge      sessions (connected or away)
``arena_actions_total``                        counter    seat actions taken (applied, or
                                                          committed on a simultaneous turn)
``arena_action_latency_seconds``               histogram  server time from an ``action`` handed
                                                          to its handler to its answers being
                                                          written or scheduled (decoding excluded)
``arena_matches_started_total{game}``          counter    matches started
``arena_matches_finished_total{game,status}``  counter    matches ended, ``status`` ``over`` or
                                                          ``void``
``arena_errors_sent_total{code}``              counter    ``error`` messages sent, by code
=============================================  =========  =======================================

Beside them, prometheus_client's standard process figures (``process_cpu_seconds_total``,
``process_resident_memory_bytes``, ``process_open_fds``, …), the cyclic collector's
(``python_gc_collections_total{generation}``, ``python_gc_objects_collected_total``) and
``python_info``.
"""

from __future__ import annotations

import bisect
import collections
from collections.abc import Callable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

LATENCY_BUCKETS_S: tuple[float, ...] = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25)
"""Upper bounds of the action latency buckets, in seconds (0.1 ms to 250 ms): an action
costs ~0.2 ms of server CPU on these machines (DESIGN.md), a collector pause tens of ms."""


class LatencyHistogram:
    """Durations counted into fixed buckets (``counts[i]``: at most ``bounds[i]`` and above
    the bound before; the last count is above every bound), plus their sum."""

    __slots__ = ("bounds", "counts", "total")

    def __init__(self, bounds: tuple[float, ...] = LATENCY_BUCKETS_S) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, seconds)] += 1
        self.total += seconds

    def cumulative(self) -> list[tuple[str, float]]:
        """Prometheus buckets: ``(le, observations at most le)``, ending with ``+Inf``."""
        out: list[tuple[str, float]] = []
        running = 0
        for bound, count in zip([*map(str, self.bounds), "+Inf"], self.counts, strict=True):
            running += count
            out.append((bound, running))
        return out


class ServerMetrics:
    """The figures of one server. ``live_matches``, ``connections`` and ``sessions`` read
    the server's current numbers (called on each scrape); the server calls
    :meth:`match_started`, :meth:`match_finished` and :meth:`action_taken` as things
    happen, and hands :attr:`errors_sent` to each connection's protocol session, which
    counts every ``error`` it sends there."""

    content_type = CONTENT_TYPE_LATEST
    """The ``Content-Type`` of :meth:`exposition`."""

    def __init__(self, *, live_matches: Callable[[], int], connections: Callable[[], int],
                 sessions: Callable[[], int]) -> None:
        self._gauges = {"arena_live_matches": ("Matches under way.", live_matches),
                        "arena_connections": ("Open websocket connections.", connections),
                        "arena_sessions": ("Sessions, connected or away.", sessions)}
        self.actions = 0
        self.latency = LatencyHistogram()
        self.started: collections.Counter[str] = collections.Counter()
        self.finished: collections.Counter[tuple[str, str]] = collections.Counter()
        self.errors_sent: collections.Counter[str] = collections.Counter()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_Families(self))
        # The process's own standard figures, read when scraped (CPU seconds, resident
        # memory, open file descriptors; the collector's collections per generation): what
        # every Prometheus dashboard for a Python service expects beside the arena's own.
        ProcessCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)

    def action_taken(self, seconds: float) -> None:
        """A seat's action was taken; ``seconds`` of server time answered it."""
        self.actions += 1
        self.latency.observe(seconds)

    def match_started(self, game: str) -> None:
        self.started[game] += 1

    def match_finished(self, game: str, status: str) -> None:
        self.finished[(game, status)] += 1

    def exposition(self) -> bytes:
        """Every figure now, in the Prometheus text format (:attr:`content_type`)."""
        return generate_latest(self.registry)

    def families(self) -> Iterator[Metric]:
        for name, (documentation, read) in self._gauges.items():
            yield GaugeMetricFamily(name, documentation, value=read())
        yield CounterMetricFamily("arena_actions", "Seat actions taken.", value=self.actions)
        yield HistogramMetricFamily(
            "arena_action_latency_seconds",
            "Server time from an action handed to its handler to its answers being written "
            "or scheduled.", buckets=self.latency.cumulative(), sum_value=self.latency.total)
        started = CounterMetricFamily("arena_matches_started", "Matches started.",
                                      labels=["game"])
        for game, count in sorted(self.started.items()):
            started.add_metric([game], count)
        yield started
        finished = CounterMetricFamily("arena_matches_finished",
                                       "Matches ended (status over or void).",
                                       labels=["game", "status"])
        for (game, status), count in sorted(self.finished.items()):
            finished.add_metric([game, status], count)
        yield finished
        errors = CounterMetricFamily("arena_errors_sent", "Error messages sent, by code.",
                                     labels=["code"])
        for code, count in sorted(self.errors_sent.items()):
            errors.add_metric([code], count)
        yield errors


class _Families(Collector):
    """Builds the families from a :class:`ServerMetrics` on each scrape."""

    def __init__(self, metrics: ServerMetrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterator[Metric]:
        return self._metrics.families()
