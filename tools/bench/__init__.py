"""Benchmarks behind ``arena bench <name>``: programs that print figures (medians over repeated
runs), never timed assertions in tests.

One module per benchmark, listed in :data:`tools.commands.bench.BENCHMARKS`. A module defines

* ``HELP`` — one line for ``arena bench --help``;
* ``add_arguments(parser)`` — its own options (call :func:`tools.bench.measure.add_common`
  for the shared ``--repeat/--seconds/--json`` options);
* ``run(args) -> int`` — measure, print a table (or JSON with ``--json``) to stdout and
  progress to stderr; return the exit status.

:mod:`tools.bench.measure` holds the shared timing loop, statistics and output. Modules here
are tools, not the product: ``tools/`` may import every layer (DESIGN.md's arrows).
"""
