"""The message catalogue of wire protocol v1, as data.

Every message type, its direction and its fields live here once. Three things are derived from
this one table, so they cannot drift apart:

* validation of client messages (:func:`protocol.codec.validate_client_message`),
* ``protocol/schema.json`` (:func:`json_schema`; a test checks the committed file is current),
* the field tables the tests compare with ``protocol/PROTOCOL.md``.

Field types are small objects (:class:`Str`, :class:`Int`, :class:`Obj`, …) that can both
*check* a decoded value and *describe* themselves as JSON Schema (draft 2020-12). Unknown fields
are allowed everywhere (peers ignore them), so objects never forbid extra keys.

Regenerate the schema after editing this module::

    python -m tools.schema > protocol/schema.json
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from protocol.errors import ERROR_CODES

PROTOCOL_VERSION: Final = 1
SUPPORTED_VERSIONS: Final = (1,)

SUBPROTOCOL_JSON: Final = "arena.v1.json"
SUBPROTOCOL_MSGPACK: Final = "arena.v1.msgpack"
SUBPROTOCOLS: Final = (SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK)
"""Websocket subprotocols the server supports, in its order of preference."""

Encoding = Literal["json", "msgpack"]
ENCODING_OF_SUBPROTOCOL: Final[Mapping[str, Encoding]] = {
    SUBPROTOCOL_JSON: "json",
    SUBPROTOCOL_MSGPACK: "msgpack",
}
SUBPROTOCOL_OF_ENCODING: Final[Mapping[str, str]] = {
    enc: sub for sub, enc in ENCODING_OF_SUBPROTOCOL.items()}

WS_PATH: Final = "/ws"
MAX_ID_CHARS: Final = 64

CLOSE_POLICY_VIOLATION: Final = 1008
"""Websocket close code for an abusive client (it kept flooding after being rate limited)."""
CLOSE_TOO_BIG: Final = 1009
"""Websocket close code for a frame above :attr:`Limits.hard_frame_bytes`."""
CLOSE_NORMAL: Final = 1000


def select_subprotocol(offered: list[str] | tuple[str, ...] | None) -> str | None:
    """The subprotocol a server should pick from those a client ``offered``.

    The client's order of preference wins. ``None`` means "no subprotocol header": the
    connection then speaks JSON, the default. A client that offers only unknown names also
    gets ``None`` (and JSON) rather than a failed handshake.
    """
    for name in offered or ():
        if name in ENCODING_OF_SUBPROTOCOL:
            return name
    return None


def encoding_of(subprotocol: str | None) -> Encoding:
    """The encoding a negotiated subprotocol (or its absence) implies."""
    return ENCODING_OF_SUBPROTOCOL.get(subprotocol or "", "json")


@dataclass(frozen=True)
class Limits:
    """The server's limits. ``welcome.limits`` announces the connection's own
    (:meth:`to_json`); the shared budgets and the caps are documented in PROTOCOL.md,
    section 8.

    Every client message costs tokens (:func:`message_cost`), taken at once from each budget
    it is charged to: its connection's; its account's, for a logged-in account; its peer
    address's, for a guest or a connection that has not said hello yet. Logged-in accounts
    do not spend their address's budget: many bots of one operator (the house bots of
    ``arena run``) share an address, and each answers for itself."""

    max_frame_bytes: int = 65536
    """Larger frames are answered with error ``too_large`` and dropped."""
    hard_frame_bytes: int = 1 << 20
    """Larger frames close the connection (1009)."""
    rate_per_s: float = 50.0
    """The connection's token-bucket refill rate (tokens per second)."""
    burst: int = 100
    """The connection's token-bucket capacity."""
    abuse_strikes: int = 100
    """Rate-limited messages in one flood after which the connection is closed (1008)."""
    account_rate_per_s: float = 100.0
    """The budget every connection of one logged-in account shares (tokens per second)."""
    account_burst: int = 200
    address_rate_per_s: float = 100.0
    """The budget the guests (and not yet welcomed connections) of one peer address share."""
    address_burst: int = 200
    max_connections_per_address: int = 256
    """More websocket connections from one address are refused (HTTP 429)."""
    max_guests: int = 1024
    """More guest sessions connected at once are refused (``hello`` answered
    ``rate_limited``); accounts may still log in."""
    guests_rate_per_s: float = 300.0
    """The budget all guests share for their costly messages (those costing more than one
    token: listings, replays, …), refilled this fast: however many addresses a flood comes
    from, it buys at most this much of the server's time."""
    guests_burst: int = 600
    """That budget's capacity."""

    def to_json(self) -> dict[str, Any]:
        return {"max_frame_bytes": self.max_frame_bytes, "rate_per_s": self.rate_per_s,
                "burst": self.burst}


PAGE_LIMIT: Final = 50
"""Entries in a page of ``list_matches`` when the client names no ``limit``."""
MAX_PAGE_LIMIT: Final = 200
"""The largest page of ``list_matches`` (a larger ``limit`` is served as this)."""
MESSAGE_COSTS: Final[Mapping[str, int]] = {
    "list_games": 2, "spectate": 5, "get_replay": 20, "get_leaderboard": 5,
    "get_profile": 5, "get_people_leaderboard": 5,
    "get_rating_history": 5, "list_ladder_matches": 5, "list_matches": 1,
    "tournament_show": 5, "list_tournaments": 5,
    # a password is checked or hashed: tens of milliseconds of a core
    "sign_up": 10, "sign_in": 10, "change_password": 10,
}
"""Tokens a message costs before any page it asks for (types not named here: 1)."""
ENTRIES_PER_TOKEN: Final = 10
"""A listing also costs a token per this many entries it may return (its ``limit``)."""
PAGED_TYPES: Final = frozenset({"list_matches", "list_ladder_matches"})
REPLAY_STEPS_PER_TOKEN: Final = 5
"""A ``get_replay`` also costs a token per this many steps of the replay it gets (charged
once it is built), and eight times as many when its steps carry views."""


def replay_cost(steps: int, views: bool) -> int:
    """What a replay of ``steps`` steps costs beyond ``get_replay``'s own tokens."""
    return (steps * (8 if views else 1)) // REPLAY_STEPS_PER_TOKEN


def page_limit(message: Mapping[str, Any]) -> int:
    """The number of entries a paged listing asks for, default and maximum applied."""
    limit = message.get("limit")
    return min(limit, MAX_PAGE_LIMIT) if isinstance(limit, int) and limit > 0 else PAGE_LIMIT


def message_cost(message: Mapping[str, Any]) -> int:
    """Tokens a (valid) client message costs: a ``ping`` 1, a ``list_matches`` of 200
    entries 21. What a message costs the server grows with what it sends back."""
    kind = message.get("type")
    cost = MESSAGE_COSTS.get(kind, 1) if isinstance(kind, str) else 1
    if kind in PAGED_TYPES:
        cost += -(-page_limit(message) // ENTRIES_PER_TOKEN)
    return cost


DEFAULT_LIMITS: Final = Limits()


# --------------------------------------------------------------------------------------------
# Field types: check a decoded value, describe it as JSON Schema
# --------------------------------------------------------------------------------------------


class WireType(ABC):
    """A type of value on the wire."""

    @abstractmethod
    def problem(self, value: Any, where: str) -> str | None:
        """``None`` when ``value`` fits, else a sentence naming ``where`` (a field path)."""

    @abstractmethod
    def schema(self) -> dict[str, Any]:
        """This type as a JSON Schema fragment."""

    def describe(self) -> str:
        """A short name for documentation tables."""
        return type(self).__name__.lower()


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Str(WireType):
    max_len: int | None = None
    enum: tuple[str, ...] | None = None

    def problem(self, value: Any, where: str) -> str | None:
        if not isinstance(value, str):
            return f"{where} must be a string"
        if self.max_len is not None and len(value) > self.max_len:
            return f"{where} must be at most {self.max_len} characters"
        if self.enum is not None and value not in self.enum:
            return f"{where} must be one of {', '.join(self.enum)}"
        return None

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "string"}
        if self.max_len is not None:
            out["maxLength"] = self.max_len
        if self.enum is not None:
            out["enum"] = list(self.enum)
        return out

    def describe(self) -> str:
        return " \\| ".join(f'"{e}"' for e in self.enum) if self.enum else "str"


@dataclass(frozen=True)
class Int(WireType):
    minimum: int | None = None

    def problem(self, value: Any, where: str) -> str | None:
        if not _is_int(value):
            return f"{where} must be an integer"
        if self.minimum is not None and value < self.minimum:
            return f"{where} must be at least {self.minimum}"
        return None

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "integer"}
        if self.minimum is not None:
            out["minimum"] = self.minimum
        return out

    def describe(self) -> str:
        return "int"


@dataclass(frozen=True)
class Number(WireType):
    def problem(self, value: Any, where: str) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{where} must be a number"
        return None

    def schema(self) -> dict[str, Any]:
        return {"type": "number"}


@dataclass(frozen=True)
class Bool(WireType):
    def problem(self, value: Any, where: str) -> str | None:
        return None if isinstance(value, bool) else f"{where} must be true or false"

    def schema(self) -> dict[str, Any]:
        return {"type": "boolean"}


@dataclass(frozen=True)
class Const(WireType):
    value: int | str

    def problem(self, value: Any, where: str) -> str | None:
        if value == self.value and type(value) is type(self.value):
            return None
        return f"{where} must be {json.dumps(self.value)}"

    def schema(self) -> dict[str, Any]:
        return {"const": self.value}

    def describe(self) -> str:
        return json.dumps(self.value)


@dataclass(frozen=True)
class AnyValue(WireType):
    """Any JSON value (an action, an event payload)."""

    def problem(self, value: Any, where: str) -> str | None:
        return None

    def schema(self) -> dict[str, Any]:
        return {}

    def describe(self) -> str:
        return "any"


@dataclass(frozen=True)
class Id(WireType):
    """A client-chosen message id: a string of at most 64 characters, or an integer."""

    def problem(self, value: Any, where: str) -> str | None:
        if isinstance(value, str) and len(value) <= MAX_ID_CHARS:
            return None
        if _is_int(value) and len(str(value)) <= MAX_ID_CHARS:
            return None
        return f"{where} must be a string of at most {MAX_ID_CHARS} characters or an integer"

    def schema(self) -> dict[str, Any]:
        return {"oneOf": [{"type": "string", "maxLength": MAX_ID_CHARS}, {"type": "integer"}]}

    def describe(self) -> str:
        return "str \\| int"


@dataclass(frozen=True)
class Nullable(WireType):
    inner: WireType

    def problem(self, value: Any, where: str) -> str | None:
        return None if value is None else self.inner.problem(value, where)

    def schema(self) -> dict[str, Any]:
        return {"anyOf": [self.inner.schema(), {"type": "null"}]}

    def describe(self) -> str:
        return f"{self.inner.describe()} \\| null"


@dataclass(frozen=True)
class Arr(WireType):
    items: WireType
    min_items: int = 0

    def problem(self, value: Any, where: str) -> str | None:
        if not isinstance(value, list):
            return f"{where} must be an array"
        if len(value) < self.min_items:
            return f"{where} must have at least {self.min_items} item(s)"
        for i, item in enumerate(value):
            found = self.items.problem(item, f"{where}[{i}]")
            if found:
                return found
        return None

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "array", "items": self.items.schema()}
        if self.min_items:
            out["minItems"] = self.min_items
        return out

    def describe(self) -> str:
        return f"[{self.items.describe()}]"


@dataclass(frozen=True)
class Field:
    """One field of an object or message. ``doc`` gives units and meaning."""

    name: str
    type: WireType
    required: bool = True
    doc: str = ""


@dataclass(frozen=True)
class Obj(WireType):
    """A JSON object. ``fields=None`` means any object; extra keys are always allowed.

    ``together``: groups of optional fields that are given all or none (JSON Schema's
    ``dependentRequired``); ``one_of_needed``: optional fields at least one of which is
    given (``anyOf`` of ``required``)."""

    fields: tuple[Field, ...] | None = None
    together: tuple[tuple[str, ...], ...] = ()
    one_of_needed: tuple[str, ...] = ()

    def problem(self, value: Any, where: str) -> str | None:
        if not isinstance(value, dict):
            return f"{where} must be an object"
        for f in self.fields or ():
            if f.name not in value:
                if f.required:
                    return f"{where}.{f.name} is missing"
                continue
            found = f.type.problem(value[f.name], f"{where}.{f.name}")
            if found:
                return found
        for group in self.together:
            given = [name for name in group if name in value]
            if given and len(given) < len(group):
                missing = next(name for name in group if name not in value)
                return f"{where}.{missing} is missing (it comes with {where}.{given[0]})"
        if self.one_of_needed and not any(name in value for name in self.one_of_needed):
            return f"{where} needs one of " + ", ".join(self.one_of_needed)
        return None

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "object"}
        if self.fields:
            out["properties"] = {f.name: f.type.schema() for f in self.fields}
            required = [f.name for f in self.fields if f.required]
            if required:
                out["required"] = required
        if self.together:
            out["dependentRequired"] = {
                name: [other for other in group if other != name]
                for group in self.together for name in group}
        if self.one_of_needed:
            out["anyOf"] = [{"required": [name]} for name in self.one_of_needed]
        return out

    def describe(self) -> str:
        return "object"


@dataclass(frozen=True)
class Ref(WireType):
    """A named shared definition (:data:`DEFINITIONS`), referenced in the schema by name."""

    name: str

    @property
    def target(self) -> WireType:
        return DEFINITIONS[self.name]

    def problem(self, value: Any, where: str) -> str | None:
        return self.target.problem(value, where)

    def schema(self) -> dict[str, Any]:
        return {"$ref": f"#/$defs/{self.name}"}

    def describe(self) -> str:
        return self.name


_SPACE_NODES: Final = ("const", "record", "subset", "point")


@dataclass(frozen=True)
class ActionSpaceType(WireType):
    """An action space description (PROTOCOL.md, "Action spaces"): a tree of ``const``,
    ``record``, ``subset`` and ``point`` nodes. Recursive in the schema through its own
    definition, ``ActionSpace``."""

    def problem(self, value: Any, where: str) -> str | None:
        if not isinstance(value, dict) or value.get("type") not in _SPACE_NODES:
            return f"{where} must be an action space node ({', '.join(_SPACE_NODES)})"
        kind = value["type"]
        if kind in ("record", "subset"):
            children = value.get("fields" if kind == "record" else "entries")
            if not isinstance(children, dict):
                return f"{where} ({kind}) needs an object of child spaces"
            for key, child in children.items():
                found = self.problem(child, f"{where}.{key}")
                if found:
                    return found
        if kind == "point":
            for key in ("center", "min", "max"):
                pair = value.get(key)
                if not (isinstance(pair, list) and len(pair) == 2 and all(map(_is_int, pair))):
                    return f"{where}.{key} must be two integers"
            if not _is_int(value.get("radius")) or value["radius"] < 0:
                return f"{where}.radius must be a non-negative integer"
        if kind == "const" and "value" not in value:
            return f"{where}.value is missing"
        return None

    def schema(self) -> dict[str, Any]:
        ref = {"$ref": "#/$defs/ActionSpace"}
        pair = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}

        def node(kind: str, properties: dict[str, Any], doc: str) -> dict[str, Any]:
            return {"type": "object", "description": doc,
                    "properties": {"type": {"const": kind}, **properties},
                    "required": ["type", *properties]}

        return {"oneOf": [
            node("const", {"value": {}}, "exactly this value"),
            node("record", {"fields": {"type": "object", "additionalProperties": ref}},
                 "an object with exactly these keys, each value in its space"),
            node("subset", {"entries": {"type": "object", "additionalProperties": ref}},
                 "an object with any subset of these keys, each value in its space"),
            node("point", {"center": pair, "radius": {"type": "integer", "minimum": 0},
                           "min": pair, "max": pair},
                 "[x, y] integers within radius of center (squared distance <= radius^2) "
                 "and inside the box min..max"),
        ]}

    def describe(self) -> str:
        return "ActionSpace"


# --------------------------------------------------------------------------------------------
# Shared definitions
# --------------------------------------------------------------------------------------------

ACCOUNT_KINDS: Final = ("human", "bot", "admin", "guest")
MATCH_STATUSES: Final = ("live", "over", "void")
"""``void``: ended by a server fault (unrated; outcome reason ``void``)."""
LADDER_MATCH_STATUSES: Final = ("live", "rated", "void")
TOURNAMENT_FORMATS: Final = ("round_robin", "swiss")
TOURNAMENT_STATUSES: Final = ("open", "running", "over")
TOURNAMENT_PAIRING_STATUSES: Final = ("pending", "live", "over", "void", "forfeit", "bye")
"""A ladder match is ``rated`` once its result counted, ``void`` after a server fault."""

DEFINITIONS: dict[str, WireType] = {
    "Clock": Obj((
        Field("initial_ms", Int(0), required=False,
              doc="time bank at the start, milliseconds; absent: no bank"),
        Field("increment_ms", Int(0), required=False,
              doc="added to the bank after each action, milliseconds; given with initial_ms"),
        Field("decision_ms", Int(0), required=False,
              doc="each decision must be answered within it, whatever the bank holds; "
                  "absent: no per-decision limit"),
    ), together=(("initial_ms", "increment_ms"),), one_of_needed=("initial_ms", "decision_ms")),
    "SeatInfo": Obj((
        Field("seat", Int(0), doc="seat number, 0-based"),
        Field("name", Str(), doc="account name of the player in that seat"),
        Field("kind", Str(enum=ACCOUNT_KINDS)),
    )),
    "Account": Obj((
        Field("name", Str()),
        Field("kind", Str(enum=ACCOUNT_KINDS)),
    )),
    "Limits": Obj((
        Field("max_frame_bytes", Int(1)),
        Field("rate_per_s", Number()),
        Field("burst", Int(1)),
    )),
    "GameInfo": Obj((
        Field("name", Str()),
        Field("title", Str()),
        Field("min_seats", Int(1)),
        Field("max_seats", Int(1)),
        Field("chance", Bool()),
        Field("hidden_information", Bool()),
        Field("simultaneous", Bool()),
        Field("seat_names", Arr(Str())),
        Field("default_options", Obj()),
        Field("summary", Str(), required=False),
        Field("timeout", Str(enum=("loss", "default")), required=False,
              doc="what a missed deadline means: the seat loses, or the game's default "
                  "action is taken for it (absent: loss)"),
        Field("actions", Str(enum=("list", "space")), required=False,
              doc="how requests say what a seat may do: legal_actions (list) or "
                  "action_space (space); absent: list"),
    )),
    "BotInfo": Obj((
        Field("account", Str(), doc="the bot's account name: play_bot.bot or challenge it"),
        Field("bot", Str(), required=False,
              doc="the bot's own name (autoplay.bot), also accepted by play_bot.bot"),
        Field("version", Str(), required=False, doc="the bot's version (autoplay.version)"),
        Field("games", Arr(Str()), doc="the games it offers to play, sorted"),
        Field("free", Int(0), doc="matches it can start now: its max_matches minus the "
                                  "matches it plays (0 while away)"),
        Field("max_matches", Int(1), doc="matches it plays at once"),
        Field("online", Bool(), doc="connected now (false: away, holding its seats for the "
                                    "grace period)"),
    )),
    "ActionSpace": ActionSpaceType(),
    "Outcome": Obj((
        Field("ranks", Arr(Int(0), 1), doc="per seat; 0 is first place, ties share a rank"),
        Field("reason", Str(), doc="flags, exits, repetition, timeout, resignation, forfeit, …"),
        Field("scores", Arr(Number()), required=False),
    )),
    "Event": Obj((Field("type", Str()),)),
    "MatchSummary": Obj((
        Field("match_id", Str()),
        Field("game", Str()),
        Field("seats", Arr(Ref("SeatInfo"))),
        Field("status", Str(enum=MATCH_STATUSES)),
        Field("started_at", Str(), doc="ISO-8601 UTC time"),
        Field("moves", Int(0), doc="actions applied so far"),
        Field("spectators", Int(0), required=False),
        Field("outcome", Nullable(Ref("Outcome")), required=False, doc="once over"),
        Field("pair", Ref("Pair"), required=False, doc="one of a duplicate pair"),
    )),
    "Pair": Obj((
        Field("id", Str(), doc="the pair's id (pair_end.pair_id)"),
        Field("game", Int(1), doc="1: the seats as challenged (or as the ladder seated "
                                  "them); 2: the same deal, seats swapped"),
        Field("twin", Str(), doc="the other match of the pair (spectate, get_replay)"),
    )),
    "ReplayStep": Obj((
        Field("seq", Int(1)),
        Field("events", Arr(Ref("Event")), doc="public (spectator) renders"),
        Field("actions", Obj(), required=False,
              doc="finished matches only: the joint action applied, seat number (as a "
                  "string) or \"chance\" → action"),
        Field("view", Obj(), required=False,
              doc="only with hello.views: the spectator's view after this step"),
        Field("seat_views", Arr(Obj()), required=False,
              doc="only with hello.views, finished matches of games with hidden "
                  "information: every seat's view after this step (the log is public)"),
    )),
    "EventBatch": Obj((
        Field("seq", Int(1), doc="the seq of the events message it stands for"),
        Field("events", Arr(Ref("Event")), doc="rendered for this viewer"),
        Field("clocks_ms", Nullable(Arr(Int())),
              doc="every seat's remaining bank in ms after these events; null when untimed "
                  "or no bank"),
    )),
    "OwnedBot": Obj((
        Field("name", Str(), doc="the bot's account name"),
        Field("created_at", Str(), doc="ISO-8601 UTC time"),
        Field("banned", Bool()),
        Field("online", Bool(), doc="connected now"),
    )),
    "LadderEntry": Obj((
        Field("rank", Int(1), doc="1 = top of the leaderboard"),
        Field("bot", Str()),
        Field("version", Str()),
        Field("account", Str(), doc="the account that runs the bot"),
        Field("mu", Number(), doc="skill estimate (OpenSkill Plackett-Luce)"),
        Field("sigma", Number(), doc="uncertainty of mu"),
        Field("ordinal", Number(), doc="mu − 3·sigma; the leaderboard's order"),
        Field("games", Int(0), doc="rated matches played"),
        Field("wins", Int(0)),
        Field("draws", Int(0)),
        Field("losses", Int(0)),
        Field("provisional", Bool(), doc="fewer than min_games rated matches"),
        Field("online", Bool(), required=False, doc="joined and connected now"),
    )),
    "RatingPoint": Obj((
        Field("seq", Int(1), doc="the ladder's rating order: updates apply in this order"),
        Field("match_id", Str()),
        Field("at", Str(), doc="ISO-8601 UTC time the match ended"),
        Field("rank", Int(0), doc="this bot's rank in that match (0 = first)"),
        Field("mu", Number()),
        Field("sigma", Number()),
        Field("ordinal", Number()),
    )),
    "LadderSeat": Obj((
        Field("seat", Int(0)),
        Field("account", Str()),
        Field("bot", Str()),
        Field("version", Str()),
        Field("rank", Nullable(Int(0)), required=False, doc="null until rated"),
        Field("ordinal_before", Nullable(Number()), required=False),
        Field("ordinal_after", Nullable(Number()), required=False, doc="null unless rated"),
    )),
    "PersonRating": Obj((
        Field("account", Str()),
        Field("game", Str()),
        Field("mu", Number(), doc="skill estimate (the ladder's OpenSkill model)"),
        Field("sigma", Number(), doc="uncertainty of mu"),
        Field("ordinal", Number(), doc="mu − 3·sigma; the leaderboard's order"),
        Field("games", Int(0), doc="rated matches played"),
        Field("wins", Int(0)),
        Field("draws", Int(0)),
        Field("losses", Int(0)),
        Field("updated_at", Nullable(Str()), doc="ISO-8601 UTC time of the last rated match"),
        Field("rank", Int(1), required=False, doc="people_leaderboard only: 1 = top"),
    )),
    "PersonRatingPoint": Obj((
        Field("game", Str()),
        Field("match_id", Str()),
        Field("at", Str(), doc="ISO-8601 UTC time the match ended"),
        Field("rank", Int(0), doc="the person's rank in that match (0 = first)"),
        Field("mu", Number()),
        Field("sigma", Number()),
        Field("ordinal", Number()),
    )),
    "SeatRating": Obj((
        Field("seat", Int(0)),
        Field("account", Str()),
        Field("before", Ref("Rating")),
        Field("after", Ref("Rating")),
    )),
    "Rating": Obj((
        Field("mu", Number()), Field("sigma", Number()), Field("ordinal", Number()),
    )),
    "ProfileMatch": Obj((
        Field("match_id", Str(), doc="for get_replay"),
        Field("game", Str()),
        Field("seats", Arr(Ref("SeatInfo"))),
        Field("status", Str(enum=MATCH_STATUSES)),
        Field("started_at", Str(), doc="ISO-8601 UTC time"),
        Field("ended_at", Nullable(Str())),
        Field("moves", Int(0)),
        Field("outcome", Nullable(Ref("Outcome"))),
        Field("result", Nullable(Str(enum=("win", "draw", "loss"))),
              doc="the profile's person's result; null while live or when void"),
        Field("winners", Arr(Str()), doc="the winning seats' names (empty: a draw, live "
                                         "or void)"),
        Field("rated", Bool()),
    )),
    "LadderMatch": Obj((
        Field("match_id", Str(), doc="for get_replay; of a duplicate pair: its game 1"),
        Field("twin", Str(), required=False,
              doc="a duplicate pair: its game 2 (seats swapped); seats, ranks and ratings "
                  "are then the pair's, one rated result, seated as in match_id"),
        Field("game", Str()),
        Field("status", Str(enum=LADDER_MATCH_STATUSES)),
        Field("reason", Nullable(Str()), required=False, doc="the outcome's reason"),
        Field("started_at", Str(), doc="ISO-8601 UTC time"),
        Field("ended_at", Nullable(Str()), required=False),
        Field("seats", Arr(Ref("LadderSeat"))),
    )),
    "TournamentInfo": Obj((
        Field("tournament_id", Str()),
        Field("name", Str()),
        Field("game", Str()),
        Field("format", Str(enum=TOURNAMENT_FORMATS)),
        Field("num_seats", Int(2), doc="seats per game"),
        Field("rounds", Int(0), doc="rounds it plays (a round robin's: known once started)"),
        Field("round", Int(0), doc="the round under way (or last played); 0 before the start"),
        Field("status", Str(enum=TOURNAMENT_STATUSES)),
        Field("creator", Str(), doc="the account that created it"),
        Field("options", Obj(), doc="the matches' game options"),
        Field("clock", Nullable(Ref("Clock")), doc="the matches' clock; null: untimed"),
        Field("created_at", Str(), doc="ISO-8601 UTC time"),
        Field("started_at", Nullable(Str())),
        Field("ended_at", Nullable(Str())),
        Field("entrant_count", Int(0)),
    )),
    "TournamentEntrant": Obj((
        Field("name", Str(), doc="account name"),
        Field("kind", Str(enum=ACCOUNT_KINDS)),
        Field("rating", Number(), doc="its rating when it joined (Swiss pairs by it after "
                                      "points; 0 without one)"),
        Field("joined_at", Str()),
    )),
    "TournamentPairing": Obj((
        Field("round", Int(1)),
        Field("board", Int(1)),
        Field("seats", Arr(Str(), 1), doc="entrant names by seat; one name: a bye"),
        Field("status", Str(enum=TOURNAMENT_PAIRING_STATUSES)),
        Field("match_id", Nullable(Str()), doc="once its match started"),
        Field("ranks", Nullable(Arr(Int(0))), doc="per seat once done (forfeit: 0 for "
                                                  "those there, 1 for the absent)"),
        Field("reason", Nullable(Str()), doc="the outcome's reason, forfeit or void"),
        Field("points", Nullable(Arr(Number())), doc="per seat once done"),
    )),
    "TournamentStanding": Obj((
        Field("rank", Int(1), doc="shared by entrants equal on points and tie-breaks"),
        Field("name", Str()),
        Field("kind", Str(enum=ACCOUNT_KINDS)),
        Field("rating", Number()),
        Field("points", Number()),
        Field("games", Int(0), doc="games played or forfeited (byes not counted)"),
        Field("wins", Int(0)),
        Field("draws", Int(0)),
        Field("losses", Int(0)),
        Field("byes", Int(0)),
        Field("buchholz", Number()),
        Field("sonneborn_berger", Number()),
    )),
    "Crosstable": Obj((
        Field("names", Arr(Str()), doc="entrants in standings order"),
        Field("cells", Arr(Arr(Nullable(Arr(Number())))),
              doc="cells[i][j]: entrant i's results against entrant j (1, 0.5 or 0), one "
                  "per game, in round order; null on the diagonal"),
    )),
}


# --------------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------------

Direction = Literal["client", "server"]


@dataclass(frozen=True)
class MessageSpec:
    """One message type: who sends it, its fields (besides ``type``/``id``/``ref``), the
    messages that answer it and a one-line summary."""

    type: str
    direction: Direction
    fields: tuple[Field, ...] = ()
    replies: tuple[str, ...] = ()
    summary: str = ""
    one_of_needed: tuple[str, ...] = ()
    """Optional fields at least one of which is present (``anyOf`` of ``required``)."""
    _by_name: dict[str, Field] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({f.name: f for f in self.fields})

    def get_field(self, name: str) -> Field:
        return self._by_name[name]

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.required)

    def schema(self) -> dict[str, Any]:
        envelope = (Field("id", Id(), required=False) if self.direction == "client"
                    else Field("ref", Id(), required=False))
        properties: dict[str, Any] = {"type": {"const": self.type}}
        for f in (*self.fields, envelope):
            properties[f.name] = f.type.schema()
            if f.doc:
                properties[f.name] = {**properties[f.name], "description": f.doc}
        out: dict[str, Any] = {
            "type": "object",
            "description": f"{self.direction} → "
                           f"{'server' if self.direction == 'client' else 'client'}: "
                           f"{self.summary}",
            "properties": properties,
            "required": ["type", *self.required],
        }
        if self.one_of_needed:
            out["anyOf"] = [{"required": [name]} for name in self.one_of_needed]
        return out


_GAME = Field("game", Str(), doc="a game name from `games`")
_MATCH = Field("match_id", Str())
_OPTIONS = Field("options", Obj(), required=False, doc="game options; defaults fill the rest")
_CLOCK = Field("clock", Nullable(Ref("Clock")), required=False, doc="null: untimed")
_TOURNAMENT = Field("tournament_id", Str(max_len=MAX_ID_CHARS))

CLIENT_MESSAGES: tuple[MessageSpec, ...] = (
    MessageSpec("hello", "client", (
        Field("protocol", Int(), doc="protocol version the client speaks (1)"),
        Field("token", Str(), required=False, doc="account bearer token"),
        Field("resume", Str(), required=False, doc="session token from an earlier welcome"),
        Field("name", Str(max_len=MAX_ID_CHARS), required=False, doc="guest display name"),
        Field("client", Str(max_len=200), required=False, doc="client software/version"),
        Field("views", Bool(), required=False,
              doc="true: every events message (and replay step) carries the viewer's view; "
                  "default false"),
        Field("lean", Bool(), required=False,
              doc="true: no events messages for this session's seats; their events ride in "
                  "the seat's next request or match_end (field events); default false"),
    ), ("welcome", "error"), "open the session (must be the first message)"),
    MessageSpec("ping", "client", (), ("pong",), "liveness check; allowed before hello"),
    MessageSpec("list_games", "client", (), ("games",), "the games this server runs"),
    MessageSpec("list_matches", "client", (
        Field("game", Str(), required=False, doc="only matches of this game"),
        Field("limit", Int(1), required=False,
              doc=f"at most this many matches (default {PAGE_LIMIT}, at most {MAX_PAGE_LIMIT})"),
        Field("cursor", Str(max_len=MAX_ID_CHARS), required=False,
              doc="the `next` of the previous page: the page after it"),
    ), ("matches",), "live and recent matches, newest first, one page"),
    MessageSpec("list_bots", "client", (
        Field("game", Str(), required=False, doc="only bots offering this game"),
    ), ("bots",), "the bots a person can play (play_bot) right now"),
    MessageSpec("seek", "client", (
        _GAME, _OPTIONS, _CLOCK,
        Field("seats", Int(1), required=False, doc="number of seats (default: the minimum)"),
        Field("rated", Bool(), required=False,
              doc="default false (casual); true: people only, pairs with rated seeks only"),
    ), ("seeking", "match_start"), "ask to be paired with other seekers"),
    MessageSpec("cancel_seek", "client", (Field("seek_id", Str()),), ("ok",),
                "withdraw a seek"),
    MessageSpec("challenge", "client", (
        Field("accounts", Arr(Str(), 1), doc="the other players' account names"),
        _GAME, _OPTIONS, _CLOCK,
        Field("rated", Bool(), required=False,
              doc="default false (casual); true: every player must be a person"),
        Field("duplicate", Bool(), required=False,
              doc="true: a duplicate pair, two matches of one deal with the seats swapped "
                  "(two seats, a game with chance; casual)"),
    ), ("challenge_sent",), "invite named accounts to a match"),
    MessageSpec("accept", "client", (Field("challenge_id", Str()),), ("ok", "match_start"),
                "accept a challenge"),
    MessageSpec("decline", "client", (Field("challenge_id", Str()),), ("ok",),
                "decline a challenge"),
    MessageSpec("play_bot", "client", (
        _GAME,
        Field("bot", Str(), required=False,
              doc="an account name or a bot name from `bots` (default: the bot with the "
                  "most free capacity)"),
        _OPTIONS, _CLOCK,
        Field("seat", Int(0), required=False,
              doc="your seat (default 0; in a duplicate pair: in game 1)"),
        Field("duplicate", Bool(), required=False,
              doc="true: a duplicate pair against one bot, two matches of one deal with the "
                  "seats swapped (two seats, a game with chance)"),
    ), ("match_start",), "start a match against house bot(s)"),
    MessageSpec("autoplay", "client", (
        Field("games", Arr(Str(), 1)),
        Field("max_matches", Int(1), required=False,
              doc="matches this client plays at once (default 1)"),
        Field("bot", Str(max_len=MAX_ID_CHARS), required=False,
              doc="the bot's own name, listed in bots and accepted by play_bot.bot"),
        Field("version", Str(max_len=MAX_ID_CHARS), required=False,
              doc="the bot's version, listed in bots"),
    ), ("ok",), "offer to be seated automatically (bots)"),
    MessageSpec("spectate", "client", (_MATCH,), ("match_start",), "watch a match"),
    MessageSpec("leave", "client", (_MATCH,), ("ok",), "stop spectating"),
    MessageSpec("action", "client", (
        _MATCH,
        Field("request_id", Str(), doc="the request this answers"),
        Field("action", AnyValue(),
              doc="one of the request's legal_actions, or a value of its action_space"),
    ), ("events", "error"), "answer a request"),
    MessageSpec("resign", "client", (_MATCH,), ("match_end",), "give up a match"),
    MessageSpec("get_replay", "client", (_MATCH,), ("replay",), "a match's record"),
    MessageSpec("chat", "client", (
        _MATCH, Field("text", Str(), doc="plain text, at most 500 characters, not blank"),
    ), ("chat_line",), "say a line in a match's chat (players' or spectators')"),
    MessageSpec("mute", "client", (
        _MATCH, Field("account", Str(), doc="the account whose lines you no longer receive"),
        Field("muted", Bool(), required=False, doc="false: unmute; default true"),
    ), ("ok",), "stop (or resume) receiving an account's chat lines"),
    MessageSpec("rematch", "client", (_MATCH,), ("ok", "match_start"),
                "offer or accept a rematch of a finished match"),
    MessageSpec("decline_rematch", "client", (_MATCH,), ("ok",),
                "decline a match's rematch offer"),
    MessageSpec("abort_match", "client", (
        _MATCH, Field("reason", Str(max_len=200), required=False, doc="why (logged)"),
    ), ("ok",), "admin only: end a live match void (unrated); every seat and spectator "
                "gets match_end with reason aborted"),
    MessageSpec("ban_account", "client", (
        Field("account", Str(max_len=MAX_ID_CHARS), doc="the account to ban"),
        Field("reason", Str(max_len=200), required=False, doc="why (logged)"),
    ), ("ok",), "admin only: ban an account now: stored, and its sessions closed"),
    MessageSpec("sign_up", "client", (
        Field("name", Str(max_len=MAX_ID_CHARS),
              doc="the new account's name: 1-64 letters, digits, '-', '_' or '.'"),
        Field("password", Str(), doc="at least 8 characters, not the name, not a common one"),
        Field("claim", Bool(), required=False,
              doc="true: the guest's finished matches become the new account's"),
    ), ("signed_in",), "a guest makes a person's account and becomes it"),
    MessageSpec("sign_in", "client", (
        Field("name", Str(max_len=MAX_ID_CHARS), doc="the account's name"),
        Field("password", Str()),
    ), ("signed_in",), "a guest signs in to a person's account with its password"),
    MessageSpec("sign_out", "client", (), ("ok",),
                "revoke this session's login token and close the session"),
    MessageSpec("change_password", "client", (
        Field("old", Str(), doc="the current password (empty if the account has none)"),
        Field("new", Str(), doc="the new password (the same rules as sign_up's)"),
    ), ("ok",), "change the password; every other login token is revoked"),
    MessageSpec("create_bot", "client", (
        Field("name", Str(max_len=MAX_ID_CHARS), doc="the bot account's name"),
    ), ("bot_token",), "make a bot account owned by you; its token is shown once"),
    MessageSpec("rotate_bot_token", "client", (
        Field("bot", Str(max_len=MAX_ID_CHARS), doc="one of your bots"),
    ), ("bot_token",), "give your bot a new token (the old one stops working)"),
    MessageSpec("revoke_bot_token", "client", (
        Field("bot", Str(max_len=MAX_ID_CHARS), doc="one of your bots"),
    ), ("ok",), "leave your bot with no working token"),
    MessageSpec("list_my_bots", "client", (), ("my_bots",), "the bots you own"),
    MessageSpec("ladder_join", "client", (
        _GAME,
        Field("bot", Str(max_len=MAX_ID_CHARS), doc="the bot's name (one account may run "
                                                     "several bots)"),
        Field("version", Str(max_len=MAX_ID_CHARS),
              doc="a new version is a new rated entity"),
        Field("max_matches", Int(1), doc="ladder matches this client plays at once"),
        Field("seed_from_version", Str(max_len=MAX_ID_CHARS), required=False,
              doc="a new version starts from this earlier version's rating"),
    ), ("ladder_joined",), "put a bot version on a game's ladder"),
    MessageSpec("ladder_leave", "client", (_GAME,), ("ok",),
                "stop being paired on a game's ladder"),
    MessageSpec("get_leaderboard", "client", (
        _GAME, Field("limit", Int(1), required=False, doc="at most this many entries"),
    ), ("leaderboard",), "a game's ladder standings"),
    MessageSpec("get_rating_history", "client", (
        _GAME, Field("bot", Str()),
        Field("version", Str(), required=False, doc="default: the bot's latest version"),
        Field("account", Str(), required=False,
              doc="default: the only account with a bot of that name"),
        Field("limit", Int(1), required=False, doc="only the latest points"),
    ), ("rating_history",), "one bot version's rating after each rated match"),
    MessageSpec("get_profile", "client", (
        Field("account", Str(max_len=64)),
        Field("game", Str(), required=False, doc="only this game's rating history"),
        Field("limit", Int(1), required=False,
              doc="at most this many history points and recent matches (default 20, "
                  "at most 200)"),
    ), ("profile",), "a person's ratings, rating history and recent matches"),
    MessageSpec("get_people_leaderboard", "client", (
        _GAME, Field("limit", Int(1), required=False, doc="default 50, at most 200"),
    ), ("people_leaderboard",), "a game's rated people, best first"),
    MessageSpec("list_ladder_matches", "client", (
        _GAME, Field("limit", Int(1), required=False, doc="default 50, at most 200"),
    ), ("ladder_matches",), "a ladder's recent matches, newest first"),
    MessageSpec("tournament_create", "client", (
        _GAME,
        Field("format", Str(), doc="round_robin or swiss"),
        Field("rounds", Int(1), required=False, doc="swiss only, required there"),
        Field("seats", Int(2), required=False,
              doc="seats per game (round robin; default the game's fewest); swiss: 2"),
        Field("name", Str(max_len=80), required=False, doc="default: game and format"),
        _OPTIONS,
        Field("clock", Nullable(Ref("Clock")), required=False,
              doc="the matches' clock; null: untimed; default 300000 + 3000 ms"),
    ), ("tournament",), "create a tournament (accounts only); open for entrants"),
    MessageSpec("tournament_join", "client", (
        _TOURNAMENT,
        Field("account", Str(max_len=MAX_ID_CHARS), required=False,
              doc="creator or admin only: enter this bot account (connected, with an "
                  "autoplay offer for the game) instead of yourself"),
    ), ("tournament",), "enter an open tournament"),
    MessageSpec("tournament_leave", "client", (
        _TOURNAMENT,
        Field("account", Str(max_len=MAX_ID_CHARS), required=False,
              doc="creator or admin only: take this entrant out instead of yourself"),
    ), ("ok",), "leave a tournament before it starts"),
    MessageSpec("tournament_start", "client", (_TOURNAMENT,), ("tournament",),
                "creator or admin: close entries and play round 1"),
    MessageSpec("tournament_show", "client", (_TOURNAMENT,), ("tournament",),
                "a tournament's state; its later changes are pushed to you"),
    MessageSpec("list_tournaments", "client", (
        Field("status", Str(enum=TOURNAMENT_STATUSES), required=False,
              doc="only tournaments in this status"),
        Field("limit", Int(1), required=False, doc="default 50, at most 200"),
    ), ("tournaments",), "tournaments, newest first"),
)

_SEATS = Field("seats", Arr(Ref("SeatInfo")))
_VIEW = Field("view", Obj(), doc="what this viewer may see (game-specific)")
_CLOCKS_MS = Field("clocks_ms", Nullable(Arr(Int())),
                   doc="every seat's remaining bank in ms; null when untimed or no bank")
_HELD = Field("events", Arr(Ref("EventBatch")), required=False,
              doc="only with hello.lean: the events messages held for this seat since its "
                  "last request, oldest first, each without type and match_id")

SERVER_MESSAGES: tuple[MessageSpec, ...] = (
    MessageSpec("welcome", "server", (
        Field("protocol", Const(PROTOCOL_VERSION)),
        Field("server", Str(), doc='"tabletop-arena/<version>"'),
        Field("session", Str(), doc="resume token for hello.resume after a disconnect"),
        Field("account", Ref("Account")),
        Field("encoding", Str(enum=("json", "msgpack"))),
        Field("limits", Ref("Limits")),
        Field("views", Bool(), required=False,
              doc="whether events and replays carry views (hello.views); absent: false"),
        Field("lean", Bool(), required=False,
              doc="whether lean delivery is on (hello.lean); absent: false"),
    ), summary="the session is open"),
    MessageSpec("pong", "server", (), summary="answer to ping"),
    MessageSpec("games", "server", (Field("games", Arr(Ref("GameInfo"))),),
                summary="answer to list_games"),
    MessageSpec("matches", "server", (
        Field("matches", Arr(Ref("MatchSummary")), doc="newest first"),
        Field("next", Nullable(Str()), doc="cursor of the next page; null: this is the last"),
    ), summary="answer to list_matches: one page"),
    MessageSpec("bots", "server", (Field("bots", Arr(Ref("BotInfo")),
                                         doc="by most free capacity, then account name"),),
                summary="answer to list_bots"),
    MessageSpec("seeking", "server", (Field("seek_id", Str()), _GAME),
                summary="the seek is queued"),
    MessageSpec("challenge", "server", (
        Field("challenge_id", Str()),
        Field("from", Str(), doc="the challenger's account name"),
        Field("accounts", Arr(Str()), doc="everyone invited, the challenger excluded"),
        _GAME,
        Field("options", Obj()),
        Field("clock", Nullable(Ref("Clock"))),
        Field("rated", Bool(), required=False, doc="true: a rated match (absent: casual)"),
        Field("duplicate", Bool(), required=False,
              doc="true: a duplicate pair (absent: one match)"),
    ), summary="you are invited to a match"),
    MessageSpec("challenge_sent", "server", (Field("challenge_id", Str()),),
                summary="your challenge was delivered"),
    MessageSpec("challenge_declined", "server", (
        Field("challenge_id", Str()), Field("by", Str()),
    ), summary="an invited account declined"),
    MessageSpec("ok", "server", (), summary="the referenced message succeeded"),
    MessageSpec("match_start", "server", (
        _MATCH, _GAME,
        Field("options", Obj(), doc="the match's normalized options"),
        _SEATS,
        Field("your_seat", Nullable(Int(0)), doc="null for a spectator"),
        Field("clock", Nullable(Ref("Clock"))),
        _CLOCKS_MS,
        _VIEW,
        Field("status", Str(enum=MATCH_STATUSES)),
        Field("seq", Int(0), required=False,
              doc="seq of the last events message already reflected in view"),
        Field("committed", Arr(Int(0)), required=False,
              doc="simultaneous games: the seats whose action to the current turn is in "
                  "(never what it is)"),
        Field("commitment", AnyValue(), required=False,
              doc="simultaneous games, your own seat only: the action you committed to the "
                  "current turn"),
        Field("pair", Ref("Pair"), required=False, doc="one of a duplicate pair"),
    ), summary="a match begins (or is re-sent on resume / to a new spectator)"),
    MessageSpec("request", "server", (
        _MATCH,
        Field("request_id", Str(), doc="echo it in the action"),
        Field("seat", Int(0)),
        _VIEW,
        Field("legal_actions", Arr(AnyValue(), 1), required=False,
              doc="sorted; answer with one of them (games whose GameInfo.actions is list)"),
        Field("action_space", Ref("ActionSpace"), required=False,
              doc="instead of legal_actions in a game whose actions are not a list "
                  "(GameInfo.actions space): answer with a value of this space"),
        Field("default_action", AnyValue(), required=False,
              doc="in a game whose timeout is a default action: what is played for this "
                  "seat if it does not answer in time"),
        Field("clock_ms", Nullable(Int()),
              doc="this seat's remaining bank; null: untimed or no bank"),
        Field("deadline_ms", Nullable(Int(0)), required=False,
              doc="time left to answer this request: the bank or the per-decision limit, "
                  "whichever ends first; null: untimed"),
        _HELD,
    ), summary="this seat must act", one_of_needed=("legal_actions", "action_space")),
    MessageSpec("events", "server", (
        _MATCH,
        Field("seq", Int(1), doc="per match, increasing from 1"),
        Field("events", Arr(Ref("Event")), doc="rendered for this viewer"),
        _CLOCKS_MS,
        Field("view", Obj(), required=False,
              doc="only with hello.views: this viewer's view after these events"),
    ), summary="what happened in a match, for this viewer"),
    MessageSpec("match_end", "server", (
        _MATCH, Field("outcome", Ref("Outcome")),
        Field("view", Nullable(Obj()), doc="the final view for this viewer"),
        Field("status", Str(enum=MATCH_STATUSES), required=False),
        _HELD,
        Field("ratings", Arr(Ref("SeatRating")), required=False,
              doc="a rated match that ended over: every seat's rating before and after"),
        Field("pair", Ref("Pair"), required=False,
              doc="one of a duplicate pair: pair_end follows once both have ended"),
    ), summary="the match is over"),
    MessageSpec("pair_end", "server", (
        Field("pair_id", Str()), _GAME,
        Field("matches", Arr(Str()), doc="game 1's match id, then game 2's"),
        Field("players", Arr(Str()), doc="the two account names, as seated in game 1 (the "
                                         "first holds seat 0 there, seat 1 in game 2)"),
        Field("status", Str(enum=("over", "void")),
              doc="void: a match of the pair ended void (unrated; no points)"),
        Field("outcomes", Arr(Nullable(Ref("Outcome"))),
              doc="each match's outcome, game 1 then game 2 (seats as in that match)"),
        Field("points", Nullable(Arr(Number())),
              doc="per player: 1 a game won, ½ drawn; null when void"),
        Field("ranks", Nullable(Arr(Int(0))),
              doc="per player: 0 won (or drew) the pair; null when void"),
    ), summary="both matches of a duplicate pair have ended: the pair's result"),
    MessageSpec("replay", "server", (
        _MATCH, _GAME, Field("options", Obj()), _SEATS,
        Field("status", Str(enum=MATCH_STATUSES)),
        Field("outcome", Nullable(Ref("Outcome"))),
        Field("steps", Arr(Ref("ReplayStep"))),
        Field("num_seats", Int(1), required=False),
        Field("start", Nullable(Obj()), required=False,
              doc="finished matches only: the start state if not the game's initial one"),
        Field("log", Arr(Obj()), required=False,
              doc="finished matches only: the action log, one joint action per entry"),
        Field("start_view", Obj(), required=False,
              doc="only with hello.views: the spectator's view before the first step"),
        Field("start_seat_views", Arr(Obj()), required=False,
              doc="only with hello.views, finished matches of games with hidden "
                  "information: every seat's view before the first step"),
        Field("pair", Ref("Pair"), required=False,
              doc="one of a duplicate pair; while its twin is live it replays like a live "
                  "match (no log)"),
    ), summary="a match's record"),
    MessageSpec("chat_line", "server", (
        _MATCH,
        Field("channel", Str(enum=("players", "spectators")),
              doc="players: the seats' chat; spectators: the watchers' chat"),
        Field("from", Str(), doc="the sender's account name"),
        Field("text", Str(), doc="plain text: never markup"),
        Field("at", Str(), doc="ISO-8601 UTC time the server received it"),
    ), summary="a line of a match's chat"),
    MessageSpec("rematch_offered", "server", (
        _MATCH, Field("by", Str(), doc="the account that offered"),
        Field("seats", Arr(Int(0)), doc="the seats that have offered so far"),
    ), summary="a seat offers a rematch of a finished match"),
    MessageSpec("rematch_declined", "server", (
        _MATCH, Field("by", Str()),
        Field("reason", Str(enum=("declined", "left")),
              doc="declined: decline_rematch; left: its connection was lost"),
    ), summary="the rematch offer lapsed"),
    MessageSpec("error", "server", (
        Field("code", Str(enum=ERROR_CODES), doc="see the error codes table"),
        Field("message", Str(), doc="human-readable; never contains hidden information"),
        Field("match_id", Str(), required=False),
        Field("request_id", Str(), required=False),
        Field("details", Obj(), required=False),
        Field("retry_after", Number(), required=False,
              doc="rate_limited only: seconds to wait before sending the refused message "
                  "again"),
    ), summary="something went wrong; the connection stays open"),
    MessageSpec("signed_in", "server", (
        Field("account", Ref("Account"), doc="who this session is now"),
        Field("login_token", Str(),
              doc="keep it (secret): hello.token with it signs this browser in again"),
        Field("claimed", Int(0), required=False,
              doc="sign_up with claim: how many of the guest's finished matches became the "
                  "account's"),
    ), summary="answer to sign_up and sign_in: the session is the account's now"),
    MessageSpec("bot_token", "server", (
        Field("bot", Str(), doc="the bot's account name"),
        Field("token", Str(), doc="its bearer token, shown only this once"),
    ), summary="answer to create_bot and rotate_bot_token"),
    MessageSpec("my_bots", "server", (
        Field("bots", Arr(Ref("OwnedBot")), doc="by name"),
    ), summary="answer to list_my_bots"),
    MessageSpec("ladder_joined", "server", (
        _GAME, Field("bot", Str()), Field("version", Str()), Field("account", Str()),
        Field("max_matches", Int(1)),
        Field("new", Bool(), doc="true when this version became a new rated entity"),
        Field("seeded_from", Nullable(Str()), required=False,
              doc="the version it was seeded from, if any"),
        Field("entry", Ref("LadderEntry"), doc="its standing now"),
    ), summary="the bot version is on the ladder and will be paired"),
    MessageSpec("leaderboard", "server", (
        _GAME,
        Field("min_games", Int(0), doc="rated matches below which an entry is provisional"),
        Field("entries", Arr(Ref("LadderEntry")), doc="by ordinal, best first"),
    ), summary="answer to get_leaderboard"),
    MessageSpec("rating_history", "server", (
        _GAME, Field("account", Str()), Field("bot", Str()), Field("version", Str()),
        Field("points", Arr(Ref("RatingPoint")), doc="oldest first"),
    ), summary="answer to get_rating_history"),
    MessageSpec("profile", "server", (
        Field("account", Str()),
        Field("kind", Str(enum=("human", "bot", "admin"))),
        Field("created_at", Str(), doc="ISO-8601 UTC time"),
        Field("ratings", Arr(Ref("PersonRating")), doc="one per game played rated, by game"),
        Field("history", Arr(Ref("PersonRatingPoint")),
              doc="rating after each rated match (of get_profile.game only, if named), "
                  "oldest first"),
        Field("matches", Arr(Ref("ProfileMatch")),
              doc="recent matches, rated or casual, newest first"),
    ), summary="answer to get_profile"),
    MessageSpec("people_leaderboard", "server", (
        _GAME, Field("entries", Arr(Ref("PersonRating")), doc="by ordinal, best first"),
    ), summary="answer to get_people_leaderboard"),
    MessageSpec("ladder_matches", "server", (
        _GAME, Field("matches", Arr(Ref("LadderMatch")), doc="newest first"),
    ), summary="answer to list_ladder_matches"),
    MessageSpec("tournament", "server", (
        Field("tournament_id", Str()), Field("name", Str()), _GAME,
        Field("format", Str(enum=TOURNAMENT_FORMATS)),
        Field("num_seats", Int(2)), Field("rounds", Int(0)),
        Field("round", Int(0), doc="the round under way (or last played); 0 before the start"),
        Field("status", Str(enum=TOURNAMENT_STATUSES)),
        Field("creator", Str()), Field("options", Obj()),
        Field("clock", Nullable(Ref("Clock"))),
        Field("created_at", Str()), Field("started_at", Nullable(Str())),
        Field("ended_at", Nullable(Str())), Field("entrant_count", Int(0)),
        Field("entrants", Arr(Ref("TournamentEntrant")), doc="in join order"),
        Field("pairings", Arr(Ref("TournamentPairing")), doc="by round, then board"),
        Field("standings", Arr(Ref("TournamentStanding")), doc="best first"),
        Field("crosstable", Ref("Crosstable")),
    ), summary="a tournament's whole state (a reply, or pushed to its watchers)"),
    MessageSpec("tournaments", "server", (
        Field("tournaments", Arr(Ref("TournamentInfo")), doc="newest first"),
    ), summary="answer to list_tournaments"),
)

CLIENT_TYPES: Final[Mapping[str, MessageSpec]] = {m.type: m for m in CLIENT_MESSAGES}
SERVER_TYPES: Final[Mapping[str, MessageSpec]] = {m.type: m for m in SERVER_MESSAGES}
ALL_MESSAGES: Final = CLIENT_MESSAGES + SERVER_MESSAGES

PRE_HELLO_TYPES: Final = frozenset({"hello", "ping"})
"""Client messages allowed before the session is open."""


def _def_name(spec: MessageSpec) -> str:
    # ``challenge`` exists in both directions; definitions are named by direction.
    return f"{spec.direction}.{spec.type}"


def json_schema() -> dict[str, Any]:
    """The whole catalogue as one JSON Schema (draft 2020-12) document.

    ``$defs`` holds the shared definitions and one definition per message, named
    ``client.<type>`` / ``server.<type>``; ``$defs.client_message`` and
    ``$defs.server_message`` are the oneOf per direction, and the root is the anyOf of both
    (a server ``challenge`` would also fit the client ``challenge``, so not a oneOf).
    """
    defs: dict[str, Any] = {name: t.schema() for name, t in DEFINITIONS.items()}
    for spec in ALL_MESSAGES:
        defs[_def_name(spec)] = spec.schema()
    for direction, specs in (("client", CLIENT_MESSAGES), ("server", SERVER_MESSAGES)):
        defs[f"{direction}_message"] = {
            "oneOf": [{"$ref": f"#/$defs/{_def_name(s)}"} for s in specs]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://tabletop-arena.invalid/protocol/v1/schema.json",
        "title": f"Tabletop Arena wire protocol v{PROTOCOL_VERSION}",
        "description": "Every frame is one of these objects. Unknown fields are ignored. "
                       "Each direction is a oneOf over its message types; the root is an "
                       "anyOf because `challenge` is a type in both directions.",
        "anyOf": [{"$ref": "#/$defs/client_message"}, {"$ref": "#/$defs/server_message"}],
        "$defs": defs,
    }


def schema_text() -> str:
    """The committed form of ``protocol/schema.json``."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"

