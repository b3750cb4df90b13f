"""Bad Barca actions over the protocol: each malformed or illegal action gets the typed error
naming the rule it breaks (rules/barca.md §3-§7), the seat's request stays open, and the
match goes on to a legal move."""

from __future__ import annotations

from typing import Any

from server.app import ArenaServer
from tests.server_tests.helpers import account_client, challenge_match
from tests.server_tests.wsclient import WsClient


def move(frm: str, to: Any, **more: Any) -> dict[str, Any]:
    return {"type": "move", "from": frm, "to": to, **more}


async def refused(client: WsClient, match_id: str, request: dict[str, Any],
                  action: Any) -> dict[str, Any]:
    ref = await client.send({"type": "action", "match_id": match_id,
                             "request_id": request["request_id"], "action": action})
    err = await client.expect_reply(ref)
    assert err["type"] == "error", err
    assert err["match_id"] == match_id
    return err


async def play(client: WsClient, match_id: str, request: dict[str, Any],
               action: dict[str, Any]) -> None:
    assert action in request["legal_actions"]
    await client.send({"type": "action", "match_id": match_id,
                       "request_id": request["request_id"], "action": action})


async def test_bad_barca_actions_get_the_error_naming_the_rule(server: ArenaServer) -> None:
    white = await account_client(server, "white-player", views=True)
    black = await account_client(server, "black-player", views=True)
    match_id = await challenge_match(white, [black], "barca")
    first = await white.expect("request", match_id=match_id)
    assert first["view"]["bpn"] == "4ee4/3lmml3/10/10/10/10/10/10/3LMML3/4EE4 w 0"

    # Malformed: wrong shapes, unknown squares, wrong types.
    for action in ({"type": "jump"}, {"type": "move", "from": "e2"}, move("z9", "e5"),
                   move("e2", 7), "e2-e5", {"type": "move", "from": "e2", "to": "e5",
                                            "claim": "yes"}):
        err = await refused(white, match_id, first, action)
        assert err["code"] == "malformed_action", (action, err)

    cases = {
        "not_your_piece": move("d9", "c8"),       # Black's lion, on White's turn
        "no_piece": move("e5", "e6"),
        "not_a_line": move("e1", "a2"),           # an elephant moves like a queen only
        "path_blocked": move("e1", "g1"),         # f1 is in the way
        "calm_into_danger": move("e2", "e8"),     # a calm mouse next to the d9 lion
        "no_repetition": {"type": "claim"},       # the start position occurred once
        "pass_not_allowed": {"type": "pass"},     # White has moves
    }
    for rule, action in cases.items():
        err = await refused(white, match_id, first, action)
        assert err["code"] == "illegal_action", (rule, err)
        assert err["details"]["rule"] == rule, (rule, err)
        assert err["message"], err

    # The request is still open: a legal move is accepted. Then Black scares the e7 mouse.
    await play(white, match_id, first, move("e2", "e7"))
    reply = await black.expect("request", match_id=match_id)
    await play(black, match_id, reply, move("g9", "f8"))
    forced = await white.expect("request", match_id=match_id)
    assert forced["view"]["bpn"] == "4ee4/3lmm4/5l4/4M5/10/10/10/10/3L1ML3/4EE4 w 2"
    # The e7 mouse is forced: every other animal must wait, and it must flee to safety.
    err = await refused(white, match_id, forced, move("e1", "a1"))
    assert err["details"]["rule"] == "forced_priority"
    assert err["details"]["forced"] == ["e7"]
    err = await refused(white, match_id, forced, move("e7", "f7"))
    assert err["details"]["rule"] == "forced_into_danger"
    assert all(a["from"] == "e7" for a in forced["legal_actions"])
    await play(white, match_id, forced, forced["legal_actions"][0])
    assert (await black.expect("request", match_id=match_id))["view"]["bpn"].endswith("b 3")

    # Out of turn and stale requests are refused too.
    ref = await white.send({"type": "action", "match_id": match_id,
                            "request_id": forced["request_id"], "action": move("e1", "a1")})
    assert (await white.expect_reply(ref))["code"] in ("not_your_turn", "stale_request")
    for client in (white, black):
        await client.close()
