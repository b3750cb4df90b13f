"""``python -m protocol schema``: print the JSON Schema generated from the catalogue."""

from __future__ import annotations

import sys

from protocol.messages import schema_text


def main(argv: list[str]) -> int:
    if argv != ["schema"]:
        print("usage: python -m protocol schema > protocol/schema.json", file=sys.stderr)
        return 2
    sys.stdout.write(schema_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
