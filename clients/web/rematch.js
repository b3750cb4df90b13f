// The rematch bar under a finished match, for its players (PROTOCOL.md `rematch`).
//
// Once the match is over: "Rematch" offers one. When another seat offers first, the bar says
// so and offers "Accept rematch" (the same message) and "Decline". When every seat has
// offered, the server starts the new match, seats swapped, and its match_start takes the
// page there (app.js). An offer lapses when a seat declines or leaves.

import { h, clear, toast } from "./dom.js";

export class RematchBar {
  /** `me`: the account name; `seats`: the finished match's SeatInfo list. */
  constructor(conn, matchId, { me }) {
    this.conn = conn;
    this.matchId = matchId;
    this.me = me;
    this.over = false;
    this.offered = [];       // seats that offered, as the server last said
    this.by = null;          // who offered last (another seat's offer is shown)
    this.mine = false;       // this page offered
    this.lapsed = null;      // rematch_declined message
    this.root = h("div", { class: "rematch-bar", dataset: { state: "hidden" } });
    this.offs = [
      conn.on("rematch_offered", (msg) => {
        if (msg.match_id !== this.matchId) return;
        this.offered = msg.seats;
        this.lapsed = null;
        if (msg.by !== this.me) this.by = msg.by;
        this.render();
      }),
      conn.on("rematch_declined", (msg) => {
        if (msg.match_id !== this.matchId) return;
        this.lapsed = msg;
        this.by = null;
        this.mine = false;
        this.offered = [];
        this.render();
      }),
    ];
    this.render();
  }

  destroy() {
    for (const off of this.offs) off();
  }

  /** The match ended: the bar shows. */
  ended() {
    this.over = true;
    this.render();
  }

  async offer() {
    try {
      await this.conn.ask({ type: "rematch", match_id: this.matchId });
      this.mine = true;
      this.lapsed = null;
      this.render();
    } catch (err) {
      toast(err.message, "error");
    }
  }

  async decline() {
    try {
      await this.conn.ask({ type: "decline_rematch", match_id: this.matchId });
    } catch (err) {
      toast(err.message, "error");
    }
    this.by = null;
    this.offered = [];
    this.render();
  }

  render() {
    const root = clear(this.root);
    if (!this.over) {
      root.dataset.state = "hidden";
      return;
    }
    let state;
    let parts;
    if (this.mine) {
      state = "waiting";
      parts = [h("span", { class: "spinner", "aria-hidden": "true" }), h("span", {}, "Rematch offered: waiting for the other players…")];
    } else if (this.by) {
      state = "offered";
      parts = [h("span", { class: "rematch-offer" }, `${this.by} offers a rematch (seats swapped).`),
               h("button", { type: "button", class: "primary", dataset: { action: "rematch" }, onclick: () => this.offer() }, "Accept rematch"),
               h("button", { type: "button", class: "subtle", dataset: { action: "decline-rematch" }, onclick: () => this.decline() }, "Decline")];
    } else {
      state = "idle";
      const why = this.lapsed ? `${this.lapsed.by} ${this.lapsed.reason === "left" ? "left" : "declined the rematch"}. ` : "";
      parts = [why ? h("span", { class: "muted rematch-lapsed" }, why) : null,
               h("button", { type: "button", dataset: { action: "rematch" }, onclick: () => this.offer() }, "Rematch")];
    }
    root.dataset.state = state;
    root.append(...parts.filter(Boolean));
  }
}
