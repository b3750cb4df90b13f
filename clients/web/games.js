// The web client's games, by the name the server gives them (GameInfo.name).
//
// A game's module is the file games/<name>.js. It exports `Board` (a MatchTable subclass,
// table.js: it draws the views the server sends and picks actions from the open request's
// legal_actions) and may export `seatLabel`, `outcomeText` and `eventLines` (text for logs
// and replays). What it leaves out comes from generic.js, and a game with no module at all
// gets the generic page (its view as a readable tree, its legal actions as buttons) — never
// another game's board.
//
// Adding a game to the web client is adding its file to games/: the server lists that
// folder at /games/index.json, and every module listed there is loaded here, once, before
// the page starts (this module awaits them at its top level, so app.js and replay.js, which
// import it, run only once every board is known).

import * as generic from "./generic.js";

async function loadModules() {
  let names = [];
  try {
    const response = await fetch(new URL("games/index.json", import.meta.url), { cache: "no-cache" });
    if (response.ok) names = await response.json();
  } catch (err) {
    console.warn("no list of game modules; every game gets the generic page", err);
  }
  const loaded = await Promise.allSettled(names.map((name) => import(`./games/${name}.js`)));
  const modules = {};
  loaded.forEach((result, i) => {
    if (result.status === "fulfilled") modules[names[i]] = result.value;
    else console.warn(`game module ${names[i]} failed to load; it gets the generic page`, result.reason);
  });
  return modules;
}

const MODULES = await loadModules();

/** The names of the games that have a module of their own. */
export function gamesWithModules() {
  return Object.keys(MODULES).sort();
}

/** The module for `game`: its own, with generic.js filling what it leaves out. */
export function gameModule(game) {
  const own = Object.hasOwn(MODULES, game) ? MODULES[game] : null;
  return own ? { ...generic, ...own } : generic;
}
