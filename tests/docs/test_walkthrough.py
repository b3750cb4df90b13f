"""docs/protocol-walkthrough.md: every JSON message is valid against protocol/schema.json in
its direction (and against the protocol package's own validators), and the story holds
together: answers name requests shown before them, replies carry the id of what they answer,
the resume keeps the session and the re-sent request keeps its id."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from protocol import validate_client_message, validate_server_message

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol-walkthrough.md"
SCHEMA = json.loads((ROOT / "protocol" / "schema.json").read_text(encoding="utf-8"))
BLOCK = re.compile(r"(?P<lead>[^\n]*)\n\n```json\n(?P<body>.*?)\n```", re.S)


def messages() -> list[tuple[str, dict[str, Any]]]:
    """(direction, message) for every ```json block; the direction is the line right before
    the block: ``bot → server:`` or ``server → bot:``."""
    found = []
    for match in BLOCK.finditer(DOC.read_text(encoding="utf-8")):
        lead = match.group("lead").strip()
        assert lead in ("bot → server:", "server → bot:"), \
            f"a JSON block must follow 'bot → server:' or 'server → bot:', not {lead!r}"
        found.append(("client" if lead.startswith("bot") else "server",
                      json.loads(match.group("body"))))
    return found


def validator(direction: str) -> jsonschema.Draft202012Validator:
    schema = {k: v for k, v in SCHEMA.items() if k != "anyOf"}
    return jsonschema.Draft202012Validator({**schema, "$ref": f"#/$defs/{direction}_message"})


def test_the_walkthrough_shows_a_whole_session() -> None:
    kinds = [(d, m["type"]) for d, m in messages()]
    for needed in [("client", "hello"), ("server", "welcome"), ("client", "autoplay"),
                   ("server", "ok"), ("server", "match_start"), ("server", "events"),
                   ("server", "request"), ("client", "action"), ("server", "error"),
                   ("server", "match_end")]:
        assert needed in kinds, needed
    assert kinds[0] == ("client", "hello") and kinds[-1] == ("server", "match_end")


@pytest.mark.parametrize("index_message", list(enumerate(messages())),
                         ids=lambda im: f"{im[0]}-{im[1][1]['type']}")
def test_each_message_is_valid_in_its_direction(
        index_message: tuple[int, tuple[str, dict[str, Any]]]) -> None:
    _, (direction, message) = index_message
    errors = list(validator(direction).iter_errors(message))
    assert not errors, [e.message for e in errors]
    (validate_client_message if direction == "client" else validate_server_message)(message)


def test_the_story_is_consistent() -> None:
    sent_ids: set[Any] = set()
    requests: dict[str, dict[str, Any]] = {}
    sessions: list[str] = []
    for direction, message in messages():
        kind = message["type"]
        if direction == "client":
            if "id" in message:
                assert message["id"] not in sent_ids, "ids are not reused"
                sent_ids.add(message["id"])
            if kind == "action":
                request = requests.get(message["request_id"])
                assert request is not None, f"answer to an unseen request: {message}"
                assert request["match_id"] == message["match_id"]
                if "id" not in message:  # the accepted answers pick from the legal actions
                    assert message["action"] in request["legal_actions"], message
            if kind == "hello" and "resume" in message:
                assert message["resume"] == sessions[0]
            continue
        if "ref" in message:
            assert message["ref"] in sent_ids, f"a reply to nothing: {message}"
        if kind == "welcome":
            sessions.append(message["session"])
        elif kind == "request":
            requests.setdefault(message["request_id"], message)
        elif kind == "error" and "request_id" in message:
            assert message["request_id"] in requests
    assert len(sessions) == 2 and sessions[0] == sessions[1], "the resume keeps the session"
    request_ids = [m["request_id"] for d, m in messages() if m["type"] == "request"]
    assert len(request_ids) == len(set(request_ids)) + 1, "exactly one request is re-sent"
    # The events of the match come in increasing seq order.
    seqs = [m["seq"] for _, m in messages() if m["type"] == "events"]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
