"""Subcommands of the ``arena`` program that compose layers: they start servers with house
bots, run benchmarks, check bots and write golden files, so they may import every layer.
Each module defines ``add_arguments(parser)`` and ``run(args)`` and is listed in
:data:`tools.cli.COMMANDS`.
"""
