"""Named weight files of the Barca agent (``<name>.json``): ``start`` is the rule book's
starting point (§12.2), ``tuned`` the result of ``arena tune barca`` that the bot plays by
default. Loaded by :func:`bots.barca.weights_file.load_weights`."""
