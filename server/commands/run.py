"""``arena run``: the main job.

Until the websocket server lands this plays a seeded Battle Line match between two random
policies and prints it, so ``make run`` already exercises the engine end to end.
"""

from __future__ import annotations

import argparse

from server.commands import play


def add_arguments(p: argparse.ArgumentParser) -> None:
    play.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    return play.run(args)
