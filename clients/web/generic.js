// The page of a game that has no module of its own (games.js): any game the server runs is
// playable and watchable here, with nothing of the game written in the browser.
//
// It shows the viewer's view — exactly what the server sent, as a readable tree — and the
// open request's legal actions as buttons, one per action, sending that action verbatim.
// It also provides the defaults a game module may leave out: seatLabel, outcomeText and
// eventLines (event text: the event's type and its fields).

import { h, formatClock, confirmButton } from "./dom.js";
import { MatchTable } from "./table.js";

/** Who a seat is, for the viewer: "You" or "Seat 1 (zoe)". */
export function seatLabel(seat, seats, me) {
  if (seat === me) return "You";
  const name = seats?.[seat]?.name;
  return name ? `Seat ${seat} (${name})` : `Seat ${seat}`;
}

export function outcomeText(outcome, seats, me) {
  if (!outcome) return "";
  const reason = String(outcome.reason || "").replace(/_/g, " ");
  const scores = outcome.scores ? ` · scores ${outcome.scores.join("–")}` : "";
  const winners = outcome.ranks.map((r, s) => (r === 0 ? s : null)).filter((s) => s !== null);
  if (winners.length === outcome.ranks.length) return `Draw — ${reason}${scores}`;
  if (me !== null && me !== undefined) {
    return `${winners.includes(me) ? "You win" : "You lose"} — ${reason}${scores}`;
  }
  const names = winners.map((s) => seatLabel(s, seats, me)).join(" and ");
  return `${names} ${winners.length > 1 ? "share first place" : "wins"} — ${reason}${scores}`;
}

/** "bid 3", "deck troop, card 7r": a compact text for an action or an event's fields. */
export function compactText(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return `[${value.map(compactText).join(", ")}]`;
  if (typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${k.replace(/_/g, " ")} ${compactText(v)}`).join(", ");
  }
  return String(value);
}

export function eventLines(events, seats, me) {
  return events.map((ev) => {
    const { type, seat, ...rest } = ev;
    const who = seat === undefined ? "" : `${seatLabel(seat, seats, me)}: `;
    const fields = Object.keys(rest).length ? ` — ${compactText(rest)}` : "";
    return [`${who}${type.replace(/_/g, " ")}${fields}`];
  });
}

/** The view as nested lists: objects as term/definition pairs, lists of plain values inline.
 *  Every node carries `data-path` (keys and indices joined by dots) for tests and styling. */
export function viewTree(value, path = "") {
  if (Array.isArray(value)) {
    if (value.every((x) => x === null || typeof x !== "object")) {
      return h("span", { class: "tree-list", dataset: { path } },
        value.length ? value.map((x) => h("span", { class: "tree-leaf" }, compactText(x))) : h("span", { class: "muted" }, "(none)"));
    }
    return h("ol", { class: "tree-items", start: 0, dataset: { path } },
      value.map((x, i) => h("li", {}, viewTree(x, path ? `${path}.${i}` : String(i)))));
  }
  if (value !== null && typeof value === "object") {
    return h("dl", { class: "tree", dataset: { path } }, Object.entries(value).map(([key, item]) => {
      const sub = path ? `${path}.${key}` : key;
      return [h("dt", {}, key.replace(/_/g, " ")), h("dd", {}, viewTree(item, sub))];
    }));
  }
  return h("span", { class: "tree-leaf", dataset: { path } }, compactText(value));
}

/** One match of a game without its own module. Options as for MatchTable. */
export class GenericBoard extends MatchTable {
  constructor(root, opts) {
    super(root, opts, "gn-root");
  }

  eventLines(events) {
    return eventLines(events, this.seats, this.me);
  }

  clockText(seat) {
    if (!this.clocks) return "untimed";
    let ms = this.clocks[seat];
    // Only our own clock is known to run: while our request is open.
    if (this.request && seat === this.me && !this.over && !this.replay) ms -= performance.now() - this.clockAt;
    return formatClock(ms);
  }

  render() {
    if (!this.view) return;
    const root = this.resetRoot();
    const outcome = this.over?.outcome;
    root.appendChild(h("div", { class: "gn-main" },
      outcome ? this.banner(outcome, outcomeText(outcome, this.seats, this.me)) : null,
      this.me !== null ? this.renderPrompt() : null,
      h("section", { class: "panel-box gn-view" },
        h("h3", {}, this.me === null ? "What everyone sees" : "What you see"),
        h("div", { class: "gn-tree", dataset: { viewTree: "" } }, viewTree(this.view)))));
    root.appendChild(h("aside", { class: "gn-panel" }, this.renderSeats(), this.renderLog()));
  }

  renderPrompt() {
    const legal = this.legal;
    let text;
    if (this.over) text = "The game is over.";
    else if (this.request) text = "Your move: pick one of your legal actions.";
    else text = this._sent ? "Sent…" : "Waiting…";
    const actions = legal.map((action, i) => h("button", {
      type: "button", class: "gn-action", title: JSON.stringify(action),
      dataset: { legalAction: i }, onclick: () => this.submit(action) }, compactText(action)));
    const resign = this.resign && !this.over
      ? confirmButton("Resign", "Really resign?", () => this.resign(), { class: "subtle", dataset: { action: "resign" } }, this)
      : null;
    return h("div", { class: ["bl-prompt", "gn-prompt", this.request ? "your-turn" : null] },
      h("span", { class: "prompt-text", role: "status" }, text),
      h("span", { class: "prompt-buttons gn-actions" }, actions, resign));
  }

  renderSeats() {
    return h("section", { class: "panel-box players" }, h("h3", {}, "Players"),
      this.seats.map((info, seat) => h("div", { class: "gn-seat", dataset: { seat } },
        h("span", { class: "seat-name" }, `Seat ${seat}`),
        h("span", { class: "player-name" }, info.name || "?"),
        h("span", { class: ["kind", `kind-${info.kind}`] }, info.kind || ""),
        seat === this.me ? h("span", { class: "you" }, "you") : null,
        this.replay ? null : h("span", { class: "clock", dataset: { clock: seat } }, this.clockText(seat)))));
  }

  renderLog() {
    return this.renderLogBox("Events · newest first");
  }
}

/** The registry's fallback board (games.js). */
export const Board = GenericBoard;
