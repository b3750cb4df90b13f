// What every game's board in the browser shares: its options, and how it is fed the
// protocol's messages. A board draws ONLY from the views the server sends (match_start,
// request, match_end, and the `view` every `events` message carries because the client asks
// for views in hello) and acts ONLY with the open request's `legal_actions`: no game rule
// and no event reducer lives in the browser.
//
// A game's board extends MatchTable and supplies copyView (its own view copy),
// clearSelection, eventLines(events) (log text) and render, and may narrow markable(ev) (which
// action events `this.last`, the move to mark, keeps). Replays feed it positions with showStep.

import { h, clear, formatClock } from "./dom.js";

export class MatchTable {
  constructor(root, opts, rootClass) {
    this.root = root;
    this.game = opts.game || null;
    this.seats = opts.seats || [];
    this.me = opts.me ?? null;
    // The seat the table is drawn from when the viewer holds none (a replay of a match the
    // viewer played: drawn as it was live); null: as a spectator sees it.
    this.pov = opts.pov ?? null;
    this.sendAction = opts.send || null;
    this.resign = opts.resign || null;
    this.replay = Boolean(opts.replay);
    this.view = null;
    this.seatViews = null;   // replays of finished matches: every seat's view (public by then)
    this.request = null;     // the open request, until answered
    this._sent = null;       // the request just answered, until the server says how it went
    this.log = [];
    this.clocks = null;
    this.clockAt = 0;
    this.seq = 0;
    this.over = null;        // match_end message
    this.last = null;        // the last markable action event (see markable), for boards to mark
    this.status = "live";
    this.clearSelection();
    this.root.classList.add(rootClass);
  }

  destroy() {}

  /** The seat whose side is drawn nearest the viewer: your own, or the replay's `pov`. */
  get nearSeat() {
    return this.me ?? this.pov;
  }

  copyView(view) {
    return JSON.parse(JSON.stringify(view));
  }

  clearSelection() {}

  /** Log lines (arrays of strings and nodes) for one step's events. */
  eventLines(events) {
    return events.map((ev) => [ev.type]);
  }

  start(msg) {
    this.seats = msg.seats;
    this.game = msg.game ?? this.game;
    this.view = this.copyView(msg.view);
    this.seq = msg.seq || 0;
    this.status = msg.status;
    this.setClocks(msg.clocks_ms);
    this.render();
  }

  setView(view) {
    this.view = this.copyView(view);
    this.render();
  }

  setClocks(clocks) {
    this.clocks = clocks ? [...clocks] : null;
    this.clockAt = performance.now();
  }

  onRequest(msg) {
    this.view = this.copyView(msg.view);
    this.request = msg;
    this.clearSelection();
    if (this.clocks && msg.clock_ms !== null && msg.clock_ms !== undefined) {
      this.clocks[msg.seat] = msg.clock_ms;
      this.clockAt = performance.now();
    }
    this.render();
  }

  /** An `events` message: the view it carries replaces ours; its events go to the log. */
  onEvents(msg) {
    if (msg.seq <= this.seq) return; // already reflected in the view (after a resume)
    this.seq = msg.seq;
    if (msg.view) this.view = this.copyView(msg.view);
    this.noteEvents(msg.events);
    if (msg.clocks_ms) this.setClocks(msg.clocks_ms);
    this.render();
  }

  /** What a board keeps of a step's events besides its view (the log; a last-move mark). */
  noteEvents(events) {
    this.addLog(this.eventLines(events));
    this.markLast(events);
  }

  /** Whether an event is an action a board marks as "the last move" (boards may narrow it). */
  markable(ev) {
    return ev.type === "action";
  }

  markLast(events) {
    for (const ev of events) if (this.markable(ev)) this.last = ev;
  }

  addLog(lines) {
    for (const line of lines) this.log.push(line);
    if (this.log.length > 400) this.log.splice(0, this.log.length - 400);
  }

  onEnd(msg) {
    this.over = msg;
    this.status = "over";
    this.request = null;
    if (msg.view) this.view = this.copyView(msg.view);
    this.render();
  }

  onError(msg) {
    // The request stays open after an illegal or malformed action: let the player retry.
    if (this._sent && msg.request_id === this._sent.request_id) {
      this.request = this._sent;
      this._sent = null;
      this.clearSelection();
      this.render();
    }
  }

  /** The open request's legal actions (none while waiting, or once over). */
  get legal() {
    // A game that describes an action space (Boundary) lists none: its board acts from
    // `request.action_space` itself; every other page sees an empty list, not a crash.
    return this.request && !this.over ? this.request.legal_actions ?? [] : [];
  }

  /** Answer the open request with `action` (always one of its legal_actions). */
  submit(action) {
    if (!this.request || !this.sendAction || !action) return;
    this._sent = this.request;
    this.request = null;
    this.clearSelection();
    this.sendAction(action, this._sent);
    this.render();
  }

  /** Clear the root and mark it with what tests and styles read: the game, the seq drawn,
   *  the open request, whether it is over, and who is looking. */
  resetRoot(over = Boolean(this.over)) {
    const root = clear(this.root);
    root.dataset.game = this.game || "";
    root.dataset.seq = String(this.seq);
    if (this.request) root.dataset.request = this.request.request_id;
    else delete root.dataset.request;
    if (over) root.dataset.over = "1";
    else delete root.dataset.over;
    root.dataset.viewer = this.me === null ? "spectator" : `seat-${this.me}`;
    return root;
  }

  /** The outcome banner, toned for this viewer (won, lost, or neutral: a draw, a spectator). */
  banner(outcome, text) {
    const mine = this.me !== null && outcome ? outcome.ranks[this.me] : null;
    const draw = outcome ? outcome.ranks.every((r) => r === outcome.ranks[0]) : true;
    const tone = mine === null || draw ? "banner-neutral" : mine === 0 ? "banner-win" : "banner-loss";
    return h("div", { class: ["banner", tone], dataset: { outcome: outcome?.reason || "" } },
      h("strong", {}, text));
  }

  /** A turn-based game's clock text for `seat`: its bank, counting down while `acting` (the
   *  seat the view names as the one to move) is that seat and the match goes on. */
  turnClockText(seat, acting) {
    if (!this.clocks) return "untimed";
    let ms = this.clocks[seat];
    if (acting === seat && !this.over && !this.replay) ms -= performance.now() - this.clockAt;
    return formatClock(ms);
  }

  /** The log box (`this.log`), newest first so the latest line is in sight. */
  renderLogBox(title) {
    return h("section", { class: "panel-box log" }, h("h3", {}, title),
      h("ol", { class: "log-list", reversed: true }, this.log.map((line) => h("li", {}, line)).reverse()));
  }

  /** Refresh only the clock texts (called a few times a second); boards give clockText. */
  tick() {
    for (const el of this.root.querySelectorAll("[data-clock]")) {
      el.textContent = this.clockText(Number(el.dataset.clock));
    }
  }

  /** A replay position: `step` = {view, seatViews, lines, events, outcome, seq}. */
  showStep(step) {
    this.last = null;
    this.markLast(step.events || []);
    this.seq = step.seq;
    this.log = step.lines;
    this.over = step.outcome ? { outcome: step.outcome } : null;
    this.seatViews = step.seatViews || null;
    this.setView(step.view);
  }
}
