"""protocol/PROTOCOL.md is executable: every example is valid, consistent and complete.

* every ```json block validates against protocol/schema.json (against its own message type in
  the per-message sections), and against the Python validator for client messages;
* every message type of the catalogue has a section whose field table names all its fields;
  every error code is in the errors table;
* every transcript line (``NAME >> {…}`` / ``NAME << {…}``) validates, and replaying a
  transcript through one :class:`protocol.session.ClientSession` per participant shows it is
  coherent: each action answers that participant's pending request with one of its legal
  actions (or is shown being refused), ``ref``s answer ids that participant sent, and ``seq``
  only increases;
* the transcripts keep the features the brief asked for (claim, private draw, resume, match
  end; three seats, a timeout).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from engine import spaces
from protocol.codec import encode_json, validate_client_message, validate_server_message
from protocol.errors import ERROR_CODES
from protocol.messages import CLIENT_TYPES, SERVER_TYPES
from protocol.session import ClientSession

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
SCHEMA = json.loads((ROOT / "protocol" / "schema.json").read_text(encoding="utf-8"))
LINE = re.compile(r"^(?P<who>[a-z][\w-]*) (?P<dir>>>|<<) (?P<json>\{.*\})$")


@dataclass
class Block:
    lang: str
    text: str
    h2: str
    h3: str
    line: int


def blocks() -> list[Block]:
    out: list[Block] = []
    h2 = h3 = ""
    lines = DOC.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            h2, h3 = line, ""
        elif line.startswith("### "):
            h3 = line
        elif line.startswith("```") and line.strip() != "```":
            lang, start, body = line[3:].strip(), i + 1, []
            i += 1
            while not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            out.append(Block(lang, "\n".join(body), h2, h3, start))
        i += 1
    return out


BLOCKS = blocks()
JSON_BLOCKS = [b for b in BLOCKS if b.lang == "json"]
TRANSCRIPTS = [b for b in BLOCKS if b.lang == "transcript"]


def validator(ref: str) -> jsonschema.Draft202012Validator:
    root = {k: v for k, v in SCHEMA.items() if k != "anyOf"}
    return jsonschema.Draft202012Validator({**root, "$ref": f"#/$defs/{ref}"})


ROOT_VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
CLIENT = validator("client_message")
SERVER = validator("server_message")


def direction_of(h2: str) -> str | None:
    if "Client → server" in h2:
        return "client"
    if "Server → client" in h2:
        return "server"
    return None


def message_type_of(h3: str) -> str | None:
    match = re.match(r"^### `(\w+)`$", h3)
    return match.group(1) if match else None


def assert_valid(v: jsonschema.Draft202012Validator, message: Any, where: str) -> None:
    errors = sorted(v.iter_errors(message), key=lambda e: e.path)
    assert not errors, f"{where}: {errors[0].message}"


def test_the_document_has_examples_and_transcripts() -> None:
    assert len(JSON_BLOCKS) >= len(CLIENT_TYPES) + len(SERVER_TYPES)
    assert len(TRANSCRIPTS) == 4


@pytest.mark.parametrize("block", JSON_BLOCKS, ids=lambda b: f"line{b.line}")
def test_json_examples_validate(block: Block) -> None:
    message = json.loads(block.text)
    where = f"PROTOCOL.md line {block.line}"
    assert_valid(ROOT_VALIDATOR, message, where)
    direction, kind = direction_of(block.h2), message_type_of(block.h3)
    if direction is not None and kind is not None:
        assert message["type"] == kind, f"{where}: example of the wrong type"
        assert_valid(validator(f"{direction}.{kind}"), message, where)
        if direction == "client":
            validate_client_message(message)
        else:
            validate_server_message(message)


def sections_of(direction: str) -> dict[str, str]:
    """Message type -> its section's text, for one direction."""
    out: dict[str, str] = {}
    current = None
    for part in re.split(r"(?m)^(## .*|### .*)$", DOC):
        if part.startswith("## "):
            current = direction_of(part)
            kind = None
        elif part.startswith("### "):
            kind = message_type_of(part)
        elif current == direction and kind is not None:
            out[kind] = part
    return out


@pytest.mark.parametrize("direction, catalogue", [("client", CLIENT_TYPES),
                                                  ("server", SERVER_TYPES)])
def test_every_message_has_a_section_naming_all_its_fields(direction: str,
                                                           catalogue: Any) -> None:
    sections = sections_of(direction)
    assert set(sections) == set(catalogue)
    for kind, spec in catalogue.items():
        for f in spec.fields:
            assert f"| `{f.name}` |" in sections[kind], f"{kind}: field {f.name} undocumented"
        assert "```json" in sections[kind], f"{kind}: no example"


def test_every_error_code_is_in_the_table() -> None:
    for code in ERROR_CODES:
        assert f"| `{code}` |" in DOC, code


def test_the_python_example_is_a_working_bot() -> None:
    (python,) = [b for b in BLOCKS if b.lang == "python"]
    namespace: dict[str, Any] = {}
    exec(compile(python.text, "PROTOCOL.md", "exec"), namespace)  # noqa: S102 - our own doc
    bot = namespace["FirstLegal"]()
    assert bot.choose({"legal_actions": [{"type": "PASS"}]}) == {"type": "PASS"}


# ---- transcripts ------------------------------------------------------------------------------


@dataclass
class Participant:
    session: ClientSession = field(default_factory=ClientSession)
    ids_sent: set[Any] = field(default_factory=set)
    last_seq: dict[str, int] = field(default_factory=dict)
    unanswered_action: dict[str, Any] | None = None


def transcript_lines(block: Block) -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for n, line in enumerate(block.text.splitlines()):
        if not line or line.startswith(("#", "--")):
            continue
        match = LINE.match(line)
        assert match, f"PROTOCOL.md line {block.line + n}: not a transcript line: {line[:60]}"
        out.append((match["who"], match["dir"], json.loads(match["json"])))
    return out


@pytest.mark.parametrize("block", TRANSCRIPTS, ids=lambda b: f"line{b.line}")
def test_transcript_lines_validate(block: Block) -> None:
    for who, direction, message in transcript_lines(block):
        where = f"transcript at line {block.line}: {who} {direction} {message['type']}"
        if direction == ">>":
            assert_valid(CLIENT, message, where)
            validate_client_message(message)
        else:
            assert_valid(SERVER, message, where)
            validate_server_message(message)


def answers(request: dict[str, Any], action: Any) -> bool:
    """Whether ``action`` answers ``request`` rightly: one of its legal actions, or a value of
    its action space."""
    if "legal_actions" in request:
        return action in request["legal_actions"]
    return spaces.contains(request["action_space"], action)


@pytest.mark.parametrize("block", TRANSCRIPTS, ids=lambda b: f"line{b.line}")
def test_transcripts_are_coherent(block: Block) -> None:
    people: dict[str, Participant] = {}
    for who, direction, message in transcript_lines(block):
        p = people.setdefault(who, Participant())
        where = f"transcript at line {block.line}: {who} {direction} {message}"[:160]
        if direction == ">>":
            assert p.unanswered_action is None, f"{where}: an unanswered action was skipped"
            if "id" in message:
                p.ids_sent.add(message["id"])
            if message["type"] == "hello":
                p.session.connection_lost()  # a hello always starts a (new) connection
            if message["type"] == "action":
                request = p.session.pending.get(message["request_id"])
                if request is None or not answers(request, message["action"]):
                    # allowed only when the next line shows the server refusing it
                    p.unanswered_action = message
                else:
                    p.session.act(request, message["action"])
            continue
        # a message received by ``who``
        if p.unanswered_action is not None:
            refused = p.unanswered_action
            assert message["type"] == "error", f"{where}: a bad action must be refused"
            assert message["request_id"] == refused["request_id"]
            p.unanswered_action = None
        if "ref" in message:
            assert message["ref"] in p.ids_sent, f"{where}: ref to an id never sent"
        if message["type"] == "events":
            last = p.last_seq.get(message["match_id"], 0)
            assert message["seq"] > last, f"{where}: seq went backwards"
            p.last_seq[message["match_id"]] = message["seq"]
        if message["type"] == "match_start" and "seq" in message:
            p.last_seq[message["match_id"]] = max(p.last_seq.get(message["match_id"], 0),
                                                  message["seq"])
        if message["type"] == "welcome" and p.session.session_token is not None:
            assert message["session"] == p.session.session_token, f"{where}: resume failed"
        p.session.receive_text(encode_json(message))
        p.session.events_received()
    for who, p in people.items():
        assert p.unanswered_action is None, f"{who}: an action left unanswered"


def test_the_boundary_transcript_shows_a_simultaneous_turn() -> None:
    """Both seats asked at once with action spaces; the plan acknowledged to its own seat
    only, the other seat told just that it is in; refusals name their rules; the deadline
    plays the empty plan; the resolution reveals both plans."""
    lines = transcript_lines(TRANSCRIPTS[2])
    requests = [m for _, d, m in lines if m["type"] == "request"]
    assert requests and all("action_space" in m and "legal_actions" not in m
                            for m in requests)
    committed = [(who, e) for who, d, m in lines if m["type"] == "events"
                 for e in m["events"] if e["type"] == "committed"]
    for who, event in committed:
        own = ["blue", "red"][event["seat"]] == who
        assert ("action" in event) is own, (who, event)
    rules = {m["details"]["rule"] for _, _, m in lines if m["type"] == "error"}
    assert rules == {"out_of_reach", "already_committed"}
    timeouts = [(who, e) for who, d, m in lines if m["type"] == "events"
                for e in m["events"] if e["type"] == "timeout"]
    assert {who for who, _ in timeouts} == {"blue", "red"}
    assert all(e["default"] and ("action" in e) == (who == "blue") for who, e in timeouts)
    resolutions = [e for _, _, m in lines if m["type"] == "events" for e in m["events"]
                   if e["type"] == "resolution"]
    assert resolutions and all(len(e["plans"]) == 2 for e in resolutions)


def test_transcripts_show_what_the_brief_asks_for() -> None:
    battleline, chexers = (transcript_lines(b) for b in TRANSCRIPTS[:2])
    bl_actions = [m["action"]["type"] for _, d, m in battleline
                  if d == ">>" and m["type"] == "action"]
    assert {"play", "draw", "claim"} <= set(bl_actions)
    assert any(d == ">>" and m["type"] == "hello" and "resume" in m for _, d, m in battleline)
    private_draws = [m for _, d, m in battleline if m["type"] == "events"
                     and any(e["type"] == "draw" and "card" in e for e in m["events"])]
    assert private_draws
    assert {m["type"] for _, _, m in battleline} >= {"match_start", "request", "events",
                                                     "match_end", "error", "welcome"}
    starts = [m for _, d, m in chexers if m["type"] == "match_start"]
    assert {m["your_seat"] for m in starts} == {0, 1, 2}
    ends = [m for _, d, m in chexers if m["type"] == "match_end"]
    assert ends and all(m["outcome"]["reason"] == "timeout" for m in ends)
    assert any(e["type"] == "timeout" for _, _, m in chexers if m["type"] == "events"
               for e in m["events"])


def test_the_lean_transcript_carries_exactly_what_the_bot_got_in_12_1() -> None:
    """12.4 is the bot's side of 12.1 with lean delivery: no events frame; what its requests
    and its match_end carry are 12.1's events messages to the bot, seq for seq, and the
    messages themselves are 12.1's but for that field."""
    plain = [m for who, d, m in transcript_lines(TRANSCRIPTS[0]) if who == "bot"]
    lean = [(d, m) for who, d, m in transcript_lines(TRANSCRIPTS[3]) if who == "bot"]
    hello = next(m for d, m in lean if m["type"] == "hello")
    welcome = next(m for d, m in lean if m["type"] == "welcome")
    assert hello["lean"] is True and welcome["lean"] is True
    received = [m for d, m in lean if d == "<<" and m.get("match_id") == "bl-5f2a9c"]
    assert "events" not in {m["type"] for m in received}
    sent_to_bot = {m["seq"]: m for m in plain if m["type"] == "events"}
    carried = [b for m in received for b in m.get("events", [])]
    assert len(carried) >= 6
    for b in carried:
        assert b == {k: sent_to_bot[b["seq"]][k] for k in ("seq", "events", "clocks_ms")}
    seqs = [b["seq"] for b in carried]
    assert seqs == sorted(seqs) and seqs[:9] == list(range(1, 10))
    same = {(m["type"], m.get("request_id")): m for m in plain if m["type"] != "events"}
    for m in received:
        assert {k: v for k, v in m.items() if k != "events"} == same[(m["type"],
                                                                      m.get("request_id"))]


def test_hidden_information_in_the_battleline_transcript() -> None:
    """The opponent's copy of a draw or deal never names the card."""
    battleline = transcript_lines(TRANSCRIPTS[0])
    seat_of: dict[str, int] = {}
    for who, _, m in battleline:
        if m["type"] == "match_start" and m["your_seat"] is not None:
            seat_of[who] = m["your_seat"]
    for who, _, m in battleline:
        if m["type"] == "request":
            assert m["seat"] == seat_of[who]
            assert "hand" in m["view"]
        if m["type"] != "events":
            continue
        for event in m["events"]:
            if event["type"] in ("draw", "deal") and event["seat"] != seat_of[who]:
                assert "card" not in event, f"{who} sees another seat's card: {event}"


def test_chexers_transcript_matches_the_engine() -> None:
    """Chexers has no chance, so its transcript can be replayed through the real engine:
    every request's view and legal actions and every step's events are what the engine says
    (the views in the transcript are abridged to a subset of the engine's fields)."""
    from engine import registry
    from engine.match import Match

    match = Match(registry.get("chexers"), 3, {}, seed=0)
    match.advance()
    last_events: list[Any] = []
    seat_of = {"red": 0, "green": 1, "blue": 2}
    checked = 0
    for who, direction, message in transcript_lines(TRANSCRIPTS[1]):
        kind = message["type"]
        if kind == "request":
            seat = message["seat"]
            assert seat == seat_of[who]
            view = match.view(seat)
            assert message["view"] == {k: view[k] for k in message["view"]}
            assert message["legal_actions"] == match.legal_actions(seat)
            checked += 1
        elif kind == "match_end":
            break  # the timeout is the server's doing, not the engine's
        elif kind == "events" and message["events"][0]["type"] == "action":
            assert message["events"] == [e.render(seat_of[who]) for e in last_events]
        elif direction == ">>" and kind == "action" and not match.is_over \
                and seat_of[who] in match.awaiting():
            last_events = match.submit(seat_of[who], message["action"])
    assert checked == 8
