"""protocol/schema.json is the catalogue of protocol/messages.py, and it is current."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from protocol.errors import ERROR_CODES, ErrorCode
from protocol.messages import (
    ALL_MESSAGES,
    CLIENT_TYPES,
    SERVER_TYPES,
    json_schema,
    schema_text,
)

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "protocol" / "schema.json"


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def test_committed_schema_is_generated_from_the_catalogue() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), (
        "protocol/schema.json is out of date: python -m tools.schema > protocol/schema.json")


def test_schema_is_a_valid_draft_2020_12_schema(schema: dict[str, Any]) -> None:
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_every_catalogue_type_has_a_definition_and_vice_versa(schema: dict[str, Any]) -> None:
    defs = schema["$defs"]
    for direction, types in (("client", CLIENT_TYPES), ("server", SERVER_TYPES)):
        listed = {ref["$ref"].rsplit("/", 1)[1]
                  for ref in defs[f"{direction}_message"]["oneOf"]}
        assert listed == {f"{direction}.{t}" for t in types}
        for t, spec in types.items():
            d = defs[f"{direction}.{t}"]
            assert d["properties"]["type"] == {"const": t}
            assert set(d["required"]) == {"type", *spec.required}
            assert set(d["properties"]) >= {f.name for f in spec.fields}
    message_defs = {k for k in defs if k.startswith(("client.", "server."))}
    assert message_defs == {f"{m.direction}.{m.type}" for m in ALL_MESSAGES}


def test_the_catalogue_is_exactly_the_fixed_one() -> None:
    # Field names are binding for every implementation (see the fixed catalogue).
    assert set(CLIENT_TYPES) == {
        "hello", "ping", "list_games", "list_matches", "seek", "cancel_seek", "challenge",
        "accept", "decline", "play_bot", "autoplay", "spectate", "leave", "action", "resign",
        "get_replay", "list_bots",
        # admin only (issue #22)
        "abort_match", "ban_account",
        # the bot ladder (PROTOCOL.md section 14)
        "ladder_join", "ladder_leave", "get_leaderboard", "get_rating_history",
        "list_ladder_matches",
        # at the table (issue #24): chat and rematch
        "chat", "mute", "rematch", "decline_rematch",
        # tournaments (issue #24)
        "tournament_create", "tournament_join", "tournament_leave", "tournament_start",
        "tournament_show", "list_tournaments",
        # people's accounts (issue #24)
        "sign_up", "sign_in", "sign_out", "change_password", "create_bot",
        "rotate_bot_token", "revoke_bot_token", "list_my_bots",
        # ratings for people (issue #24)
        "get_profile", "get_people_leaderboard"}
    assert set(SERVER_TYPES) == {
        "welcome", "pong", "games", "matches", "seeking", "challenge", "challenge_sent",
        "challenge_declined", "ok", "match_start", "request", "events", "match_end",
        "replay", "error", "bots",
        "ladder_joined", "leaderboard", "rating_history", "ladder_matches",
        # at the table (issue #24): chat and rematch
        "chat_line", "rematch_offered", "rematch_declined",
        # tournaments (issue #24)
        "tournament", "tournaments",
        # people's accounts (issue #24)
        "signed_in", "bot_token", "my_bots",
        # ratings for people (issue #24)
        "profile", "people_leaderboard",
        # duplicate pairs (PROTOCOL.md section 19)
        "pair_end"}
    assert set(ERROR_CODES) == {
        "malformed", "unknown_type", "unsupported_version", "unauthorized", "not_your_turn",
        "stale_request", "malformed_action", "illegal_action", "rate_limited", "too_large",
        "not_found", "bad_request", "internal"}
    assert {c.value for c in ErrorCode} == set(ERROR_CODES)


def test_schema_and_python_validation_agree_on_samples(schema: dict[str, Any]) -> None:
    from protocol.codec import validate_client_message
    from protocol.errors import ProtocolError

    client_only = {k: v for k, v in schema.items() if k != "anyOf"}
    validator = jsonschema.Draft202012Validator(
        {**client_only, "$ref": "#/$defs/client_message"})
    samples = [
        {"type": "hello", "protocol": 1},
        {"type": "hello", "protocol": "1"},
        {"type": "seek", "game": "chexers", "clock": {"initial_ms": 1, "increment_ms": 0}},
        {"type": "seek", "game": "chexers", "clock": {"initial_ms": 1}},
        {"type": "seek", "game": "chexers", "seats": 0},
        {"type": "autoplay", "games": []},
        {"type": "action", "match_id": "m", "request_id": "r", "action": None},
        {"type": "action", "match_id": "m", "request_id": "r"},
        {"type": "ping", "id": "x" * 65},
        {"type": "ping", "id": 12},
    ]
    for sample in samples:
        try:
            validate_client_message(sample)
            python_ok = True
        except ProtocolError:
            python_ok = False
        assert validator.is_valid(sample) == python_ok, sample


def test_json_schema_function_matches_file(schema: dict[str, Any]) -> None:
    assert json_schema() == schema
