"""``arena account``: create accounts (prints the bearer token once), list them, revoke their
tokens, ban and unban them.

    arena account create NAME --kind bot|human|admin [--owner PERSON] [--db FILE|URL]
    arena account list [--db FILE|URL]
    arena account revoke NAME [--new-token] [--db FILE|URL]
    arena account ban NAME [--db FILE|URL]
    arena account unban NAME [--db FILE|URL]

Names starting ``house-`` are refused: they are the house bots' (``arena run`` makes them),
and so is a name that reads as an existing account's (case, width and dashes aside).
``--owner``: a bot made for a person, who may then rotate and revoke its token from the web
client's account page too (PROTOCOL.md section 16); ``list`` shows each bot's owner.
``revoke`` leaves the account with no working token (``--new-token``: and prints a new one);
``ban`` keeps it from logging in until ``unban``. These write the server's store (``--db``:
its SQLite file or its ``postgresql://`` URL, as given to ``arena serve``); a running server
applies them at the account's next ``hello`` or resume (PROTOCOL.md section 9) — an admin's
``ban_account`` message closes a banned account's sessions at once.
"""

from __future__ import annotations

import argparse
import sys

from server.storage import Store, StoreError, open_store

DEFAULT_DB = "arena.sqlite3"
DB_HELP = (f"the server's store: an SQLite file (default {DEFAULT_DB}) or a PostgreSQL URL, "
           "postgresql://user[:password]@host[:port]/db")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="account_command", metavar="ACTION")
    sub.required = True
    create = sub.add_parser("create", help="create an account and print its token once")
    create.add_argument("name")
    create.add_argument("--kind", choices=("bot", "human", "admin"), required=True,
                        help="admin: may send abort_match and ban_account")
    create.add_argument("--owner", metavar="PERSON",
                        help="a bot made for this person's account (its account page "
                             "manages the bot's token too)")
    sub.add_parser("list", help="list accounts")
    revoke = sub.add_parser("revoke", help="invalidate an account's token")
    revoke.add_argument("name")
    revoke.add_argument("--new-token", action="store_true",
                        help="and print a new token (shown only once)")
    for action, what in (("ban", "ban an account: it cannot log in"),
                         ("unban", "lift an account's ban")):
        sub.add_parser(action, help=what).add_argument("name")
    for parser in sub.choices.values():
        parser.add_argument("--db", default=DEFAULT_DB, help=DB_HELP)


def _change(store: Store, args: argparse.Namespace) -> str:
    """Apply ``create``/``revoke``/``ban``/``unban``; what to print."""
    name = args.name
    if args.account_command == "create":
        token = store.create_account(name, args.kind, owner=args.owner)
        return f"created {args.kind} account {name!r}; its token (shown only once):\n{token}"
    if args.account_command == "revoke":
        if args.new_token:
            return f"revoked the token of {name!r}; its new token (shown only once):\n" \
                   f"{store.rotate_token(name)}"
        store.revoke_tokens(name)
        return f"revoked the token of {name!r}; it has none now (revoke --new-token issues one)"
    store.set_banned(name, args.account_command == "ban")
    return f"{args.account_command}ned account {name!r}"


def run(args: argparse.Namespace) -> int:
    try:
        store = open_store(args.db)
    except StoreError as exc:
        print(f"arena account {args.account_command}: {exc}", file=sys.stderr)
        return 1
    try:
        if args.account_command == "list":
            for account in store.list_accounts():
                print(f"{account.name:<24} {account.kind:<6} {account.created_at}"
                      f"{'  banned' if account.banned else ''}"
                      f"{f'  owner {account.owner}' if account.owner else ''}")
            return 0
        try:
            print(_change(store, args))
        except StoreError as exc:
            print(f"arena account {args.account_command}: {exc}", file=sys.stderr)
            return 1
        return 0
    finally:
        store.close()
