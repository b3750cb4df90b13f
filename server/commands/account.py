"""``arena account``: create accounts (prints the bearer token once) and list them.

    arena account create NAME --kind bot|human [--db FILE]
    arena account list [--db FILE]
"""

from __future__ import annotations

import argparse
import sys

from server.storage import SqliteStore, StoreError

DEFAULT_DB = "arena.sqlite3"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="account_command", metavar="ACTION")
    sub.required = True
    create = sub.add_parser("create", help="create an account and print its token once")
    create.add_argument("name")
    create.add_argument("--kind", choices=("bot", "human"), required=True)
    create.add_argument("--db", default=DEFAULT_DB, help=f"SQLite file (default {DEFAULT_DB})")
    listing = sub.add_parser("list", help="list accounts")
    listing.add_argument("--db", default=DEFAULT_DB, help=f"SQLite file (default {DEFAULT_DB})")


def run(args: argparse.Namespace) -> int:
    store = SqliteStore(args.db)
    try:
        if args.account_command == "create":
            try:
                token = store.create_account(args.name, args.kind)
            except StoreError as exc:
                print(f"arena account create: {exc}", file=sys.stderr)
                return 1
            print(f"created {args.kind} account {args.name!r}; its token (shown only once):")
            print(token)
            return 0
        for account in store.list_accounts():
            print(f"{account.name:<24} {account.kind:<6} {account.created_at}")
        return 0
    finally:
        store.close()
