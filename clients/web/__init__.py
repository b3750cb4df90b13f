"""The browser client: plain ES modules, CSS and SVG, served as they are by the server.

No build step. ``arena serve``/``arena run`` serve this folder at ``/`` (``server/http.py``
finds it by path, beside ``server/``; the server does not import ``clients/``). The page is
an ordinary protocol client: it speaks the JSON of ``protocol/PROTOCOL.md`` over ``/ws`` like
any bot. Modules:

* ``index.html``, ``style.css``, ``favicon.svg`` — the shell and its look;
* ``app.js`` — sign-in, lobby (house bots, queue, challenges), routing, match bookkeeping;
* ``protocol.js`` — the websocket connection (hello with ``views``, replies by ``ref``,
  resume);
* ``table.js`` — what every board shares: it is fed the protocol's messages and draws only
  the views they carry (every ``events`` message has one), acting only with legal actions;
* ``games.js`` — the registry of game modules by game name: it loads every module in
  ``games/`` (the server lists them at ``/games/index.json``); a game without a module gets
  ``generic.js``. Adding a game to the web client is adding one file, ``games/<game>.js``;
* ``games/battleline.js`` — Battle Line cards, the table and its composer of legal actions
  (claims, tactics, Scout and the guile cards);
* ``games/chexers.js`` — the Chexers hex board with exit counters;
* ``games/barca.js`` — the Barca board with its watering holes and scared, forced and trapped
  animals;
* ``games/boundary.js`` — the Boundary field (territory, treasures, pieces, blobs): plans
  dragged inside the discs of the request's ``action_space``, turns played back tick by tick;
* ``generic.js`` — any other game: the view as a readable tree, legal actions as buttons;
* ``replay.js`` — stepping through a finished match, drawn from the replay's per-step views;
* ``ladder.js`` — leaderboard and rating-history chart;
* ``tournament.js`` — the tournaments: a list with a form to create one, and one tournament's
  standings, crosstable and rounds, redrawn from each ``tournament`` message pushed
  (PROTOCOL.md section 18);
* ``extras.js`` — beside a match's board: ``chat.js`` (the players' or spectators' chat, lines
  as text, mute) and ``rematch.js`` (offer, accept or decline a rematch once it is over);
* ``seekform.js`` — the lobby's time controls (presets and a custom bank + increment) and
  the game's options; ``results.js`` — who won a finished match and how, for the lists;
* ``account.js`` — the account page: sign up, sign in and out, change the password, and the
  person's bots with their tokens (PROTOCOL.md section 16);
* ``profile.js`` — ratings for people: profile pages (ratings, rating history, recent
  matches), a game's leaderboard of people, the seek and challenge forms' "Rated" box, a
  rated match's rating changes, names linked to profiles (PROTOCOL.md section 17);
* ``dom.js`` — small DOM helpers.

Tests: ``tests/web`` (real Chromium through Playwright).
"""

from pathlib import Path

WEB_ROOT = Path(__file__).resolve().parent
"""This folder (for tools that want the files; the server finds them by path)."""
