// The web client's games, by the name the server gives them (GameInfo.name).
//
// A game module exports `Board` (a MatchTable subclass, table.js: it draws the views the
// server sends and picks actions from the open request's legal_actions) and may export
// `seatLabel`, `outcomeText` and `eventLines` (text for logs and replays). What it leaves
// out comes from generic.js, and a game with no module at all gets the generic page (its
// view as a readable tree, its legal actions as buttons) — never another game's board.
//
// Adding a game to the web client: write its module, add it below.

import * as generic from "./generic.js";
import * as battleline from "./battleline.js";
import * as chexers from "./chexers.js";

const MODULES = { battleline, chexers };

/** The module for `game`: its own, with generic.js filling what it leaves out. */
export function gameModule(game) {
  const own = Object.hasOwn(MODULES, game) ? MODULES[game] : null;
  return own ? { ...generic, ...own } : generic;
}
