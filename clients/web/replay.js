// The replay viewer: a match, stepped forward and back.
//
// The client asks for views in hello, so `get_replay` gives each step's public events and the
// spectator's view after it (`start_view` before the first), and for a finished match of a
// game with hidden information every seat's view too (its log is public once it is over: the
// Battle Line viewer shows both hands). Each position is drawn from those views by the game's
// own board (games.js); nothing is recomputed here. A live match is watched, not replayed:
// the viewer sends you there.
//
// It opens on the first position after the deal (the steps of chance that open a match — a
// Battle Line deal, a Boundary layout — are skipped; Home comes back there, ← still shows the
// positions before), and it is drawn as you saw it live: from your own seat if you played the
// match, else as a spectator sees it. ←/→ step, Home/End jump.

import { h, clear } from "./dom.js";
import { gameModule } from "./games.js";

export class ReplayView {
  /** `me`: this session's account name (a replay of your own match is drawn from your seat). */
  constructor(root, conn, matchId, { gameTitle = (g) => g, me = null } = {}) {
    this.root = root;
    this.me = me;
    this.opening = 0;        // the first position after the deal
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
      else if (e.key === "Home") this.go(this.opening);
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
      replay = await this.conn.askPatiently({ type: "get_replay", match_id: this.matchId });
    } catch (err) {
      clear(this.root).appendChild(h("div", { class: "card" }, h("p", {}, `No replay: ${err.message}`),
                                     h("a", { href: "#/matches", class: "button" }, "Matches")));
      return;
    }
    if (replay.status === "live" || !replay.log) {
      // (a finished match of a duplicate pair is sealed while its twin is played: same deal)
      const sealed = replay.status !== "live" && replay.pair;
      clear(this.root).appendChild(h("div", { class: "card" },
        h("p", {}, sealed
          ? "The other match of this duplicate pair, the same deal, is still being played: this replay is ready once it ends."
          : "This match is still being played: its replay is ready once it ends."),
        h("a", { href: `#/m/${sealed ? replay.pair.twin : this.matchId}`, class: "button primary" }, "Watch it live")));
      return;
    }
    this.replay = replay;
    this.game = gameModule(replay.game);
    this.frames = replayFrames(replay, this.game);
    this.opening = dealtIndex(replay);
    this.layout();
    this.go(this.opening);
  }

  layout() {
    const replay = this.replay;
    const boardRoot = h("div", { class: "board-root" });
    const mine = replay.seats.find((s) => s.name === this.me);
    this.board = new this.game.Board(boardRoot, { game: replay.game, seats: replay.seats, me: null,
                                                  pov: mine ? mine.seat : null, replay: true });
    this.slider = h("input", { type: "range", min: 0, max: this.frames.length - 1, value: 0, id: "replay-slider",
                               "aria-label": "step", oninput: (e) => this.go(Number(e.target.value)) });
    this.counter = h("span", { class: "step-counter", id: "replay-step" });
    this.caption = h("div", { class: "step-caption", id: "replay-caption" });
    const button = (action, label, title, fn) => h("button", { type: "button", dataset: { action }, title, onclick: fn }, label);
    this.playButton = button("play", "▶ Play", "play from here", () => this.togglePlay());
    const outcome = replay.outcome;
    const outcomeText = this.game.outcomeText(outcome, replay.seats, null);
    clear(this.root).append(
      h("div", { class: "match-head" },
        h("h2", {}, `Replay · ${this.gameTitle(replay.game)}`),
        h("span", { class: "muted" }, replay.seats.map((s) => s.name).join(" vs ")),
        h("span", { class: "outcome-tag", dataset: { outcome: outcome?.reason || "" } }, outcomeText),
        h("span", { class: "match-id" }, `match ${this.matchId}`),
        replay.pair ? h("a", { href: `#/replay/${replay.pair.twin}`, class: "button small", dataset: { action: "twin" },
                               title: "the same deal with the seats swapped" },
                        `Duplicate: game ${3 - replay.pair.game} of the pair`) : null),
      h("div", { class: "replay-controls", role: "toolbar", "aria-label": "replay controls" },
        button("first", "⇤", "first position after the deal (Home)", () => this.go(this.opening)),
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
    if (this.index >= this.frames.length - 1) this.go(this.opening);
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
    const last = i === this.frames.length - 1;
    this.board.showStep({ ...frame, outcome: last ? this.replay.outcome : null });
    this.board.root.dataset.step = String(i);
    this.slider.value = String(i);
    this.counter.textContent = `step ${i} / ${this.frames.length - 1}`;
    this.root.dataset.step = String(i);
    clear(this.caption).append(...(frame.caption || ["Start"]));
  }
}

/** The frame of the first position after the deal: past every opening step that is chance
 *  alone (a step's `actions` name only "chance"). */
export function dealtIndex(replay) {
  let index = 0;
  for (const step of replay.steps) {
    const actors = Object.keys(step.actions || {});
    if (!actors.length || actors.some((who) => who !== "chance")) break;
    index += 1;
  }
  return Math.min(index, replay.steps.length);
}

/** Who acted in a step, for the caption. */
function actorText(step, seats, seatLabel) {
  const entries = Object.entries(step.actions || {});
  if (!entries.length) return ["(no action)"];
  const [who, action] = entries[0];
  if (who === "chance") return ["chance"];
  return [seatLabel(Number(who), seats, null), ": ", JSON.stringify(action)];
}

/** One frame per position: the start, then after each step, with the log so far. */
function replayFrames(replay, game) {
  const frames = [{ seq: 0, view: replay.start_view, seatViews: replay.start_seat_views,
                    events: [], lines: [], caption: ["Start (before the deal)"] }];
  let lines = [];
  for (const step of replay.steps) {
    const stepLines = game.eventLines(step.events, replay.seats, null);
    lines = lines.concat(stepLines);
    const caption = stepLines.length ? [`Step ${step.seq}: `, ...stepLines[stepLines.length - 1]]
      : [`Step ${step.seq}: `, ...actorText(step, replay.seats, game.seatLabel)];
    frames.push({ seq: step.seq, view: step.view, seatViews: step.seat_views, events: step.events,
                  lines, caption });
  }
  return frames;
}
