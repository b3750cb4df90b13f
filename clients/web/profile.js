// Ratings for people (protocol section 17): a person's profile page (#/player/<name>: ratings
// per game, rating history as a chart, recent matches), a game's leaderboard of people
// (#/people/<game>), the rated/casual choice of the seek and challenge forms, and links to
// profiles from names. Messages: get_profile, get_people_leaderboard; seek.rated,
// challenge.rated; match_end.ratings.

import { h, clear, formatWhen } from "./dom.js";
import { ratingChart } from "./ladder.js";
import { resultText } from "./results.js";

const fmt = (x, digits = 2) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));

/** A name that links to its profile (guests have none: plain text). */
export function playerLink(name, kind) {
  if (kind === "guest" || !name) return h("span", { class: ["player", `kind-${kind}`], title: kind }, name);
  return h("a", { href: `#/player/${encodeURIComponent(name)}`, class: ["player", "profile-link", `kind-${kind}`],
                  title: `${kind} · profile`, dataset: { profile: name } }, name);
}

/** The rated/casual choice of the seek and challenge forms (form.rated: boolean). Rated play
 *  is for signed-in people: a guest or a bot sees it off, with the reason. */
export function ratedField(form, account) {
  const person = account && (account.kind === "human" || account.kind === "admin");
  if (!person) form.rated = false;
  return h("label", { class: "check rated-choice", title: person ? "" : "rated play is for signed-in people" },
    h("input", { id: "play-rated", type: "checkbox", checked: Boolean(form.rated), disabled: !person,
                 onchange: (e) => { form.rated = e.target.checked; } }),
    person ? " Rated (changes both players' ratings)" : " Rated — sign in to play rated");
}

/** A line under a finished match: each seat's rating change (match_end.ratings). */
export function ratingChanges(ratings) {
  return h("div", { class: "rating-changes", id: "rating-changes" }, "Rating: ",
    ratings.map((r) => {
      const delta = r.after.ordinal - r.before.ordinal;
      return h("span", { class: "rating-change", dataset: { account: r.account } },
        playerLink(r.account, "human"), ` ${fmt(r.before.ordinal)} → ${fmt(r.after.ordinal)} `,
        h("span", { class: delta >= 0 ? "delta up" : "delta down" }, `(${delta >= 0 ? "+" : ""}${fmt(delta)})`));
    }));
}

export class ProfileView {
  constructor(root, conn, account, { gameTitle = (g) => g, games = [] } = {}) {
    this.root = root;
    this.conn = conn;
    this.account = account;
    this.gameTitle = gameTitle;
    this.games = games;
    this.game = null; // the game whose history the chart shows
    this.timer = null;
  }

  destroy() {
    clearInterval(this.timer);
  }

  async load() {
    clear(this.root).appendChild(h("p", { class: "muted" }, "Loading the profile…"));
    await this.refresh(true);
    this.timer = setInterval(() => this.refresh(false), 10000);
  }

  async refresh(first) {
    let profile;
    try {
      profile = await this.conn.ask({ type: "get_profile", account: this.account, limit: 50 });
    } catch (err) {
      if (first) clear(this.root).appendChild(h("div", { class: "card" }, h("p", {}, `No profile: ${err.message}`)));
      return;
    }
    if (!this.game || !profile.ratings.some((r) => r.game === this.game)) this.game = profile.ratings[0]?.game || null;
    this.draw(profile);
  }

  draw(profile) {
    const ratings = profile.ratings.length
      ? h("table", { class: "list person-ratings", id: "profile-ratings" },
          h("thead", {}, h("tr", {}, ["Game", "Rating", "μ", "σ", "Games", "W–D–L", ""].map((t) => h("th", { class: /[μσ]/.test(t) ? "greek" : null }, t)))),
          h("tbody", {}, profile.ratings.map((r) => h("tr", {
            class: r.game === this.game ? "selected" : null, dataset: { game: r.game, ordinal: r.ordinal.toFixed(4) },
            tabindex: 0, onclick: () => { this.game = r.game; this.draw(profile); },
          },
            h("td", {}, this.gameTitle(r.game)),
            h("td", { class: "num strong rating" }, fmt(r.ordinal)),
            h("td", { class: "num" }, fmt(r.mu)),
            h("td", { class: "num" }, fmt(r.sigma)),
            h("td", { class: "num games" }, String(r.games)),
            h("td", { class: "num wdl" }, `${r.wins}–${r.draws}–${r.losses}`),
            h("td", {}, h("a", { href: `#/people/${r.game}`, class: "button small subtle" }, "Leaderboard"))))))
      : h("p", { class: "muted empty", id: "profile-no-ratings" },
          profile.kind === "bot" ? "Bots are rated on the ladder." : "No rated match yet.");
    const points = profile.history.filter((p) => p.game === this.game);
    const chart = this.game
      ? h("section", { class: "card chart-card" },
          h("h2", {}, "Rating history · ", h("span", { class: "strong" }, this.gameTitle(this.game))),
          points.length ? ratingChart(points) : h("p", { class: "muted" }, "No rated match yet."),
          h("p", { class: "hint" }, "Rating = μ − 3σ (OpenSkill). The band is μ ± σ; click a point for that match's replay."))
      : null;
    const matches = h("section", { class: "card" }, h("h2", {}, "Recent matches"),
      profile.matches.length ? h("table", { class: "list profile-matches", id: "profile-matches" },
        h("thead", {}, h("tr", {}, ["Game", "Players", "Result", "", ""].map((t) => h("th", {}, t)))),
        h("tbody", {}, profile.matches.map((m) => h("tr", { dataset: { matchId: m.match_id, result: m.result || "", rated: String(m.rated) } },
          h("td", {}, this.gameTitle(m.game), h("div", { class: "muted" }, formatWhen(m.ended_at || m.started_at))),
          h("td", { class: "players" }, m.seats.map((s) => playerLink(s.name, s.kind))),
          h("td", { class: "result" }, m.status === "live" ? h("span", { class: "live-badge" }, "live")
            : h("span", {}, m.result ? h("strong", { class: `result-${m.result}` }, `${m.result} `) : null, h("span", { class: "muted" }, resultText(m)))),
          h("td", {}, h("span", { class: ["badge", m.rated ? "rated" : "casual"] }, m.rated ? "rated" : "casual")),
          h("td", {}, m.status === "live"
            ? h("a", { href: `#/m/${m.match_id}`, class: "button small" }, "Watch")
            : h("a", { href: `#/replay/${m.match_id}`, class: "button small", dataset: { action: "replay" } }, "Replay"))))))
        : h("p", { class: "muted" }, "None yet."));
    clear(this.root).append(
      h("div", { class: "card-head page-head" },
        h("h2", { id: "profile-name" }, profile.account, h("span", { class: ["kind", `kind-${profile.kind}`] }, profile.kind)),
        h("span", { class: "muted" }, `since ${formatWhen(profile.created_at)}`)),
      h("div", { class: "ladder-grid" },
        h("section", { class: "card" }, h("h2", {}, "Ratings"), ratings),
        h("div", {}, chart, matches)));
  }
}

export class PeopleBoardView {
  constructor(root, conn, game, { games = [] } = {}) {
    this.root = root;
    this.conn = conn;
    this.game = game;
    this.games = games;
    this.timer = null;
  }

  destroy() {
    clearInterval(this.timer);
  }

  async load() {
    clear(this.root).appendChild(h("p", { class: "muted" }, "Loading the leaderboard…"));
    await this.refresh();
    this.timer = setInterval(() => this.refresh(), 10000);
  }

  async refresh() {
    let board;
    try {
      board = await this.conn.ask({ type: "get_people_leaderboard", game: this.game, limit: 100 });
    } catch (err) {
      clear(this.root).appendChild(h("div", { class: "card" }, h("p", {}, `No leaderboard: ${err.message}`)));
      return;
    }
    const tabs = h("div", { class: "tabs game-tabs" }, this.games.map((g) =>
      h("a", { href: `#/people/${g.name}`, class: ["tab", g.name === this.game ? "active" : null], dataset: { game: g.name } }, g.title)));
    const table = board.entries.length
      ? h("table", { class: "list leaderboard", id: "people-leaderboard" },
          h("thead", {}, h("tr", {}, ["#", "Player", "Rating", "μ", "σ", "Games", "W–D–L"].map((t) => h("th", { class: /[μσ]/.test(t) ? "greek" : null }, t)))),
          h("tbody", {}, board.entries.map((e) => h("tr", { dataset: { rank: e.rank, account: e.account } },
            h("td", { class: "num" }, String(e.rank)),
            h("td", {}, playerLink(e.account, "human")),
            h("td", { class: "num strong" }, fmt(e.ordinal)),
            h("td", { class: "num" }, fmt(e.mu)),
            h("td", { class: "num" }, fmt(e.sigma)),
            h("td", { class: "num" }, String(e.games)),
            h("td", { class: "num wdl" }, `${e.wins}–${e.draws}–${e.losses}`)))))
      : h("p", { class: "muted empty" }, "Nobody has played this game rated yet.");
    clear(this.root).append(
      h("div", { class: "card-head page-head" }, h("h2", {}, "People's ratings"), tabs),
      h("section", { class: "card" }, table,
        h("p", { class: "hint" }, "Rated seeks and challenges change these; bots have ", h("a", { href: `#/ladder/${this.game}` }, "the ladder"), ".")));
  }
}
