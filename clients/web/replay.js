// The replay viewer: a finished match, stepped forward and back.
//
// `get_replay` of a finished match gives each step's public events plus the actions applied
// (chance outcomes included), so every position can be rebuilt here with the same reducers
// the live table uses. Because the match is over, its log is public: the Battle Line viewer
// shows both hands too (deal and draw cards come from the chance actions, a card drawn from
// a Scout-returned stack from the return that put it there). A live match has no log yet:
// the viewer sends you to watch it instead.

import { h, clear } from "./dom.js";
import * as bl from "./battleline.js";
import * as cx from "./chexers.js";

export class ReplayView {
  constructor(root, conn, matchId, { gameTitle = (g) => g } = {}) {
    this.root = root;
    this.conn = conn;
    this.matchId = matchId;
    this.gameTitle = gameTitle;
    this.frames = [];
    this.index = 0;
    this.playing = null;
    this.board = null;
    this._keys = (e) => {
      // A focused slider moves itself (and fires "input"); a text field keeps its keys.
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
      if (e.key === "ArrowRight") this.go(this.index + 1);
      else if (e.key === "ArrowLeft") this.go(this.index - 1);
      else if (e.key === "Home") this.go(0);
      else if (e.key === "End") this.go(this.frames.length - 1);
    };
    document.addEventListener("keydown", this._keys);
  }

  destroy() {
    document.removeEventListener("keydown", this._keys);
    clearInterval(this.playing);
    this.board?.destroy?.();
  }

  async load() {
    clear(this.root).appendChild(h("p", { class: "muted" }, "Loading the replay…"));
    let replay;
    try {
      replay = await this.conn.ask({ type: "get_replay", match_id: this.matchId });
    } catch (err) {
      clear(this.root).appendChild(h("div", { class: "card" }, h("p", {}, `No replay: ${err.message}`),
                                     h("a", { href: "#/matches", class: "button" }, "Matches")));
      return;
    }
    if (replay.status === "live" || !replay.log) {
      clear(this.root).appendChild(h("div", { class: "card" },
        h("p", {}, "This match is still being played: its replay is ready once it ends."),
        h("a", { href: `#/m/${this.matchId}`, class: "button primary" }, "Watch it live")));
      return;
    }
    this.replay = replay;
    this.frames = replay.game === "chexers" ? chexersFrames(replay) : battleLineFrames(replay);
    this.layout();
    this.go(0);
  }

  layout() {
    const replay = this.replay;
    const boardRoot = h("div", { class: "board-root" });
    const opts = { seats: replay.seats, me: null, replay: true };
    this.board = replay.game === "chexers" ? new cx.ChexersBoard(boardRoot, opts) : new bl.BattleLineTable(boardRoot, opts);
    this.slider = h("input", { type: "range", min: 0, max: this.frames.length - 1, value: 0, id: "replay-slider",
                               "aria-label": "step", oninput: (e) => this.go(Number(e.target.value)) });
    this.counter = h("span", { class: "step-counter", id: "replay-step" });
    this.caption = h("div", { class: "step-caption", id: "replay-caption" });
    const button = (action, label, title, fn) => h("button", { type: "button", dataset: { action }, title, onclick: fn }, label);
    this.playButton = button("play", "▶ Play", "play from here", () => this.togglePlay());
    const outcome = replay.outcome;
    const outcomeText = replay.game === "chexers" ? cx.outcomeText(outcome, replay.seats, null) : bl.outcomeText(outcome, replay.seats, null);
    clear(this.root).append(
      h("div", { class: "match-head" },
        h("h2", {}, `Replay · ${this.gameTitle(replay.game)}`),
        h("span", { class: "muted" }, replay.seats.map((s) => s.name).join(" vs ")),
        h("span", { class: "outcome-tag", dataset: { outcome: outcome?.reason || "" } }, outcomeText),
        h("span", { class: "match-id" }, `match ${this.matchId}`)),
      h("div", { class: "replay-controls", role: "toolbar", "aria-label": "replay controls" },
        button("first", "⇤", "first step (Home)", () => this.go(0)),
        button("prev", "◀", "step back (←)", () => this.go(this.index - 1)),
        this.playButton,
        button("next", "▶", "step forward (→)", () => this.go(this.index + 1)),
        button("last", "⇥", "last step (End)", () => this.go(this.frames.length - 1)),
        this.slider, this.counter),
      this.caption,
      boardRoot);
  }

  togglePlay() {
    if (this.playing) {
      clearInterval(this.playing);
      this.playing = null;
      this.playButton.textContent = "▶ Play";
      return;
    }
    if (this.index >= this.frames.length - 1) this.go(0);
    this.playButton.textContent = "❚❚ Pause";
    this.playing = setInterval(() => {
      if (this.index >= this.frames.length - 1) this.togglePlay();
      else this.go(this.index + 1);
    }, 350);
  }

  go(index) {
    const i = Math.max(0, Math.min(this.frames.length - 1, index));
    this.index = i;
    const frame = this.frames[i];
    this.board.seq = i;
    this.board.log = frame.lines;
    if (i === this.frames.length - 1 && this.replay.outcome) {
      this.board.over = { outcome: this.replay.outcome };
    } else {
      this.board.over = null;
    }
    this.board.last = frame.last || null;
    this.board.setView(frame.view);
    this.board.root.dataset.step = String(i);
    this.slider.value = String(i);
    this.counter.textContent = `step ${i} / ${this.frames.length - 1}`;
    this.root.dataset.step = String(i);
    clear(this.caption).append(...(frame.caption || ["Start"]));
  }
}

/** Who acted in a step, for the caption. */
function actorText(step, seats, seatLabel) {
  const entries = Object.entries(step.actions || {});
  if (!entries.length) return ["(no action)"];
  const [who, action] = entries[0];
  if (who === "chance") return ["chance"];
  return [seatLabel(Number(who), seats, null), ": ", JSON.stringify(action)];
}

function battleLineFrames(replay) {
  let view = replay.start ? bl.viewFromState(replay.start) : bl.initialView(replay.options);
  view.hands_cards = view.hands_cards || [[], []];
  const tops = { troop: [], tactics: [] };
  const frames = [{ view: bl.cloneView(view), lines: [], caption: ["Before the deal"] }];
  let lines = [];
  for (const step of replay.steps) {
    view = bl.cloneView(view);
    let chance = step.actions?.chance;
    const events = step.events.map((ev) => {
      const full = { ...ev };
      if (ev.type === "deal" || ev.type === "draw") {
        if (chance !== undefined) {
          full.card = chance;
          chance = undefined;
        } else if (ev.type === "draw") {
          full.card = tops[ev.deck].pop();
        }
      } else if (ev.type === "return") {
        full.card = step.actions?.[String(ev.seat)]?.card;
        tops[ev.deck].push(full.card);
      }
      return full;
    });
    for (const ev of events) bl.applyEvent(view, ev, null);
    lines = lines.concat(bl.eventLines(events, replay.seats, null));
    const caption = stepCaption(step, events, replay.seats, bl.seatLabel);
    frames.push({ view: bl.cloneView(view), lines, caption });
  }
  return frames;
}

function chexersFrames(replay) {
  let view = replay.start ? cx.viewFromState(replay.start) : cx.initialView();
  const frames = [{ view: cx.cloneView(view), lines: [], caption: ["Start"] }];
  let lines = [];
  for (const step of replay.steps) {
    view = cx.cloneView(view);
    let last = null;
    for (const ev of step.events) {
      cx.applyEvent(view, ev);
      if (ev.type === "action") last = ev;
    }
    lines = lines.concat(cx.eventLines(step.events, replay.seats, null));
    frames.push({ view: cx.cloneView(view), lines, last,
                  caption: stepCaption(step, step.events, replay.seats, cx.seatLabel, cx.eventLines) });
  }
  // The final position's to-move is meaningless once the match is over.
  frames[frames.length - 1].view.to_move_seat = null;
  return frames;
}

function stepCaption(step, events, seats, seatLabel, lineFn = bl.eventLines) {
  const lines = lineFn(events, seats, null);
  if (lines.length) return [`Step ${step.seq}: `, ...lines[lines.length - 1]];
  return [`Step ${step.seq}: `, ...actorText(step, seats, seatLabel)];
}

