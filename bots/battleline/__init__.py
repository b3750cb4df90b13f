"""Battle Line bots: Deep Barca (the seed paper's agent) and the greedy baseline.

| bot | name | module |
|---|---|---|
| Deep Barca | ``deep-barca`` | :mod:`bots.battleline.deep_barca` |
| greedy | ``greedy`` (for Battle Line) | :mod:`bots.battleline.greedy` |
| random | ``random`` | :mod:`bots.random_bot` (every game) |

Deep Barca claims every proven flag, plays tactics by the paper's rules, discards on lost flags
by wishlists and otherwise makes the troop play with the best modelled chance of winning the
game. Greedy claims and makes the troop play whose side can still reach the strongest
formation against the opponent's best there. Random makes any legal action.

Every bot decides from ``request["view"]`` and ``request["legal_actions"]`` alone — the seat's
view, exactly as the server sends it — and never touches a socket: ``arena bot deep-barca
--game battleline --server ws://… --token …`` runs it as an ordinary client. Building blocks:
:mod:`bots.battleline.board` (the public table, one play applied, claim proofs through the
engine), :mod:`bots.battleline.formations` (the formations a side can still make),
:mod:`bots.battleline.model` (the paper's probabilistic model). README.md in this directory
has the design, the deviations from the paper and the measured strength and speed.
"""
