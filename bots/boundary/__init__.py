"""Boundary's bots: the six basic strategies of the thesis and its adaptive agent (rules
§11), as pure policies (``choose(request) -> action``). See ``bots/boundary/README.md``."""
