"""``arena bench fuzz``: feed generated frames to a server's protocol session, count crashes.

A seeded grammar-and-mutation fuzzer, in process and without sockets: every frame goes to a
:class:`protocol.session.ServerSession` (``receive_text`` / ``receive_bytes``), then its
events and its frames to send are pulled and checked (:func:`check_session`):

* no exception escapes the session;
* every reply is a ``pong`` or an ``error`` whose ``code`` is a documented one, valid against
  the message catalogue, with a ``message`` that shows no Python internals and never quotes
  the frame (each generated frame carries :data:`MARKER`; it must not come back in an error);
* a JSON reply is valid UTF-8 (a websocket text frame must be);
* every event handed to the server is a valid client message;
* a close uses a documented close code.

The frames (:class:`FrameGenerator`) start from the catalogue in :mod:`protocol.messages`:
valid messages of every client type, then the same with fields dropped, retyped, extended,
nested deep, made huge; JSON texts with repeated keys, ``NaN``, lone surrogates, huge integers
and trailing garbage; msgpack with binary data, extension types, non-string keys, repeated
keys and extra data; bytes flipped, inserted, deleted and cut; random bytes and text; floods.

Prints frames per second, a count of each outcome and the number of crashes; on a crash it
prints the frame and how to reproduce it, and exits 1. ``--frames`` (default 1,000,000) and
``--seed`` choose the run; the same seed gives the same frames.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import msgpack

from protocol.codec import (
    MAX_DEPTH,
    decode,
    encode,
    validate_client_message,
    validate_server_message,
)
from protocol.errors import ERROR_CODES
from protocol.messages import (
    CLIENT_TYPES,
    CLOSE_POLICY_VIOLATION,
    CLOSE_TOO_BIG,
    PROTOCOL_VERSION,
    AnyValue,
    Arr,
    Bool,
    Const,
    Encoding,
    Id,
    Int,
    MessageSpec,
    Nullable,
    Number,
    Obj,
    Ref,
    Str,
    WireType,
)
from protocol.session import ServerSession

HELP = "fuzz: generated frames through the server's protocol session; crashes must be 0"

MARKER: Final = "Zq7fuzzMARK"
"""In every generated frame; an error message that contains it quoted the client's input."""

INTERNALS: Final = ("Traceback", "Exception", "KeyError", "TypeError", "ValueError",
                    "AttributeError", "IndexError", "RecursionError", "UnicodeDecodeError",
                    "StackError", "ExtraData", "FormatError", "<class", "object at 0x", ".py",
                    'File "', "unpackb", "unpack(b)", "strict_map_key", "sys.", "orjson",
                    "msgpack.")
"""Texts that betray Python internals in an error message."""

SESSION_CODES: Final = frozenset(ERROR_CODES) - {"internal"}
"""What a protocol session may answer on its own; ``internal`` would mean a server fault."""

FRAME_CODES: Final = frozenset({"malformed", "unknown_type", "unsupported_version",
                                "unauthorized", "rate_limited", "too_large"})
"""The errors about a frame itself, which PROTOCOL.md (section 7) promises never quote it.
(The server's lobby errors may still name what was asked for: ``no game named '…'``.)"""

CLOSE_CODES: Final = frozenset({CLOSE_TOO_BIG, CLOSE_POLICY_VIOLATION})

_ALPHABET: Final = "".join(map(chr, range(32, 127))) + "{}[]:,\"\\" * 8 + \
    "".join(map(chr, range(0xA0, 0x800, 7))) + "\u2028\ufeff\U0001f600\U0010ffff"
"""Characters of random text frames: ASCII, JSON's punctuation (often), some of the rest."""


class FuzzFailure(AssertionError):
    """A frame broke a promise of the protocol session (see the module docstring)."""


# --------------------------------------------------------------------------------------------
# Checking one session's output
# --------------------------------------------------------------------------------------------


def check_error_text(error: dict[str, Any]) -> None:
    """An error's message shows no Python internals, and an error about the frame itself
    (:data:`FRAME_CODES`) quotes nothing of it: MARKER is in neither message nor details."""
    text = error.get("message", "")
    shown = text + json.dumps(error.get("details", {}), ensure_ascii=False)
    if MARKER in shown and error.get("code") in FRAME_CODES:
        raise FuzzFailure(f"the error quotes the client's input: {text!r}")
    for bad in INTERNALS:
        if bad in text:
            raise FuzzFailure(f"the error shows Python internals ({bad}): {text!r}")


def check_reply(frame: str | bytes, encoding: Encoding,
                codes: frozenset[str] = SESSION_CODES) -> dict[str, Any]:
    """Decode and check one frame a server sent; return the message."""
    if isinstance(frame, str):
        if encoding != "json":
            raise FuzzFailure("a text frame on a msgpack connection")
        try:
            frame.encode("utf-8")
        except UnicodeEncodeError:
            raise FuzzFailure(f"a reply that is not UTF-8: {frame[:200]!r}") from None
    elif encoding != "msgpack":
        raise FuzzFailure("a binary frame on a JSON connection")
    message = decode(frame)
    validate_server_message(message)
    if message["type"] == "error":
        if message["code"] not in codes:
            raise FuzzFailure(f"undocumented or unexpected error code: {message!r}")
        check_error_text(message)
    return message


def check_session(session: ServerSession) -> tuple[list[dict[str, Any]], list[str]]:
    """Pull a session's events and frames after one input and check them: returns the events
    and one outcome label per thing that came out (``event``, ``pong``, an error code,
    ``close <code>``)."""
    events = session.events_received()
    labels: list[str] = []
    for event in events:
        validate_client_message(event)  # only valid client messages reach the server
        if event["type"] == "ping":
            raise FuzzFailure("a ping reached the server")
        labels.append("event")
    for frame in session.data_to_send():
        message = check_reply(frame, session.encoding)
        labels.append(message["code"] if message["type"] == "error" else message["type"])
    if session.close is not None:
        if session.close.code not in CLOSE_CODES:
            raise FuzzFailure(f"undocumented close code {session.close.code}")
        labels.append(f"close {session.close.code}")
    return events, labels


# --------------------------------------------------------------------------------------------
# Generating frames
# --------------------------------------------------------------------------------------------


def valid_value(wire: WireType, rng: random.Random) -> Any:
    """A value that fits ``wire`` (strings carry MARKER where the type allows any string)."""
    if isinstance(wire, Ref):
        return valid_value(wire.target, rng)
    if isinstance(wire, Nullable):
        return None if rng.random() < 0.2 else valid_value(wire.inner, rng)
    if isinstance(wire, Str):
        if wire.enum:
            return rng.choice(wire.enum)
        text = rng.choice(("battleline", "chexers", "barca", "boundary", "random", MARKER))
        return text[: wire.max_len] if wire.max_len is not None else text
    if isinstance(wire, Const):
        return wire.value
    if isinstance(wire, Bool):
        return rng.random() < 0.5
    if isinstance(wire, Int):
        return max(wire.minimum or 0, rng.choice((0, 1, 2, 3, 60_000)))
    if isinstance(wire, Number):
        return rng.choice((0, 1.5, 3))
    if isinstance(wire, Id):
        return rng.choice((1, 42, "a", "m-1"))
    if isinstance(wire, Arr):
        return [valid_value(wire.items, rng) for _ in range(max(wire.min_items, rng.randrange(3)))]
    if isinstance(wire, Obj):
        out = {f.name: valid_value(f.type, rng) for f in wire.fields or ()
               if f.required or rng.random() < 0.5}
        for group in wire.together:  # all or none
            if any(name in out for name in group):
                fields = {f.name: f for f in wire.fields or ()}
                out.update({name: valid_value(fields[name].type, rng) for name in group
                            if name not in out})
        if wire.one_of_needed and not any(name in out for name in wire.one_of_needed):
            name = wire.one_of_needed[0]
            out[name] = valid_value(next(f.type for f in wire.fields or () if f.name == name), rng)
        return out
    if isinstance(wire, AnyValue):
        return junk_value(rng, 2)
    return None  # a type the client never sends (action spaces)


def junk_value(rng: random.Random, depth: int = 3) -> Any:
    """Any JSON-able value, leaning to the awkward: huge and negative numbers, floats,
    empty and long strings, MARKER, nested arrays and objects."""
    roll = rng.randrange(14 if depth > 0 else 10)
    if roll == 0:
        return None
    if roll == 1:
        return rng.random() < 0.5
    if roll == 2:
        return rng.choice((0, -1, 1, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1))
    if roll == 3:
        return rng.choice((0.5, -0.0, 1e308, -1e-308, 3.141592653589793))
    if roll in (4, 5, 6):
        return MARKER
    if roll == 7:
        return MARKER * rng.randrange(1, 200)
    if roll == 8:
        return rng.choice(("", " ", "\u0000", "é", "\U0001f600", "a:b", '"', "\\", "ping"))
    if roll == 9:
        return rng.randrange(-1000, 1000)
    if roll in (10, 11):
        return [junk_value(rng, depth - 1) for _ in range(rng.randrange(4))]
    return {rng.choice((MARKER, "type", "id", "x", "")): junk_value(rng, depth - 1)
            for _ in range(rng.randrange(4))}


def nested(depth: int, rng: random.Random) -> Any:
    """An array/object chain ``depth`` levels deep."""
    value: Any = MARKER
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"k": value}
    return value


@dataclass
class FrameGenerator:
    """A seeded stream of frames (``str`` text, ``bytes`` binary); see the module docstring."""

    seed: int
    rng: random.Random = field(init=False)
    specs: list[MessageSpec] = field(init=False)
    strategies: list[Callable[[], Any]] = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.specs = list(CLIENT_TYPES.values())
        # (weight, strategy): valid and field-level mutations dominate, as they reach deepest.
        table: list[tuple[int, Callable[[], Any]]] = [
            (3, self.valid), (8, self.mutated), (2, self.deep), (4, self.json_tricks),
            (3, self.msgpack_tricks), (5, self.byte_mutation), (2, self.random_frame),
            (1, self.long_string)]
        self.strategies = [s for weight, s in table for _ in range(weight)]
        self.pool = [self.new_message() for _ in range(4096)]

    def __iter__(self) -> Iterator[str | bytes]:
        while True:
            yield self.frame()

    def frame(self) -> str | bytes:
        result: str | bytes = self.rng.choice(self.strategies)()
        return result

    # ---- messages ------------------------------------------------------------------------------

    def message(self) -> dict[str, Any]:
        """A valid client message of a random type, with an unknown field holding MARKER (a
        fresh copy of one of a pool built at the start: building costs more than fuzzing)."""
        return dict(self.rng.choice(self.pool))

    def new_message(self) -> dict[str, Any]:
        spec = self.rng.choice(self.specs)
        out: dict[str, Any] = {"type": spec.type}
        if self.rng.random() < 0.7:
            out["id"] = self.rng.choice((1, 7, "q", "id-" + str(self.rng.randrange(100))))
        for f in spec.fields:
            if f.required or self.rng.random() < 0.5:
                out[f.name] = valid_value(f.type, self.rng)
        if spec.type == "hello":
            out["protocol"] = PROTOCOL_VERSION
        out["note"] = MARKER
        return out

    def encoded(self, message: dict[str, Any]) -> str | bytes:
        try:
            return encode(message, "msgpack" if self.rng.random() < 0.4 else "json")
        except (TypeError, ValueError, OverflowError):  # e.g. an integer too big for msgpack
            return encode(message, "json")

    def valid(self) -> str | bytes:
        return self.encoded(self.message())

    def mutated(self) -> str | bytes:
        message = self.message()
        rng = self.rng
        for _ in range(rng.randrange(1, 4)):
            keys = list(message)
            roll = rng.randrange(6)
            if roll == 0 and keys:
                del message[rng.choice(keys)]
            elif roll in (1, 2) and keys:
                message[rng.choice(keys)] = junk_value(rng)
            elif roll == 3:
                message[rng.choice((MARKER, "extra", "ref", "__proto__"))] = junk_value(rng)
            elif roll == 4:
                message["type"] = rng.choice((MARKER, "", "PING", "welcome", "error",
                                              " ping", "ping\u0000"))
            else:
                message["id"] = junk_value(rng)
        return self.encoded(message)

    def deep(self) -> str | bytes:
        message = self.message()
        depth = self.rng.choice((MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 200))
        message[self.rng.choice(list(message))] = nested(depth, self.rng)
        if self.rng.random() < 0.5:
            return encode(message, "json")
        # deeper than msgpack's own stack and than the standard library's recursion limit
        depth = self.rng.choice((1000, 5000))
        return "[" * depth + "]" * depth if self.rng.random() < 0.5 else \
            b"\x91" * depth + b"\xc0"

    def long_string(self) -> str | bytes:
        message = self.message()
        message["note"] = MARKER * self.rng.choice((100, 1000, 6000, 7000))
        return self.encoded(message)

    # ---- encoding-level tricks -----------------------------------------------------------------

    def json_tricks(self) -> str:
        text: str = encode(self.message(), "json")  # type: ignore[assignment]
        body = text[1:-1]
        rng = self.rng
        roll = rng.randrange(9)
        if roll == 0:  # a repeated key, in clear or escaped
            key = rng.choice(('"type"', '"\\u0074ype"', '"note"', '"id"'))
            return "{" + f'{key}:"{MARKER}",' + body + "}"
        if roll == 1:
            return "{" + body + f',"note":{rng.choice(("NaN", "Infinity", "-Infinity"))}' + "}"
        if roll == 2:
            return "{" + body + rng.choice((r',"note":"\ud800' + MARKER + '"',
                                            r',"note":"' + MARKER + r'\udfff"',
                                            r',"' + MARKER + r'\ud83d":1')) + "}"
        if roll == 3:
            return "{" + body + f',"note":{rng.choice(("1" + "0" * 30, "1e999", "-1e400"))}' + "}"
        if roll == 4:
            return text + rng.choice((MARKER, " " + text, "]", "\u0000"))
        if roll == 5:
            return rng.choice(("\ufeff", "  \n\t", "")) + text
        if roll == 6:
            return text.replace('"', "'", rng.randrange(1, 4))
        if roll == 7:
            return "{" + body + f',"n":{"1" * rng.choice((20, 5000))}' + "}"
        return "{" + body + f',"{MARKER}":{"{"}"a":1,"a":2{"}"}' + "}"

    def msgpack_tricks(self) -> bytes:
        message = self.message()
        packed: bytes = msgpack.packb(message, use_bin_type=True)
        rng = self.rng
        roll = rng.randrange(7)
        if roll == 0:
            message["note"] = MARKER.encode() * rng.randrange(2)  # bin, empty or not
            return bytes(msgpack.packb(message, use_bin_type=True))
        if roll == 1:
            message["note"] = msgpack.ExtType(rng.randrange(128), MARKER.encode())
            if rng.random() < 0.5:
                message["note"] = msgpack.Timestamp(rng.randrange(2**32))  # extension -1
            return bytes(msgpack.packb(message, use_bin_type=True))
        if roll == 2:
            odd_keys: dict[Any, Any] = {**message, rng.choice((1, -1, 2.5, True, None)): MARKER}
            return bytes(msgpack.packb(odd_keys, use_bin_type=True))
        if roll == 3:  # a map header one longer than its pairs, then the type again
            size = len(message) + 1
            head = bytes([0x80 | size]) if size < 16 else b"\xde" + size.to_bytes(2, "big")
            body = b"".join(msgpack.packb(k) + msgpack.packb(v) for k, v in message.items())
            return head + body + msgpack.packb("type") + msgpack.packb(MARKER)
        if roll == 4:
            return packed + rng.choice((packed, b"\xc0", MARKER.encode()))
        if roll == 5:
            return packed[: rng.randrange(len(packed))]
        return rng.choice((b"\xc1", b"\xdf\xff\xff\xff\xff", b"\xdd\xff\xff\xff\xff",
                           b"\xdb\xff\xff\xff\xff", b"\xc7\xff\x01")) + packed

    def byte_mutation(self) -> str | bytes:
        frame = self.valid()
        data = bytearray(frame.encode("utf-8") if isinstance(frame, str) else frame)
        rng = self.rng
        for _ in range(rng.randrange(1, 5)):
            if not data:
                break
            at = rng.randrange(len(data))
            roll = rng.randrange(4)
            if roll == 0:
                data[at] ^= 1 << rng.randrange(8)
            elif roll == 1:
                data.insert(at, rng.randrange(256))
            elif roll == 2:
                del data[at]
            else:
                data[at:at] = data[at: at + rng.randrange(1, 16)]
        if isinstance(frame, str):  # a text frame is always valid UTF-8 on a websocket
            return data.decode("utf-8", errors="replace")
        return bytes(data)

    def random_frame(self) -> str | bytes:
        size = self.rng.choice((0, 1, 2, 8, 64, 512))
        data = self.rng.randbytes(size)
        if self.rng.random() < 0.5:
            return data
        return "".join(self.rng.choices(_ALPHABET, k=size)) + MARKER


# --------------------------------------------------------------------------------------------
# Driving a session
# --------------------------------------------------------------------------------------------


@dataclass
class FuzzReport:
    frames: int = 0
    seconds: float = 0.0
    outcomes: collections.Counter[str] = field(default_factory=collections.Counter)
    crash: str | None = None
    """What went wrong with the first failing frame, else ``None``."""
    crash_frame: str | bytes | None = None
    crash_index: int = -1


class Harness:
    """One :class:`ServerSession` at a time, played like a server would: a ``hello`` that gets
    through is welcomed (or refused, alternately); a closed session is replaced. Each new
    session picks its encoding; one in five stays before ``welcome`` for a while."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.now = 0.0
        self.flood = 0
        self.session = self.new_session()

    def new_session(self) -> ServerSession:
        encoding: Encoding = "msgpack" if self.rng.random() < 0.4 else "json"
        session = ServerSession(encoding, now=self.now)
        if self.rng.random() < 0.8:
            session.welcome(session="s", account={"name": "fuzz", "kind": "guest"},
                            server_version="fuzz")
            session.data_to_send()
        return session

    def feed(self, frame: str | bytes) -> list[str]:
        if self.flood:
            self.flood -= 1  # frames at the same instant: the rate limiter's turn
        elif self.rng.random() < 0.0005:
            self.flood = self.rng.randrange(100, 260)
        else:
            self.now += 0.05
        session = self.session
        if isinstance(frame, str):
            session.receive_text(frame, self.now)
        else:
            session.receive_bytes(frame, self.now)
        events, labels = check_session(session)
        for event in events:
            if event["type"] == "hello":
                if self.rng.random() < 0.5:
                    session.welcome(session="s", account={"name": "fuzz", "kind": "guest"},
                                    server_version="fuzz", hello=event)
                else:
                    session.reject_hello(event, "unauthorized", "unknown token")
                session.data_to_send()
        if session.close is not None or self.rng.random() < 0.001:
            self.session = self.new_session()
        return labels


def fuzz(frames: int, seed: int, progress: Callable[[int], None] | None = None,
         every: int = 100_000) -> FuzzReport:
    """Feed ``frames`` generated frames; stop at the first failure (``report.crash``)."""
    generator = FrameGenerator(seed)
    harness = Harness(random.Random(seed + 1))
    report = FuzzReport()
    outcomes = report.outcomes
    start = time.perf_counter()
    for index in range(frames):
        frame = generator.frame()
        try:
            outcomes.update(harness.feed(frame) or ["nothing"])
        except Exception as exc:  # a crash is what we are looking for: report, never hide
            report.crash = f"{type(exc).__name__}: {exc}"
            report.crash_frame = frame
            report.crash_index = index
            break
        report.frames = index + 1
        if progress is not None and report.frames % every == 0:
            progress(report.frames)
    report.seconds = time.perf_counter() - start
    return report


# --------------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------------


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--frames", type=int, default=1_000_000,
                   help="generated frames to feed (default 1,000,000)")
    p.add_argument("--seed", type=int, default=1, help="the generator's seed (default 1)")
    p.add_argument("--atheris", action="store_true",
                   help="coverage-guided fuzzing with atheris (libFuzzer) instead: "
                        "tools/bench/fuzz_atheris.py, seeded with generated frames")
    p.add_argument("--runs", type=int, default=200_000,
                   help="with --atheris: inputs to run (default 200,000); the reported runs are "
                        "libFuzzer's executed units, which some builds count with the seed corpus")
    p.add_argument("--artifacts", default="artifacts/fuzz",
                   help="with --atheris: where a crashing input is written "
                        "(default artifacts/fuzz)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


ATHERIS_SEEDS = 256
"""Generated frames that seed the coverage-guided fuzzer's corpus."""


def seed_corpus(directory: Path, seed: int, count: int = ATHERIS_SEEDS) -> None:
    """Write ``count`` inputs for :mod:`tools.bench.fuzz_atheris`: generated frames, a few
    to an input, each input's first byte choosing its encoding and start."""
    generator = FrameGenerator(seed)
    rng = random.Random(seed)
    for n in range(count):
        frames = [generator.frame() for _ in range(rng.randrange(1, 4))]
        msgpack_input = isinstance(frames[0], bytes)
        body = [f if isinstance(f, bytes) else f.encode("utf-8", "surrogatepass")
                for f in frames if isinstance(f, bytes) == msgpack_input]
        mode = (1 if msgpack_input else 0) | (2 if rng.random() < 0.8 else 0)
        (directory / f"seed-{n:04}").write_bytes(bytes([mode]) + b"\xff\xfe".join(body))


def run_atheris(args: argparse.Namespace) -> int:
    """``--atheris``: libFuzzer over the protocol session in a process of its own; prints its
    runs, speed, coverage and any crash (the input is kept under ``--artifacts``)."""
    artifacts = Path(args.artifacts)
    artifacts.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as corpus:
        seed_corpus(Path(corpus), args.seed)
        command = [sys.executable, "-m", "tools.bench.fuzz_atheris", corpus,
                   f"-runs={args.runs}", f"-seed={args.seed}", "-print_final_stats=1",
                   f"-artifact_prefix={artifacts}/", "-max_len=4096", "-timeout=10"]
        print(f"atheris: {args.runs:,} runs, seed {args.seed}, in a process of its own …",
              file=sys.stderr, flush=True)
        started = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace")
        seconds = time.perf_counter() - started
    output = done.stdout
    stats = dict(re.findall(r"^stat::(\w+):\s*(\d+)", output, re.MULTILINE))
    coverage = re.findall(r"cov: (\d+) ft: (\d+)", output)
    runs = int(stats.get("number_of_executed_units", 0))
    crashed = done.returncode != 0
    report = {"benchmark": "fuzz", "engine": "atheris", "seed": args.seed, "runs": runs,
              "seconds": round(seconds, 1), "runs_per_s": round(runs / seconds) if seconds else 0,
              "coverage": int(coverage[-1][0]) if coverage else 0,
              "features": int(coverage[-1][1]) if coverage else 0,
              "corpus_added": int(stats.get("new_units_added", 0)),
              "crashes": 1 if crashed else 0}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"atheris: {runs:,} runs in {seconds:.1f} s ({report['runs_per_s']:,}/s), "
              f"coverage {report['coverage']} edges, {report['features']} features, "
              f"{report['corpus_added']} inputs added to the corpus")
        print(f"crashes: {report['crashes']}")
    if crashed:
        tail = "\n".join(output.splitlines()[-40:])
        print(f"CRASH (libFuzzer exit {done.returncode}); its last lines:\n{tail}\n"
              f"  the input is under {artifacts}/; reproduce: python -m "
              f"tools.bench.fuzz_atheris {artifacts}/crash-…", file=sys.stderr)
        return 1
    return 0


def run(args: argparse.Namespace) -> int:
    if args.atheris:
        return run_atheris(args)
    start = time.perf_counter()

    def progress(done: int) -> None:
        elapsed = time.perf_counter() - start
        print(f"  {done:,} frames, {done / elapsed:,.0f}/s", file=sys.stderr, flush=True)

    report = fuzz(args.frames, args.seed, progress, every=max(1, min(100_000, args.frames // 10)))
    rate = report.frames / report.seconds if report.seconds else 0.0
    crashes = 0 if report.crash is None else 1
    if args.json:
        print(json.dumps({"benchmark": "fuzz", "frames": report.frames, "seed": args.seed,
                          "seconds": round(report.seconds, 3), "frames_per_s": round(rate),
                          "outcomes": dict(report.outcomes.most_common()),
                          "crashes": crashes, "crash": report.crash}, indent=2))
    else:
        print(f"fuzz: {report.frames:,} frames in {report.seconds:.1f} s "
              f"({rate:,.0f} frames/s), seed {args.seed}")
        for label, count in report.outcomes.most_common():
            print(f"  {label:20} {count:>10,}")
        print(f"crashes: {crashes}")
    if report.crash is not None:
        frame = report.crash_frame
        shown = repr(frame) if frame is None or len(frame) <= 4000 else \
            f"{frame[:4000]!r}… ({len(frame):,} in all)"
        print(f"CRASH at frame {report.crash_index:,}: {report.crash}\n  frame: {shown}\n"
              f"  reproduce: arena bench fuzz --seed {args.seed} "
              f"--frames {report.crash_index + 1}", file=sys.stderr)
        return 1
    return 0
