"""Tools, not the product: the ``arena`` program's composition root (:mod:`tools.cli`), the
benchmarks (:mod:`tools.bench`), check-bot (:mod:`tools.checkbot`) and the golden
playthroughs (:mod:`tools.commands.golden`).

``tools/`` may import every layer; nothing in ``engine/``, ``protocol/``, ``server/``,
``bots/`` or ``clients/`` imports ``tools/`` (``tests/test_layers.py``).
"""
