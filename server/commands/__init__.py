"""Subcommands of the ``arena`` program.

This package is the composition root: the one place allowed to import every layer (it starts
servers, bots and benchmarks). Each module defines ``add_arguments(parser)`` and ``run(args)``
and is listed in :data:`server.cli.COMMANDS`.
"""
