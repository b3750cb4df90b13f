// The ladder page: a game's leaderboard, one bot version's rating history as a chart, and
// the ladder's recent matches (each a link to its replay). Protocol section 14:
// get_leaderboard, get_rating_history, list_ladder_matches.

import { h, s, clear, formatWhen } from "./dom.js";

const fmt = (x, digits = 2) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));

export class LadderView {
  constructor(root, conn, game, { games = [] } = {}) {
    this.root = root;
    this.conn = conn;
    this.game = game;
    this.games = games;
    this.entries = [];
    this.selected = null;
    this.timer = null;
  }

  destroy() {
    clearInterval(this.timer);
  }

  async load() {
    clear(this.root).appendChild(h("p", { class: "muted" }, "Loading the ladder…"));
    await this.refresh(true);
    this.timer = setInterval(() => this.refresh(false), 10000);
  }

  async refresh(first) {
    let board;
    let recent;
    try {
      [board, recent] = await Promise.all([
        this.conn.ask({ type: "get_leaderboard", game: this.game, limit: 100 }),
        this.conn.ask({ type: "list_ladder_matches", game: this.game, limit: 15 }),
      ]);
    } catch (err) {
      if (first) {
        clear(this.root).append(this.tabs(), h("div", { class: "card" }, h("p", {}, `No ladder: ${err.message}`)));
      }
      return;
    }
    this.entries = board.entries;
    this.minGames = board.min_games;
    this.recent = recent.matches;
    if (!this.selected && this.entries.length) this.selected = this.entries[0];
    if (this.selected) {
      this.selected = this.entries.find((e) => sameEntity(e, this.selected)) || this.entries[0] || null;
    }
    let history = null;
    if (this.selected) {
      try {
        history = await this.conn.ask({ type: "get_rating_history", game: this.game, bot: this.selected.bot,
                                         version: this.selected.version, account: this.selected.account });
      } catch {
        history = null;
      }
    }
    this.draw(history);
  }

  tabs() {
    return h("div", { class: "tabs game-tabs" }, this.games.map((g) =>
      h("a", { href: `#/ladder/${g.name}`, class: ["tab", g.name === this.game ? "active" : null], dataset: { game: g.name } }, g.title)));
  }

  select(entry) {
    this.selected = entry;
    this.refresh(false);
  }

  draw(history) {
    const rows = this.entries.map((e) => h("tr", {
      class: [sameEntity(e, this.selected) ? "selected" : null, e.provisional ? "provisional" : null],
      dataset: { rank: e.rank, bot: e.bot, version: e.version, account: e.account },
      tabindex: 0, onclick: () => this.select(e), onkeydown: (ev) => { if (ev.key === "Enter") this.select(e); },
    },
      h("td", { class: "num" }, String(e.rank)),
      h("td", {}, h("span", { class: ["status-dot", e.online ? "status-open" : "status-closed"], title: e.online ? "online" : "offline" }),
        h("strong", {}, e.bot), " ", h("span", { class: "version" }, `v${e.version}`),
        e.provisional ? h("span", { class: "badge", title: `fewer than ${this.minGames} rated matches` }, "provisional") : null),
      h("td", { class: "muted" }, e.account),
      h("td", { class: "num strong" }, fmt(e.ordinal)),
      h("td", { class: "num" }, fmt(e.mu)),
      h("td", { class: "num" }, fmt(e.sigma)),
      h("td", { class: "num" }, String(e.games)),
      h("td", { class: "num wdl" }, `${e.wins}–${e.draws}–${e.losses}`)));
    const table = this.entries.length
      ? h("table", { class: "list leaderboard", id: "leaderboard" },
          h("thead", {}, h("tr", {}, ["#", "Bot", "Account", "Rating", "μ", "σ", "Games", "W–D–L"].map((t) => h("th", { class: /[μσ]/.test(t) ? "greek" : null }, t)))),
          h("tbody", {}, rows))
      : h("p", { class: "muted empty", id: "leaderboard-empty" },
          "No bot is on this ladder yet. Put one on: ", h("code", {}, `arena bot NAME --ladder ${this.game} --version 1 --token TOKEN`));
    const chart = this.selected
      ? h("section", { class: "card chart-card" },
          h("h2", {}, "Rating history · ", h("span", { class: "strong" }, `${this.selected.bot} v${this.selected.version}`),
            h("span", { class: "muted" }, ` (${this.selected.account})`)),
          history && history.points.length ? ratingChart(history.points)
            : h("p", { class: "muted" }, "No rated match yet."),
          h("p", { class: "hint" }, "Rating = μ − 3σ (OpenSkill). The band is μ ± σ; click a point for that match's replay."))
      : null;
    const recent = h("section", { class: "card" }, h("h2", {}, "Recent ladder matches"),
      this.recent?.length ? h("table", { class: "list ladder-matches" },
        h("thead", {}, h("tr", {}, ["Ended", "Seats", "Result", ""].map((t) => h("th", {}, t)))),
        h("tbody", {}, this.recent.map((m) => h("tr", { dataset: { matchId: m.match_id, status: m.status } },
          h("td", { class: "muted" }, formatWhen(m.ended_at || m.started_at)),
          h("td", {}, m.seats.map((seat) => h("span", { class: ["player", seat.rank === 0 ? "winner" : null] },
            `${seat.bot} v${seat.version}`,
            seat.ordinal_after !== null && seat.ordinal_after !== undefined && seat.ordinal_before !== null
              ? h("span", { class: seat.ordinal_after >= seat.ordinal_before ? "delta up" : "delta down" },
                  ` ${seat.ordinal_after >= seat.ordinal_before ? "+" : ""}${fmt(seat.ordinal_after - seat.ordinal_before)}`)
              : null))),
          h("td", {}, m.status === "live" ? h("span", { class: "live-badge" }, "live") : `${m.status} · ${m.reason || ""}`),
          h("td", {}, m.status === "live"
            ? h("a", { href: `#/m/${m.match_id}`, class: "button small" }, "Watch")
            : h("a", { href: `#/replay/${m.match_id}`, class: "button small", dataset: { action: "replay" } }, "Replay"))))))
        : h("p", { class: "muted" }, "None yet."));
    clear(this.root).append(
      h("div", { class: "card-head page-head" }, h("h2", {}, "Ladder"), this.tabs()),
      h("div", { class: "ladder-grid" },
        h("section", { class: "card" }, h("h2", {}, "Leaderboard"), table),
        h("div", {}, chart, recent)));
  }
}

function sameEntity(a, b) {
  return a && b && a.bot === b.bot && a.version === b.version && a.account === b.account;
}

/** An SVG line chart of the ordinal after each rated match, with the μ ± σ band. */
export function ratingChart(points) {
  const W = 560;
  const H = 240;
  const pad = { l: 44, r: 14, t: 14, b: 30 };
  const lows = points.map((p) => Math.min(p.ordinal, p.mu - p.sigma));
  const highs = points.map((p) => Math.max(p.ordinal, p.mu + p.sigma));
  let lo = Math.min(...lows);
  let hi = Math.max(...highs);
  if (hi - lo < 1) { hi += 0.5; lo -= 0.5; }
  const span = hi - lo;
  lo -= span * 0.05;
  hi += span * 0.05;
  const n = points.length;
  const x = (i) => pad.l + (n === 1 ? (W - pad.l - pad.r) / 2 : (i * (W - pad.l - pad.r)) / (n - 1));
  const y = (v) => pad.t + ((hi - v) * (H - pad.t - pad.b)) / (hi - lo);
  const line = (key) => points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`).join(" ");
  const band = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.mu + p.sigma).toFixed(1)}`).join(" ")
    + points.slice().reverse().map((p, j) => `L${x(n - 1 - j).toFixed(1)},${y(p.mu - p.sigma).toFixed(1)}`).join(" ") + " Z";
  const ticks = [];
  for (let k = 0; k <= 4; k += 1) {
    const v = lo + ((hi - lo) * k) / 4;
    ticks.push(s("g", { class: "tick" },
      s("line", { x1: pad.l, x2: W - pad.r, y1: y(v).toFixed(1), y2: y(v).toFixed(1) }),
      s("text", { x: pad.l - 6, y: (y(v) + 4).toFixed(1), "text-anchor": "end" }, v.toFixed(1))));
  }
  const dots = points.map((p, i) => s("a", { href: `#/replay/${p.match_id}` },
    s("circle", { class: ["dot", p.rank === 0 ? "dot-win" : "dot-loss"], cx: x(i).toFixed(1), cy: y(p.ordinal).toFixed(1), r: 4,
                  dataset: { matchId: p.match_id } },
      s("title", {}, `match ${i + 1} · ${p.rank === 0 ? "first" : `rank ${p.rank + 1}`} · rating ${fmt(p.ordinal)} (μ ${fmt(p.mu)}, σ ${fmt(p.sigma)})`))));
  return s("svg", { class: "rating-chart", id: "rating-chart", viewBox: `0 0 ${W} ${H}`, role: "img",
                    "aria-label": `rating after each of ${n} rated matches` },
    s("g", { class: "ticks" }, ticks),
    s("path", { class: "band", d: band }),
    s("path", { class: "mu", d: line("mu") }),
    s("path", { class: "ordinal", d: line("ordinal") }),
    s("g", { class: "dots" }, dots),
    s("text", { class: "axis-label", x: pad.l, y: H - 8 }, "match 1"),
    s("text", { class: "axis-label", x: W - pad.r, y: H - 8, "text-anchor": "end" }, `match ${n}`));
}
