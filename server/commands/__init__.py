"""Subcommands of the ``arena`` program.

These are the server's own commands: they use ``server/`` and ``engine/`` only. The commands
that compose layers (house bots, benchmarks, check-bot, golden files) live in
``tools/commands/``; :data:`tools.cli.COMMANDS` lists both. Each module defines
``add_arguments(parser)`` and ``run(args)``.
"""
