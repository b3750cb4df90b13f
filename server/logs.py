"""structlog set-up: one JSON object per line on stderr, with ``conn_id``/``match_id`` bound
by the code that logs. Standard-library logging (websockets, the runner) goes the same way."""

from __future__ import annotations

import logging
import sys

import structlog

LEVELS = ("debug", "info", "warning", "error")


class _Stderr:
    """Whatever ``sys.stderr`` is at the time of writing (test runners swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(level: str = "info") -> None:
    numeric = getattr(logging, level.upper())
    processors: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        structlog.processors.JSONRenderer(),
    ]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=_Stderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(_Stderr())  # type: ignore[arg-type]
    handler.setFormatter(logging.Formatter(
        '{"timestamp":"%(asctime)s","level":"%(levelname)s","logger":"%(name)s",'
        '"event":"%(message)s"}'))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(max(numeric, logging.INFO) if level != "debug" else numeric)
    # websockets logs every refused handshake at INFO; that is noise here.
    logging.getLogger("websockets").setLevel(max(numeric, logging.WARNING))
