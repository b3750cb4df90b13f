"""Coverage-guided fuzzing of the protocol session with atheris (libFuzzer), for
``arena bench fuzz --atheris``; run as its own process, since libFuzzer ends the process::

    python -m tools.bench.fuzz_atheris CORPUS_DIR -runs=100000 -seed=1 -print_final_stats=1

Each input is one connection's story: its first byte chooses the encoding (JSON or msgpack)
and whether the session starts welcomed; the rest is cut into frames at each ``0xFF 0xFE``,
fed one by one to a fresh :class:`protocol.session.ServerSession`, each frame 10 ms after the
last or at the same instant (the rate limiter's turn). A JSON frame goes in as text (as a
websocket text frame must, valid UTF-8), a msgpack frame as bytes. After every frame
:func:`tools.bench.fuzz.check_session` checks what came out (documented error codes only, no
internals, no echoed input, valid events, documented close codes); any exception or failed
check is a crash, which libFuzzer reports with the input that caused it. The modules of
``protocol/`` are instrumented, so inputs that reach new code are kept and mutated further.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["protocol"]):
    import protocol.codec
    import protocol.messages
    import protocol.session  # noqa: F401  (instrumented here, used through the harness)

from protocol.session import ServerSession  # noqa: E402
from tools.bench.fuzz import check_session  # noqa: E402

SEPARATOR = b"\xff\xfe"
MAX_FRAMES = 64


def one_input(data: bytes) -> None:
    if not data:
        return
    mode, body = data[0], data[1:]
    msgpack = bool(mode & 1)
    session = ServerSession("msgpack" if msgpack else "json", now=0.0)
    if mode & 2:
        session.welcome(session="s", account={"name": "fuzz", "kind": "guest"},
                        server_version="fuzz")
        session.data_to_send()
    now = 0.0
    for n, chunk in enumerate(body.split(SEPARATOR)[:MAX_FRAMES]):
        if (mode >> 2) & 1 or n % 4:
            now += 0.01
        if msgpack:
            session.receive_bytes(chunk, now)
        else:
            session.receive_text(chunk.decode("utf-8", "replace"), now)
        events, _ = check_session(session)
        for event in events:
            if event["type"] == "hello":  # the server's turn: welcome or refuse, in turn
                if n % 2:
                    session.welcome(session="s", account={"name": "fuzz", "kind": "guest"},
                                    server_version="fuzz", hello=event)
                else:
                    session.reject_hello(event, "unauthorized", "unknown token")
                check_session(session)
        if session.close is not None:
            return


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
