"""``python -m tools.schema``: print the JSON Schema generated from the protocol's catalogue
(a tool: ``protocol/`` itself does no I/O)."""

from __future__ import annotations

import sys

from protocol.messages import schema_text


def main(argv: list[str]) -> int:
    if argv not in ([], ["schema"]):
        print("usage: python -m tools.schema > protocol/schema.json", file=sys.stderr)
        return 2
    sys.stdout.write(schema_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
