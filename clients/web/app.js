// The Tabletop Arena web client: sign-in, lobby, matches (play and watch), replays, ladder.
//
// It is an ordinary client of the protocol (protocol/PROTOCOL.md), exactly like a bot: one
// websocket, JSON frames, the same messages. Pages are hash routes:
//   #/            lobby: sign in, play a house bot, queue, challenge, live matches
//   #/matches     live and recent matches
//   #/m/<id>      a match: your seat if you hold one, otherwise spectating (public view)
//   #/replay/<id> a finished match, step by step
//   #/ladder/<g>  a game's ladder: leaderboard and rating history
//   #/people/<g>  a game's leaderboard of people (rated play)
//   #/player/<n>  a person's profile: ratings, rating history, recent matches
//   #/tournaments  tournaments (and a form to create one); #/tournament/<id>: one, live
// No build step: the browser loads these ES modules as they are.
//
// Boards come from the registry of game modules (games.js) by the match's game name; every
// board draws only the views the server sends — the connection asks for views in hello, so
// each `events` message carries the viewer's view — and acts only with legal_actions.

import { ArenaConnection, wsUrl } from "./protocol.js";
import { h, clear, toast, formatWhen } from "./dom.js";
import { gameModule } from "./games.js";
import { ReplayView } from "./replay.js";
import { LadderView } from "./ladder.js";
import { TournamentsView } from "./tournament.js";
import { AccountView } from "./account.js";
import { TableExtras } from "./extras.js";
import { resultText } from "./results.js";
import { PeopleBoardView, ProfileView, playerLink, ratedField, ratingChanges } from "./profile.js";
import { DEFAULT_PRESET, clockFields, clockOf, optionFields, optionsOf } from "./seekform.js";

/** House bots as `arena run` names their accounts (house-<bot>-<n>): `play_bot.bot` takes an
 *  account name. "Server's choice" sends no name (the game's strongest available bot). */
export const HOUSE_BOTS = {
  battleline: [
    { account: "house-deep-barca-1", label: "Deep Barca", note: "search with formation analysis" },
    { account: "house-greedy-1", label: "Greedy", note: "best immediate formation" },
    { account: "house-random-1", label: "Random", note: "any legal action" },
  ],
  chexers: [
    { account: "house-maxn-1", label: "Max-n", note: "max-n search" },
    { account: "house-paranoid-1", label: "Paranoid", note: "assumes both rivals gang up" },
    { account: "house-mp-mix-1", label: "MP-Mix", note: "switches strategy by position" },
    { account: "house-offensive-1", label: "Offensive", note: "hunts the leader" },
    { account: "house-greedy-1", label: "Greedy", note: "best move one ply deep" },
    { account: "house-random-maxn-1", label: "Random max-n", note: "max-n with noise" },
    { account: "house-random-1", label: "Random", note: "any legal action" },
  ],
  barca: [
    { account: "house-barca-1", label: "Barca agent", note: "evaluation vector, alpha-beta 3 plies" },
    { account: "house-greedy-1", label: "Greedy", note: "best evaluation one ply deep" },
    { account: "house-random-1", label: "Random", note: "any legal action" },
  ],
  boundary: [
    { account: "house-adaptive-1", label: "Adaptive", note: "guesses your strategy and counters it" },
    { account: "house-greedy-1", label: "Greedy Treasure", note: "races for the nearest treasures" },
    { account: "house-best-treasure-1", label: "Best Treasure", note: "treasure value over distance" },
    { account: "house-greedy-capture-1", label: "Greedy Capture", note: "pairs up, then hunts pieces" },
    { account: "house-hybrid-capture-1", label: "Hybrid Capture", note: "pairs up, hunts or takes treasure, whichever is nearer" },
    { account: "house-defensive-treasure-1", label: "Defensive Treasure", note: "groups of three after treasure" },
    { account: "house-defensive-capture-1", label: "Defensive Capture", note: "groups of three that hunt" },
    { account: "house-random-1", label: "Random", note: "any point in reach" },
  ],
};


const app = {
  conn: new ArenaConnection(wsUrl(), { views: true }),
  welcome: null,
  games: [],
  matches: new Map(),     // match_id -> {start, board, root, spectating}
  challenges: new Map(),  // incoming: challenge_id -> challenge message
  sent: new Map(),        // outgoing: challenge_id -> {to, game}
  seeks: new Map(),       // seek_id -> {game}
  page: null,             // {name, destroy()}
  lobbyForm: { game: "battleline", mode: "bot", bot: "", clock: DEFAULT_PRESET, seat: "0",
               accounts: "" },
};
window.arenaApp = app; // for the browser console; nothing depends on it

// ---- identity -------------------------------------------------------------------------------

const IDENTITY_KEY = "arena.identity";
const SESSION_KEY = "arena.session";

function savedIdentity() {
  try {
    return JSON.parse(localStorage.getItem(IDENTITY_KEY) || "null");
  } catch {
    return null;
  }
}

async function signIn(identity, remember = false) {
  sessionStorage.removeItem(SESSION_KEY);
  if (remember && identity.token) localStorage.setItem(IDENTITY_KEY, JSON.stringify({ token: identity.token }));
  else if (identity.name !== undefined) localStorage.setItem(IDENTITY_KEY, JSON.stringify({ name: identity.name }));
  else localStorage.removeItem(IDENTITY_KEY);
  for (const record of app.matches.values()) dropRecord(record);
  app.matches.clear();
  app.challenges.clear();
  app.sent.clear();
  app.seeks.clear();
  const welcome = await app.conn.open(identity);
  return welcome;
}

/** A guest signed up or in (PROTOCOL.md section 16): the session is the account's now, and
 *  this browser says hello with the login token next time. */
function signedIn(reply) {
  localStorage.setItem(IDENTITY_KEY, JSON.stringify({ token: reply.login_token }));
  app.conn.setIdentity({ token: reply.login_token });
  app.welcome = { ...app.welcome, account: reply.account };
  renderHeader();
}

/** Revoke this browser's login token (the server closes the session), then go on as a guest. */
async function signOut() {
  await app.conn.ask({ type: "sign_out" });
  localStorage.removeItem(IDENTITY_KEY);
  await signIn({ name: "guest" });
}

async function boot() {
  const conn = app.conn;
  conn.on("welcome", (welcome) => {
    app.welcome = welcome;
    sessionStorage.setItem(SESSION_KEY, welcome.session);
    renderHeader();
  });
  conn.on("status", () => renderHeader());
  conn.on("session_lost", () => toast("The server had forgotten this session: you are signed in anew.", "error"));
  conn.on("match_start", onMatchStart);
  conn.on("request", (msg) => app.matches.get(msg.match_id)?.board.onRequest(msg));
  conn.on("events", (msg) => app.matches.get(msg.match_id)?.board.onEvents(msg));
  conn.on("match_end", onMatchEnd);
  conn.on("error", onError);
  conn.on("challenge", (msg) => {
    app.challenges.set(msg.challenge_id, msg);
    toast(`${msg.from} challenges you to ${gameTitle(msg.game)}`);
    refreshLobby();
  });
  conn.on("challenge_declined", (msg) => {
    app.sent.delete(msg.challenge_id);
    app.challenges.delete(msg.challenge_id);
    toast(`${msg.by} declined the challenge`, "error");
    refreshLobby();
  });

  const identity = savedIdentity() || { name: "guest" };
  const resume = sessionStorage.getItem(SESSION_KEY);
  try {
    if (resume) await conn.open({ resume, ...(identity.token ? { token: identity.token } : {}) }, identity);
    else await conn.open(identity);
  } catch (err) {
    if (resume) {
      try {
        await signIn(identity.token ? identity : { name: identity.name || "guest" });
      } catch (again) {
        await signIn({ name: "guest" });
        toast(`Sign-in failed: ${again.message}`, "error");
      }
    } else if (identity.token) {
      toast(`Token refused: ${err.message}; continuing as a guest`, "error");
      await signIn({ name: "guest" });
    } else {
      showFatal(`Cannot reach the server: ${err.message}`);
      return;
    }
  }
  const games = await conn.ask({ type: "list_games" });
  app.games = games.games;
  window.addEventListener("hashchange", route);
  setInterval(() => app.page?.tick?.(), 200);
  route();
}

function showFatal(text) {
  const main = document.getElementById("main");
  clear(main).appendChild(h("div", { class: "card fatal" }, h("h2", {}, "Offline"), h("p", {}, text),
    h("button", { type: "button", onclick: () => window.location.reload() }, "Try again")));
}

function gameTitle(name) {
  return app.games.find((g) => g.name === name)?.title || name;
}

// ---- match messages (whatever page is shown) -------------------------------------------------

function newBoard(msg, spectating) {
  const root = h("div", { class: "board-root", dataset: { matchId: msg.match_id } });
  const opts = {
    game: msg.game,
    seats: msg.seats,
    me: msg.your_seat,
    send: spectating ? null : (action, request) => {
      try {
        app.conn.answer(request, action);
      } catch (err) {
        toast(err.message, "error");
      }
    },
    resign: spectating ? null : () => app.conn.ask({ type: "resign", match_id: msg.match_id })
      .catch((err) => toast(err.message, "error")),
  };
  const board = new (gameModule(msg.game).Board)(root, opts);
  const extras = new TableExtras(app.conn, msg, { spectating, me: app.welcome?.account?.name });
  return { start: msg, board, root, spectating, extras };
}

/** A match's record is let go: its board and what sits beside it stop listening. */
function dropRecord(record) {
  record.board.destroy?.();
  record.extras.destroy();
}

function onMatchStart(msg) {
  let record = app.matches.get(msg.match_id);
  const spectating = msg.your_seat === null;
  if (!record) {
    record = newBoard(msg, spectating);
    app.matches.set(msg.match_id, record);
    if (!spectating && msg.ref === undefined && !currentMatchIs(msg.match_id)) {
      toast(`${gameTitle(msg.game)} match started`);
      window.location.hash = `#/m/${msg.match_id}`;
    }
  }
  record.start = msg;
  record.board.start(msg);
  if (app.page?.name === "lobby") refreshLobby();
}

function onMatchEnd(msg) {
  const record = app.matches.get(msg.match_id);
  if (!record) return;
  record.ended = msg;
  record.board.onEnd(msg);
  record.extras.ended();
  if (app.page?.name === "lobby") refreshLobby();
}

function onError(msg) {
  if (msg.match_id && msg.request_id) {
    app.matches.get(msg.match_id)?.board.onError(msg);
    toast(`${msg.code.replace(/_/g, " ")}: ${msg.message}`, "error");
  } else if (msg.ref === undefined) {
    toast(`${msg.code}: ${msg.message}`, "error");
  }
}

function currentMatchIs(matchId) {
  return app.page?.name === "match" && app.page.matchId === matchId;
}

// ---- header ------------------------------------------------------------------------------------

function renderHeader() {
  const header = document.getElementById("header");
  if (!header) return;
  const hash = window.location.hash || "#/";
  const link = (href, label, match) => h("a", { href, class: ["nav-link", match(hash) ? "active" : null] }, label);
  const account = app.welcome?.account;
  clear(header).appendChild(h("div", { class: "header-inner" },
    h("a", { href: "#/", class: "brand" }, h("span", { class: "brand-mark", "aria-hidden": "true" }, "⚑"), "Tabletop Arena"),
    h("nav", {},
      link("#/", "Lobby", (x) => x === "#/" || x === "#" || x === ""),
      link("#/matches", "Matches", (x) => x.startsWith("#/matches") || x.startsWith("#/m/") || x.startsWith("#/replay")),
      link("#/ladder", "Ladder", (x) => x.startsWith("#/ladder")),
      link("#/people", "Ratings", (x) => x.startsWith("#/people")),
      link("#/tournaments", "Tournaments", (x) => x.startsWith("#/tournament")),
      account && account.kind !== "guest"
        ? link(`#/player/${encodeURIComponent(account.name)}`, "Profile", (x) => x.startsWith("#/player/")) : null,
      link("#/account", "Account", (x) => x.startsWith("#/account"))),
    h("div", { class: "who" },
      h("span", { class: ["status-dot", `status-${app.conn.status}`], title: `connection: ${app.conn.status}` }),
      account ? h("span", { id: "whoami", dataset: { kind: account.kind } }, account.name,
                  h("span", { class: ["kind", `kind-${account.kind}`] }, account.kind)) : "…")));
}

// ---- routing ---------------------------------------------------------------------------------------

function route() {
  const hash = window.location.hash.replace(/^#/, "") || "/";
  const parts = hash.split("/").filter(Boolean);
  const main = document.getElementById("main");
  if (app.page) {
    app.page.destroy?.();
    app.page = null;
  }
  clear(main);
  renderHeader();
  if (parts[0] === "m" && parts[1]) showMatch(main, decodeURIComponent(parts[1]));
  else if (parts[0] === "replay" && parts[1]) showReplay(main, decodeURIComponent(parts[1]));
  else if (parts[0] === "ladder") showLadder(main, parts[1] ? decodeURIComponent(parts[1]) : null);
  else if (parts[0] === "matches") showMatches(main);
  else if (parts[0] === "player" && parts[1]) showPage(main, "profile", (root) =>
    new ProfileView(root, app.conn, decodeURIComponent(parts[1]), { gameTitle, games: app.games }));
  else if (parts[0] === "people") showPage(main, "people", (root) =>
    new PeopleBoardView(root, app.conn, parts[1] ? decodeURIComponent(parts[1]) : app.games[0]?.name || "battleline",
                        { games: app.games }));
  else if (parts[0] === "tournaments" || (parts[0] === "tournament" && parts[1])) showPage(main, "tournament", (root) =>
    new TournamentsView(root, app.conn, parts[1] ? decodeURIComponent(parts[1]) : null,
                        { games: app.games, me: app.welcome?.account }));
  else if (parts[0] === "account") showAccount(main);
  else showLobby(main);
}

// ---- match page ---------------------------------------------------------------------------------------

function showMatch(main, matchId) {
  const page = { name: "match", matchId, destroy: null, tick: null };
  app.page = page;
  const frame = h("div", { class: "match-page" });
  const head = h("div", { class: "match-head" });
  main.appendChild(head);
  main.appendChild(frame);

  const attach = (record) => {
    clear(head).append(...[
      h("h2", {}, gameTitle(record.start.game),
        h("span", { class: "muted" }, record.spectating ? " · spectating (public view)" : " · you play")),
      h("span", { class: "match-id" }, `match ${matchId}`),
      h("a", { href: "#/", class: "button subtle" }, "Lobby"),
      record.ended || record.start.status !== "live"
        ? h("a", { href: `#/replay/${matchId}`, class: "button subtle", dataset: { action: "open-replay" } }, "Replay") : null,
      record.ended?.ratings ? ratingChanges(record.ended.ratings) : null,
    ].filter(Boolean));
    clear(frame).append(record.root, record.extras.root);
    page.tick = () => record.board.tick();
  };

  let record = app.matches.get(matchId);
  if (record) {
    attach(record);
  } else {
    frame.appendChild(h("p", { class: "muted" }, "Joining the match as a spectator…"));
    app.conn.ask({ type: "spectate", match_id: matchId })
      .then(() => {
        if (app.page !== page) return;
        record = app.matches.get(matchId);
        if (record) attach(record);
      })
      .catch((err) => {
        if (app.page !== page) return;
        clear(frame).appendChild(h("div", { class: "card" },
          h("p", {}, `Cannot watch this match: ${err.message}`),
          h("a", { href: `#/replay/${matchId}`, class: "button" }, "Try its replay")));
      });
  }
  // Refresh the head when the match ends (the replay link appears).
  const off = app.conn.on("match_end", (msg) => {
    if (msg.match_id === matchId && app.matches.get(matchId)) attach(app.matches.get(matchId));
  });
  page.destroy = () => {
    off();
    const current = app.matches.get(matchId);
    if (current?.spectating) {
      // Stop watching: the server stops sending its events.
      app.conn.ask({ type: "leave", match_id: matchId }).catch(() => {});
      dropRecord(current);
      app.matches.delete(matchId);
    } else if (current?.ended) {
      dropRecord(current);
      app.matches.delete(matchId);
    }
  };
}

function showReplay(main, matchId) {
  const root = h("div", { class: "replay-page" });
  main.appendChild(root);
  const view = new ReplayView(root, app.conn, matchId, { gameTitle, me: app.welcome?.account?.name });
  app.page = { name: "replay", destroy: () => view.destroy() };
  view.load();
}

function showAccount(main) {
  const root = h("div", { class: "account-page" });
  main.appendChild(root);
  const view = new AccountView(root, app.conn, { account: () => app.welcome?.account, signedIn, signOut });
  app.page = { name: "account", destroy: () => view.destroy() };
  view.load();
}

/** A page made by a view with load() and destroy() (profiles, people's leaderboards). */
function showPage(main, name, make) {
  const root = h("div", { class: `${name}-page` });
  main.appendChild(root);
  const view = make(root);
  app.page = { name, destroy: () => view.destroy() };
  view.load();
}

function showLadder(main, game) {
  const root = h("div", { class: "ladder-page" });
  main.appendChild(root);
  const chosen = game || app.games[0]?.name || "battleline";
  const view = new LadderView(root, app.conn, chosen, { games: app.games });
  app.page = { name: "ladder", destroy: () => view.destroy() };
  view.load();
}

// ---- matches list -----------------------------------------------------------------------------------------

function matchRows(matches, { compact = false } = {}) {
  if (!matches.length) return h("p", { class: "muted empty" }, "No matches yet.");
  const mine = app.welcome?.account?.name;
  return h("table", { class: "list matches-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "Players"), h("th", {}, "Moves"),
                     compact ? null : h("th", {}, "Started"), h("th", {}, "Result"), h("th", {}, ""))),
    h("tbody", {}, matches.map((m) => {
      const live = m.status === "live";
      const seated = m.seats.some((s) => s.name === mine) && app.matches.has(m.match_id);
      return h("tr", { dataset: { matchId: m.match_id, status: m.status } },
        h("td", {}, gameTitle(m.game)),
        h("td", { class: "players" }, m.seats.map((s) => playerLink(s.name, s.kind))),
        h("td", { class: "num" }, String(m.moves)),
        compact ? null : h("td", { class: "muted" }, formatWhen(m.started_at)),
        h("td", { class: "result" }, live ? h("span", { class: "live-badge" }, "live") : h("span", { class: "result-text", dataset: { result: m.outcome?.reason || "" } }, resultText(m))),
        h("td", { class: "row-actions" },
          live ? h("a", { href: `#/m/${m.match_id}`, class: "button small", dataset: { action: seated ? "open" : "watch" } }, seated ? "Open" : "Watch")
               : h("a", { href: `#/replay/${m.match_id}`, class: "button small", dataset: { action: "replay" } }, "Replay")));
    })));
}

function showMatches(main) {
  const box = h("div", { class: "card wide" }, h("h2", {}, "Matches"), h("p", { class: "muted" }, "Loading…"));
  main.appendChild(box);
  let filter = "";
  let pages = 1; // pages of the listing shown; "Older matches" adds one
  let timer = null;
  const load = async () => {
    try {
      // The server lists one page per request, newest first; follow `next` for each page shown.
      const matches = [];
      let cursor = null;
      for (let page = 0; page < pages; page++) {
        const reply = await app.conn.ask({ type: "list_matches", ...(filter ? { game: filter } : {}), ...(cursor ? { cursor } : {}) });
        matches.push(...reply.matches);
        cursor = reply.next;
        if (!cursor) break;
      }
      if (app.page?.name !== "matches") return;
      clear(box).append(
        h("div", { class: "card-head" }, h("h2", {}, "Matches"),
          h("select", { id: "matches-filter", onchange: (e) => { filter = e.target.value; pages = 1; load(); } },
            h("option", { value: "" }, "all games"),
            app.games.map((g) => h("option", { value: g.name, selected: g.name === filter }, g.title)))),
        h("p", { class: "muted" }, "Newest first: watch a live match (you see only the public view), replay a finished one."),
        matchRows(matches),
        ...(cursor ? [h("button", { class: "button small", onclick: () => { pages += 1; load(); } }, "Older matches")] : []));
    } catch (err) {
      toast(err.message, "error");
    }
  };
  app.page = { name: "matches", destroy: () => clearInterval(timer) };
  load();
  timer = setInterval(load, 3000);
}

// ---- lobby ------------------------------------------------------------------------------------------------

let lobbyRefresh = null;

function refreshLobby() {
  if (app.page?.name === "lobby") lobbyRefresh?.();
}

function showLobby(main) {
  const grid = h("div", { class: "lobby" });
  main.appendChild(grid);
  let liveMatches = null;
  let timer = null;
  const render = () => {
    clear(grid).append(
      h("div", { class: "lobby-col" }, renderIdentity(), renderPlay(), renderChallenges()),
      h("div", { class: "lobby-col" }, renderMine(), h("section", { class: "card", id: "live-matches" },
        h("div", { class: "card-head" }, h("h2", {}, "Live and recent matches"), h("a", { href: "#/matches", class: "muted" }, "all")),
        liveMatches ? matchRows(liveMatches.slice(0, 12), { compact: true }) : h("p", { class: "muted" }, "Loading…"))));
  };
  const loadMatches = async () => {
    try {
      const reply = await app.conn.ask({ type: "list_matches", limit: 12 });
      liveMatches = reply.matches;
      if (app.page?.name === "lobby") {
        const box = document.getElementById("live-matches");
        if (box) box.replaceWith(h("section", { class: "card", id: "live-matches" },
          h("div", { class: "card-head" }, h("h2", {}, "Live and recent matches"), h("a", { href: "#/matches", class: "muted" }, "all")),
          matchRows(liveMatches.slice(0, 12), { compact: true })));
      }
    } catch {
      /* offline for a moment: the next round will do */
    }
  };
  lobbyRefresh = render;
  app.page = { name: "lobby", destroy: () => { clearInterval(timer); lobbyRefresh = null; } };
  render();
  loadMatches();
  timer = setInterval(loadMatches, 3000);
}

function renderIdentity() {
  const account = app.welcome?.account;
  const nameInput = h("input", { id: "signin-name", type: "text", maxlength: 40, placeholder: "a name", autocomplete: "nickname" });
  const tokenInput = h("input", { id: "signin-token", type: "password", placeholder: "account token", autocomplete: "off" });
  const remember = h("input", { id: "signin-remember", type: "checkbox" });
  const run = async (identity, rememberIt) => {
    try {
      await signIn(identity, rememberIt);
      toast(`Signed in as ${app.welcome.account.name}`);
      refreshLobby();
    } catch (err) {
      toast(`Sign-in failed: ${err.message}`, "error");
      try {
        await signIn({ name: "guest" });
      } catch { /* shown by the status dot */ }
      refreshLobby();
    }
  };
  return h("section", { class: "card identity" },
    h("h2", {}, "You"),
    account ? h("p", { class: "signed-in" }, "Signed in as ", h("strong", { id: "account-name" }, account.name), " ",
                h("span", { class: ["kind", `kind-${account.kind}`] }, account.kind)) : null,
    h("details", { class: "signin", open: account?.kind === "guest" ? false : null },
      h("summary", {}, account?.kind === "guest" ? "Sign in with a name or an account token" : "Switch account"),
      h("form", { class: "row-form", onsubmit: (e) => { e.preventDefault(); run({ name: nameInput.value.trim() || "guest" }); } },
        h("label", {}, "Guest name", nameInput), h("button", { type: "submit", dataset: { action: "guest" } }, "Play as guest")),
      h("form", { class: "row-form", onsubmit: (e) => { e.preventDefault(); if (tokenInput.value) run({ token: tokenInput.value.trim() }, remember.checked); } },
        h("label", {}, "Token", tokenInput),
        h("label", { class: "check" }, remember, "remember on this browser"),
        h("button", { type: "submit", dataset: { action: "token" } }, "Sign in"))),
    account?.kind === "guest" ? h("p", {}, h("a", { href: "#/account", id: "account-link", class: "button" }, "Sign up or sign in with a password")) : null,
    h("p", { class: "hint" }, "Bots' tokens: make them on your ", h("a", { href: "#/account" }, "account page"),
      " or with ", h("code", {}, "arena account create NAME"), "."));
}

function renderPlay() {
  const form = app.lobbyForm;
  const game = app.games.find((g) => g.name === form.game) || app.games[0];
  if (!game) return h("section", { class: "card" }, h("p", {}, "No games on this server."));
  const set = (key) => (e) => { form[key] = e.target.value; refreshLobby(); };
  const modeTab = (mode, label) => h("button", { type: "button", class: ["tab", form.mode === mode ? "active" : null],
                                                 dataset: { mode }, onclick: () => { form.mode = mode; refreshLobby(); } }, label);
  const bots = HOUSE_BOTS[game.name] || [];
  const seatNames = game.seat_names || [];
  const fields = [];
  if (form.mode === "bot") {
    fields.push(h("label", {}, "House bot",
      h("select", { id: "play-bot", onchange: set("bot") },
        h("option", { value: "" }, "server's choice (strongest available)"),
        bots.map((b) => h("option", { value: b.account, selected: b.account === form.bot }, `${b.label} — ${b.note}`)))));
    fields.push(h("label", {}, "Your seat",
      h("select", { id: "play-seat", onchange: set("seat") },
        seatNames.map((name, i) => h("option", { value: String(i), selected: String(i) === form.seat },
          `${name[0].toUpperCase()}${name.slice(1)}${i === 0 && !game.simultaneous ? " (moves first)" : ""}`)),
        h("option", { value: "random", selected: form.seat === "random" }, "random"))));
  } else if (form.mode === "challenge") {
    const others = game.min_seats - 1;
    fields.push(h("label", {}, others > 1 ? `Accounts to invite (${others}, comma-separated)` : "Account to invite",
      h("input", { id: "challenge-accounts", type: "text", value: form.accounts, placeholder: others > 1 ? "ann, bob" : "ann",
                   oninput: (e) => { form.accounts = e.target.value; } })));
  }
  fields.push(...clockFields(form, refreshLobby), ...optionFields(game, form));
  if (form.mode !== "bot") fields.push(ratedField(form, app.welcome?.account));
  const go = { bot: "Play", seek: "Find an opponent", challenge: "Send challenge" }[form.mode];
  const seeking = [...app.seeks.entries()];
  return h("section", { class: "card play" },
    h("h2", {}, "Play"),
    h("div", { class: "tabs game-tabs" }, app.games.map((g) =>
      h("button", { type: "button", class: ["tab", g.name === game.name ? "active" : null], dataset: { game: g.name },
                    onclick: () => { form.game = g.name; form.bot = ""; form.seat = "0"; refreshLobby(); } }, g.title))),
    h("p", { class: "muted summary" }, game.summary || ""),
    h("div", { class: "tabs mode-tabs" }, modeTab("bot", "House bot"), modeTab("seek", "Queue against people"), modeTab("challenge", "Challenge an account")),
    h("form", { class: "play-form", onsubmit: (e) => { e.preventDefault(); startPlay(game); } },
      fields, h("button", { type: "submit", class: "primary", id: "play-go" }, go)),
    seeking.length ? h("div", { class: "seeking" }, seeking.map(([id, s]) =>
      h("div", { class: "seek-row", dataset: { seekId: id } }, h("span", { class: "spinner", "aria-hidden": "true" }),
        `Looking for ${gameTitle(s.game)} opponents…`,
        h("button", { type: "button", class: "subtle", dataset: { action: "cancel-seek" }, onclick: () => cancelSeek(id) }, "Cancel")))) : null);
}

function optionsFor(game) {
  return optionsOf(game, app.lobbyForm);
}

async function startPlay(game) {
  const form = app.lobbyForm;
  try {
    const clock = clockOf(form);
    if (form.mode === "bot") {
      const seat = form.seat === "random" ? Math.floor(Math.random() * game.min_seats) : Number(form.seat);
      const msg = { type: "play_bot", game: game.name, options: optionsFor(game), clock, seat };
      if (form.bot) msg.bot = form.bot;
      const start = await app.conn.ask(msg);
      window.location.hash = `#/m/${start.match_id}`;
    } else if (form.mode === "seek") {
      const reply = await app.conn.ask({ type: "seek", game: game.name, options: optionsFor(game), clock, seats: game.min_seats,
                                         ...(form.rated ? { rated: true } : {}) });
      app.seeks.set(reply.seek_id, { game: game.name });
      refreshLobby();
    } else {
      const accounts = form.accounts.split(",").map((x) => x.trim()).filter(Boolean);
      const reply = await app.conn.ask({ type: "challenge", game: game.name, accounts, options: optionsFor(game), clock,
                                         ...(form.rated ? { rated: true } : {}) });
      app.sent.set(reply.challenge_id, { to: accounts, game: game.name });
      toast(`Challenge sent to ${accounts.join(", ")}`);
      refreshLobby();
    }
  } catch (err) {
    toast(err.code === "not_found" && form.mode === "bot"
      ? `That house bot is not connected right now (${err.message})` : `${err.message}`, "error");
  }
}

async function cancelSeek(id) {
  try {
    await app.conn.ask({ type: "cancel_seek", seek_id: id });
  } catch (err) {
    toast(err.message, "error");
  }
  app.seeks.delete(id);
  refreshLobby();
}

// A clock as people say it: "5 min + 3 s", "10 s a move", both, or "untimed".
function clockLabel(clock) {
  if (!clock) return "untimed";
  const parts = [];
  if (clock.initial_ms !== undefined) {
    parts.push(`${Math.round(clock.initial_ms / 60000)} min + ${(clock.increment_ms ?? 0) / 1000} s`);
  }
  if (clock.decision_ms !== undefined) parts.push(`${clock.decision_ms / 1000} s a move`);
  return parts.join(", ");
}

function renderChallenges() {
  const incoming = [...app.challenges.values()];
  const outgoing = [...app.sent.entries()];
  if (!incoming.length && !outgoing.length) return null;
  return h("section", { class: "card challenges" }, h("h2", {}, "Challenges"),
    incoming.map((c) => h("div", { class: "challenge-row", dataset: { challengeId: c.challenge_id } },
      h("span", {}, h("strong", {}, c.from), ` invites you to ${gameTitle(c.game)}`,
        ` (${clockLabel(c.clock)}${c.rated ? ", rated" : ""})`),
      h("button", { type: "button", class: "primary", dataset: { action: "accept" }, onclick: () => answerChallenge(c, true) }, "Accept"),
      h("button", { type: "button", class: "subtle", dataset: { action: "decline" }, onclick: () => answerChallenge(c, false) }, "Decline"))),
    outgoing.map(([id, c]) => h("div", { class: "challenge-row outgoing", dataset: { challengeId: id } },
      h("span", { class: "spinner", "aria-hidden": "true" }), `Waiting for ${c.to.join(", ")} (${gameTitle(c.game)})`)));
}

async function answerChallenge(challenge, accept) {
  app.challenges.delete(challenge.challenge_id);
  try {
    await app.conn.ask({ type: accept ? "accept" : "decline", challenge_id: challenge.challenge_id });
  } catch (err) {
    toast(err.message, "error");
  }
  refreshLobby();
}

function renderMine() {
  const mine = [...app.matches.entries()].filter(([, r]) => !r.spectating);
  // A seek or challenge that became a match is no longer pending.
  for (const [id, r] of app.sent) if (mine.some(([, m]) => m.start.game === r.game)) app.sent.delete(id);
  for (const [id] of app.seeks) if (mine.some(([, m]) => !m.ended && m.start.game === app.seeks.get(id).game)) app.seeks.delete(id);
  if (!mine.length) return null;
  return h("section", { class: "card mine" }, h("h2", {}, "Your matches"),
    h("ul", { class: "plain" }, mine.map(([id, r]) => h("li", {},
      h("a", { href: `#/m/${id}` }, `${gameTitle(r.start.game)} against ${r.start.seats.filter((s) => s.seat !== r.start.your_seat).map((s) => s.name).join(", ")}`),
      r.ended ? h("span", { class: "muted" }, " · over") : h("span", { class: "live-badge" }, "live")))));
}

boot();
