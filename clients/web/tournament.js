// The tournaments pages: the list (and a form to create one), and one tournament's page with
// its standings, crosstable and rounds, redrawn from every `tournament` message the server
// pushes (PROTOCOL.md section 18: list_tournaments, tournament_create, tournament_join,
// tournament_leave, tournament_start, tournament_show).

import { h, clear, toast, formatWhen } from "./dom.js";

const DONE = new Set(["over", "void", "forfeit", "bye"]);

/** 1, ½, 1½, 0.25 … as a person writes points. */
export function pointsText(x) {
  const whole = Math.floor(x);
  const rest = x - whole;
  if (rest === 0) return String(whole);
  if (Math.abs(rest - 0.5) < 1e-9) return `${whole || ""}½`;
  return String(Math.round(x * 100) / 100);
}

export class TournamentsView {
  constructor(root, conn, tournamentId, { games = [], me = null } = {}) {
    this.root = root;
    this.conn = conn;
    this.id = tournamentId;
    this.games = games;
    this.me = me;
    this.state = null;
    this.off = conn.on("tournament", (msg) => {
      if (msg.tournament_id === this.id) this.draw(msg);
    });
  }

  destroy() {
    this.off();
  }

  async load() {
    clear(this.root).appendChild(h("p", { class: "muted" }, "Loading…"));
    try {
      if (this.id) this.draw(await this.conn.ask({ type: "tournament_show", tournament_id: this.id }));
      else this.drawList((await this.conn.ask({ type: "list_tournaments", limit: 50 })).tournaments);
    } catch (err) {
      clear(this.root).appendChild(h("div", { class: "card" }, h("p", {}, `No tournament: ${err.message}`)));
    }
  }

  async act(message) {
    try {
      const reply = await this.conn.ask({ ...message, tournament_id: this.id });
      if (reply.type === "tournament") this.draw(reply);
      else this.load();
    } catch (err) {
      toast(err.message, "error");
    }
  }

  // ---- the list -----------------------------------------------------------------------------

  drawList(list) {
    const rows = list.map((t) => h("tr", { dataset: { tournamentId: t.tournament_id, status: t.status } },
      h("td", {}, h("a", { href: `#/tournament/${t.tournament_id}` }, t.name)),
      h("td", {}, t.game), h("td", {}, t.format.replace("_", " ")),
      h("td", { class: "num" }, String(t.entrant_count)),
      h("td", {}, t.status === "running" ? `round ${t.round} of ${t.rounds}` : t.status),
      h("td", { class: "muted" }, formatWhen(t.created_at))));
    clear(this.root).append(
      h("div", { class: "card-head page-head" }, h("h2", {}, "Tournaments")),
      h("section", { class: "card" }, list.length
        ? h("table", { class: "list tournaments", id: "tournament-list" },
            h("thead", {}, h("tr", {}, ["Name", "Game", "Format", "Entrants", "Status", "Created"].map((x) => h("th", {}, x)))),
            h("tbody", {}, rows))
        : h("p", { class: "muted empty" }, "No tournament yet.")),
      this.me && this.me.kind !== "guest" ? this.createForm() : h("p", { class: "hint" }, "Sign in to create or join one."));
  }

  createForm() {
    const game = h("select", { name: "game" }, this.games.map((g) => h("option", { value: g.name }, g.title)));
    const format = h("select", { name: "format" }, h("option", { value: "swiss" }, "Swiss"),
      h("option", { value: "round_robin" }, "Round robin"));
    const rounds = h("input", { name: "rounds", type: "number", min: 1, value: 3 });
    const name = h("input", { name: "name", placeholder: "name (optional)", maxlength: 80 });
    const submit = async (ev) => {
      ev.preventDefault();
      const info = this.games.find((g) => g.name === game.value);
      const message = { type: "tournament_create", game: game.value, format: format.value };
      if (format.value === "swiss") message.rounds = Number(rounds.value);
      else if (info && info.min_seats > 2) message.seats = info.min_seats;
      if (name.value.trim()) message.name = name.value.trim();
      try {
        const made = await this.conn.ask(message);
        window.location.hash = `#/tournament/${made.tournament_id}`;
      } catch (err) {
        toast(err.message, "error");
      }
    };
    return h("section", { class: "card" }, h("h2", {}, "New tournament"),
      h("form", { id: "tournament-create", class: "inline-form", onsubmit: submit },
        game, format, h("label", {}, "rounds ", rounds), name, h("button", { type: "submit" }, "Create")));
  }

  // ---- one tournament -----------------------------------------------------------------------

  draw(state) {
    this.state = state;
    const me = this.me?.name;
    const entered = state.entrants.some((e) => e.name === me);
    const mayRun = me === state.creator || this.me?.kind === "admin";
    const buttons = state.status !== "open" || !this.me || this.me.kind === "guest" ? [] : [
      entered ? h("button", { type: "button", dataset: { action: "leave" }, onclick: () => this.act({ type: "tournament_leave" }) }, "Leave")
              : h("button", { type: "button", dataset: { action: "join" }, onclick: () => this.act({ type: "tournament_join" }) }, "Join"),
      mayRun ? h("button", { type: "button", dataset: { action: "start" }, onclick: () => this.act({ type: "tournament_start" }) }, "Start") : null];
    const round = state.status === "open" ? "open for entrants"
      : state.status === "over" ? `over after ${state.rounds} rounds` : `round ${state.round} of ${state.rounds}`;
    clear(this.root).append(
      h("div", { class: "card-head page-head" },
        h("h2", {}, state.name),
        h("span", { class: "muted" }, `${state.game} · ${state.format.replace("_", " ")} · `),
        h("span", { id: "tournament-status", dataset: { status: state.status, round: state.round } }, round),
        h("span", { class: "actions" }, buttons)),
      h("div", { class: "tournament-grid" },
        h("section", { class: "card" }, h("h2", {}, "Standings"), standings(state)),
        h("section", { class: "card" }, h("h2", {}, "Crosstable"), crosstable(state))),
      h("section", { class: "card" }, h("h2", {}, "Rounds"), rounds(state)));
  }
}

function standings(state) {
  if (!state.standings.length) return h("p", { class: "muted empty" }, "No entrant yet.");
  return h("table", { class: "list standings", id: "standings" },
    h("thead", {}, h("tr", {}, ["#", "Entrant", "Points", "Games", "W–D–L", "Byes", "Buchholz", "S-B"].map((x) => h("th", {}, x)))),
    h("tbody", {}, state.standings.map((s) => h("tr", { dataset: { name: s.name, points: s.points } },
      h("td", { class: "num" }, String(s.rank)),
      h("td", {}, h("a", { href: `#/player/${encodeURIComponent(s.name)}` }, s.name), h("span", { class: ["kind", `kind-${s.kind}`] }, s.kind)),
      h("td", { class: "num strong" }, pointsText(s.points)),
      h("td", { class: "num" }, String(s.games)),
      h("td", { class: "num wdl" }, `${s.wins}–${s.draws}–${s.losses}`),
      h("td", { class: "num" }, String(s.byes)),
      h("td", { class: "num" }, pointsText(s.buchholz)),
      h("td", { class: "num" }, pointsText(s.sonneborn_berger))))));
}

function crosstable(state) {
  const { names, cells } = state.crosstable;
  if (!names.length) return h("p", { class: "muted empty" }, "—");
  return h("table", { class: "list crosstable", id: "crosstable" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), names.map((_, j) => h("th", { class: "num" }, String(j + 1))))),
    h("tbody", {}, names.map((name, i) => h("tr", { dataset: { name } },
      h("th", {}, `${i + 1}. ${name}`),
      cells[i].map((cell) => h("td", { class: ["num", cell === null ? "self" : null] },
        cell === null ? "·" : cell.length ? cell.map(pointsText).join(" ") : ""))))));
}

function rounds(state) {
  if (!state.pairings.length) return h("p", { class: "muted empty" }, "Not started.");
  const byRound = new Map();
  for (const p of state.pairings) {
    if (!byRound.has(p.round)) byRound.set(p.round, []);
    byRound.get(p.round).push(p);
  }
  return h("div", { class: "rounds" }, [...byRound].map(([n, list]) => h("div", { class: "round", dataset: { round: n } },
    h("h3", {}, `Round ${n}`),
    h("ul", {}, list.map((p) => h("li", { dataset: { board: p.board, status: p.status } },
      p.seats.length === 1 ? `${p.seats[0]}: bye` : p.seats.map((name, seat) =>
        `${name}${p.points ? ` (${pointsText(p.points[seat])})` : ""}`).join(" – "),
      " ", p.status === "live" ? h("a", { href: `#/m/${p.match_id}`, class: "button small" }, "Watch")
        : p.match_id && DONE.has(p.status) ? h("a", { href: `#/replay/${p.match_id}`, class: "button small" }, "Replay")
        : h("span", { class: "muted" }, p.status === "bye" ? "" : p.status)))))));
}
