"""Tuning tools: self-play match scoring and the SPSA tuner of the Barca agent
(``arena tune barca``; rules/barca.md §12.4-§12.5)."""
