"""``GET /metrics``: the Prometheus figures of a real server match what its clients did."""

from __future__ import annotations

import asyncio
import urllib.request

from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.parser import text_string_to_metric_families

from server.app import ArenaServer
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient, play_random

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(server: ArenaServer) -> tuple[str, Samples]:
    """The ``Content-Type`` and every sample of ``/metrics``, by name and sorted labels."""
    with urllib.request.urlopen(server.http_url + "/metrics", timeout=5) as response:
        kind = response.headers["Content-Type"]
        text = response.read().decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return kind, samples


async def test_metrics_count_what_the_clients_did(server: ArenaServer) -> None:
    a = await account_client(server, "metrics-a")
    b = await account_client(server, "metrics-b")
    match_id = await challenge_match(a, [b], "race")
    request = await a.expect("request", match_id=match_id)
    # An answer the match runner refuses (not a legal action), then a frame the protocol
    # session refuses (not JSON): two errors, from the two places that send them.
    await a.send({"type": "action", "match_id": match_id,
                  "request_id": request["request_id"], "action": "no such action"})
    refused = await a.expect("error")
    await a.send_raw("{not json")
    malformed = await a.expect("error")
    assert malformed["code"] == "malformed"

    ends = await asyncio.gather(play_random(a, match_id, 1, first=request),
                                play_random(b, match_id, 2))
    assert ends[0]["outcome"] == ends[1]["outcome"]
    live = server.find_match(match_id)
    assert live is not None and live.moves > 0

    kind, samples = await asyncio.to_thread(scrape, server)
    assert kind == CONTENT_TYPE_LATEST
    assert samples[("arena_actions_total", ())] == live.moves
    assert samples[("arena_action_latency_seconds_count", ())] == live.moves
    assert samples[("arena_action_latency_seconds_bucket", (("le", "+Inf"),))] == live.moves
    assert samples[("arena_action_latency_seconds_sum", ())] > 0
    assert samples[("arena_matches_started_total", (("game", "race"),))] == 1
    assert samples[("arena_matches_finished_total", (("game", "race"), ("status", "over")))] == 1
    assert samples[("arena_errors_sent_total", (("code", refused["code"]),))] == 1
    assert samples[("arena_errors_sent_total", (("code", "malformed"),))] == 1
    assert samples[("arena_live_matches", ())] == 0
    # the process's standard figures beside the arena's own
    assert samples[("process_resident_memory_bytes", ())] > 0
    assert samples[("process_open_fds", ())] > 0
    assert ("python_gc_collections_total", (("generation", "0"),)) in samples
    assert samples[("arena_connections", ())] == 2
    assert samples[("arena_sessions", ())] == 2

    # Errors are counted as they are sent: one more is one more.
    await b.send_raw("{still not json")
    assert (await b.expect("error"))["code"] == "malformed"
    _, samples = await asyncio.to_thread(scrape, server)
    assert samples[("arena_errors_sent_total", (("code", "malformed"),))] == 2
    for client in (a, b):
        await client.close()


async def test_each_server_keeps_its_own_figures(server: ArenaServer) -> None:
    other = ArenaServer(server.store)
    await other.start("127.0.0.1", 0)
    try:
        client = await WsClient.open(other.ws_url)
        await client.send_raw("[]")
        await client.expect("error")
        _, mine = await asyncio.to_thread(scrape, server)
        _, theirs = await asyncio.to_thread(scrape, other)
        assert not any(name == "arena_errors_sent_total" for name, _ in mine)
        assert sum(v for (name, _), v in theirs.items() if name == "arena_errors_sent_total") == 1
        await client.close()
    finally:
        await other.close()
