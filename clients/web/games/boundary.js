// Boundary in the browser (the web client's module for the game "boundary"): the 800 × 800
// field in SVG, its influence colours, the treasures, both teams' pieces and their blobs;
// a turn is planned by dragging pieces inside their discs, and a resolved turn is played
// back tick by tick.
//
// Perfect information: every viewer's view is the same (`phase`, `turn`, `scores`, `field`,
// `pieces` {id, team, x, y, blob, prev}, `blobs` {members, move_radius, influence_radius},
// `treasures`, `taken`, `captured`, `last`, `result`, and `territory`: every 2 × 2-pixel
// cell's colour as run-length text). The board draws only those views and the events:
//   * planning: the open request has no legal_actions but an `action_space` (engine/spaces.py):
//     a record {turn: const, moves: subset of piece id → point {center, radius, min, max}}.
//     Each own piece the space names shows its disc; dragging the piece puts its target at
//     the pointer held inside that disc and the field (integer pixels, as the point node
//     says); "Submit plan" sends {turn, moves} for the pieces dragged (the rest stay), "Stay"
//     the empty plan. The server's `committed` event acknowledges the plan (to this seat
//     only; every other viewer learns only that the seat is in: its "ready" flag), and
//     match_start repeats both (`committed`, `commitment`) after a reconnect.
//   * resolution: the `resolution` event's walks (piece, from, to: one pixel a tick for
//     ⌈distance⌉ ticks) animate the pieces from the previous view, the captures and taken
//     treasures vanish at the ticks the event gives, then the new view (which the same
//     `events` message carries) is drawn as it is: it is the truth.
// Where a piece walks in between is only drawn, never decided here: no capture, influence
// or blob rule is worked out in the browser. Shapes: engine/boundary/__init__.py.

import { h, s, confirmButton, formatClock } from "../dom.js";
import { MatchTable } from "../table.js";

export const TEAMS = ["blue", "red"];
const CELL = 2;                          // pixels per influence cell side
const CELL_RGB = {                       // territory colours: blue, red, neutral
  a: [150, 188, 230], b: [236, 164, 152], n: [232, 228, 214],
};
const PIECE_R = 9;                       // piece radius in field pixels
const LIVE_MS = 1600;                    // a live turn's playback, at most (25 ms a tick)
const REPLAY_MS = 320;                   // a replay step's playback (the player steps every 350 ms)

function teamName(team) {
  return TEAMS[team][0].toUpperCase() + TEAMS[team].slice(1);
}

export function seatLabel(seat, seats, me) {
  if (seat === me) return `You (${teamName(seat)})`;
  const name = seats?.[seat]?.name;
  return name ? `${teamName(seat)} (${name})` : teamName(seat);
}

const REASONS = { treasures: "every treasure taken", elimination: "a side lost its last piece",
                  turn_limit: "turn limit", timeout: "time", resignation: "resignation",
                  forfeit: "forfeit", void: "void (server fault)" };

export function outcomeText(outcome, seats, me) {
  if (!outcome) return "";
  const reason = REASONS[outcome.reason] || String(outcome.reason).replace(/_/g, " ");
  const scores = outcome.scores ? ` · ${outcome.scores.join("–")}` : "";
  const winner = outcome.ranks.indexOf(0);
  if (outcome.ranks.every((r) => r === 0)) return `Draw — ${reason}${scores}`;
  if (me !== null && me !== undefined) return `${winner === me ? "You win" : "You lose"} — ${reason}${scores}`;
  return `${seatLabel(winner, seats, me)} wins — ${reason}${scores}`;
}

/** Log text for one resolution event's inner event (`kind`): captures, treasures, blobs. */
function happeningText(ev, seats, me) {
  const by = ev.by === undefined ? "" : seatLabel(ev.by, seats, me);
  if (ev.kind === "piece_captured") return `tick ${ev.tick}: ${by} captured piece ${ev.piece} (+${ev.points})`;
  if (ev.kind === "treasure_captured") return `tick ${ev.tick}: ${by} took treasure ${ev.treasure} (+${ev.points})`;
  if (ev.kind === "merge") return `tick ${ev.tick}: ${teamName(ev.team)} pieces ${ev.into.join(", ")} joined up`;
  if (ev.kind === "split") return `tick ${ev.tick}: ${teamName(ev.team)} blob ${ev.blob.join(", ")} split`;
  return `tick ${ev.tick}: ${String(ev.kind).replace(/_/g, " ")}`;
}

export function eventLines(events, seats, me) {
  return events.flatMap((ev) => {
    if (ev.type === "resolution") {
      const happenings = (ev.events || []).filter((x) => x.kind === "piece_captured" || x.kind === "treasure_captured");
      return [...happenings.map((x) => [happeningText(x, seats, me)]),
              [`Turn ${ev.turn}: ${ev.ticks} ticks — ${ev.scores.join("–")}${ev.result ? ` — ${REASONS[ev.result] || ev.result}` : ""}`]];
    }
    // Who is in on a turn is a flag on the players, not a log line (every turn has two).
    if (ev.type === "committed") return [];
    if (ev.type === "timeout") {
      const who = ev.seats.map((x) => seatLabel(x, seats, me)).join(", ");
      return [[ev.default ? `${who} missed the deadline: no moves this turn` : `${who} ran out of time`]];
    }
    if (ev.type === "setup") return [[`Layout ${ev.layout}`]];
    if (ev.type === "forfeit") return [[`${ev.seats.map((x) => seatLabel(x, seats, me)).join(", ")} forfeited`]];
    if (["resigned", "disconnected", "reconnected"].includes(ev.type)) return [[`${seatLabel(ev.seat, seats, me)} ${ev.type}`]];
    return [[ev.type.replace(/_/g, " ")]];
  });
}

/** The view's `territory` run-length text as one code per cell, row by row: 0 blue ("a"),
 *  1 red ("b"), 2 neutral ("n"); `cells` entries. */
export function decodeTerritory(text, cells) {
  const out = new Uint8Array(cells).fill(2);
  const code = { a: 0, b: 1, n: 2 };
  let at = 0;
  for (const [, letter, count] of text.matchAll(/([abn])(\d+)/g)) {
    const n = Number(count);
    out.fill(code[letter], at, Math.min(cells, at + n));
    at += n;
  }
  return out;
}

/** The territory as a picture (a PNG data URL, one pixel per cell), with its cell counts. */
function territoryImage(text, field) {
  const [cols, rows] = [Math.ceil(field[0] / CELL), Math.ceil(field[1] / CELL)];
  const cells = decodeTerritory(text, cols * rows);
  const canvas = document.createElement("canvas");
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(cols, rows);
  const rgb = [CELL_RGB.a, CELL_RGB.b, CELL_RGB.n];
  const counts = [0, 0, 0];
  for (let i = 0; i < cells.length; i += 1) {
    const [r, g, b] = rgb[cells[i]];
    counts[cells[i]] += 1;
    image.data.set([r, g, b, 255], i * 4);
  }
  ctx.putImageData(image, 0, 0);
  return { url: canvas.toDataURL("image/png"), counts };
}

/** The integer point of a `point` space (engine/spaces.py) nearest to (x, y) that the space
 *  holds: inside the disc (squared distance ≤ radius²) and the box. */
export function pointIn(space, x, y) {
  const [cx, cy] = space.center;
  const r = space.radius;
  let dx = x - cx;
  let dy = y - cy;
  const d = Math.hypot(dx, dy);
  if (d > r) {
    dx *= r / d;
    dy *= r / d;
  }
  let px = Math.round(dx);
  let py = Math.round(dy);
  if (px * px + py * py > r * r) {
    // Rounding left the disc: rounding towards the centre never does.
    px = Math.trunc(dx);
    py = Math.trunc(dy);
  }
  // The centre lies in the box, so holding each coordinate in it only nears the centre.
  return [Math.min(space.max[0], Math.max(space.min[0], cx + px)),
          Math.min(space.max[1], Math.max(space.min[1], cy + py))];
}

/** Halves round away from zero, as the walk's positions are given (a drawing detail). */
function roundDiv(a, b) {
  const q = Math.floor((2 * Math.abs(a) + b) / (2 * b));
  return a >= 0 ? q : -q;
}

/** Where a walk [piece, x0, y0, x1, y1] has got to after `tick` ticks (one pixel a tick
 *  along the straight line, ⌈distance⌉ ticks in all). */
function walkAt(walk, tick) {
  const [, x0, y0, x1, y1] = walk;
  const q = (x1 - x0) ** 2 + (y1 - y0) ** 2;
  let steps = Math.floor(Math.sqrt(q));
  while (steps * steps < q) steps += 1;
  if (tick >= steps) return [x1, y1];
  return [x0 + roundDiv(tick * (x1 - x0), steps), y0 + roundDiv(tick * (y1 - y0), steps)];
}

/** The open request's own pieces and their discs: piece id → point space. */
function discsOf(request) {
  return request?.action_space?.fields?.moves?.entries || {};
}

function requestTurn(request) {
  return request?.action_space?.fields?.turn?.value;
}

/** One Boundary match on screen; options as for MatchTable. */
export class BoundaryBoard extends MatchTable {
  constructor(root, opts) {
    super(root, { game: "boundary", ...opts }, "bd-root");
    this.ready = { turn: null, seats: new Set() };  // who is in on which turn (committed)
    this.mine = null;          // this seat's acknowledged plan
    this.pending = null;       // the plan sent, until acknowledged or refused
    this.error = null;         // the last refusal of a plan (error message)
    this.anim = null;          // the resolution being played back
    this.shown = null;         // {turn, tick, ticks} of the last resolution played back
    this.prior = null;         // the view before an events message, while it is taken in
    this.picture = { text: null, url: null, counts: [0, 0, 0] };
    this.els = null;           // elements a playback tick updates in place
    this.held = [];            // log lines of the turn being played back, until it ends
  }

  destroy() {
    this.stopAnimation();
  }

  clearSelection() {
    this.plan = {};            // piece id → [x, y]: the targets dragged this turn
    this.drag = null;
  }

  eventLines(events) {
    return eventLines(events, this.seats, this.me);
  }

  markable() {
    return false;
  }

  // ---- messages ----------------------------------------------------------------------------

  start(msg) {
    this.stopAnimation();
    this.ready = { turn: msg.view?.turn ?? null, seats: new Set(msg.committed || []) };
    this.mine = msg.commitment ?? null;
    // Our plan for this turn is in (a resume): no request of ours is open.
    if (this.me !== null && this.ready.seats.has(this.me)) this.request = null;
    super.start(msg);
  }

  onEvents(msg) {
    this.prior = this.view;
    try {
      super.onEvents(msg);
    } finally {
      this.prior = null;
    }
  }

  noteEvents(events) {
    this.flushLog();
    const lines = this.eventLines(events);
    for (const ev of events) {
      if (ev.type === "committed") {
        if (this.ready.turn !== this.view?.turn) this.ready = { turn: this.view?.turn, seats: new Set() };
        this.ready.seats.add(ev.seat);
        if (ev.seat === this.me && ev.action) {
          this.mine = ev.action;
          this.pending = null;
          this._sent = null;
        }
      } else if (ev.type === "resolution") {
        // The turn is over: a request for it (one the deadline answered) is closed too.
        if (this.request && requestTurn(this.request) <= ev.turn) {
          this.request = null;
          this.clearSelection();
        }
        this.pending = null;
        this._sent = null;
        this.error = null;
        this.startAnimation(this.prior, ev, LIVE_MS);
      }
    }
    // What a turn brought is told when its playback gets there, not before.
    if (this.anim) this.held = lines;
    else this.addLog(lines);
  }

  flushLog() {
    if (this.held.length) this.addLog(this.held);
    this.held = [];
  }

  onRequest(msg) {
    this.error = null;
    super.onRequest(msg);
  }

  onError(msg) {
    if (!this._sent || msg.request_id !== this._sent.request_id) return;
    const plan = { ...(this.pending?.moves || {}) };
    this.error = msg;
    this.pending = null;
    super.onError(msg);
    this.plan = plan;  // keep what was planned, to mend it
    this.render();
  }

  onEnd(msg) {
    this.request = null;
    this.clearSelection();
    super.onEnd(msg);
  }

  showStep(step) {
    const prior = this.view;
    this.stopAnimation();
    super.showStep(step);
    const resolution = (step.events || []).find((ev) => ev.type === "resolution");
    if (resolution) this.startAnimation(prior, resolution, REPLAY_MS);
    if (this.anim) this.render();
  }

  // ---- planning ----------------------------------------------------------------------------

  /** Whether this viewer may plan now: an open request, nothing being played back. */
  get planning() {
    return Boolean(this.request && !this.over && !this.anim && this.me !== null);
  }

  isReady(seat) {
    return this.ready.turn === this.view?.turn && this.ready.seats.has(seat);
  }

  /** The plan this seat has in for the current turn (acknowledged or on its way). */
  sentPlan() {
    const plan = this.pending || this.mine;
    return plan && plan.turn === this.view?.turn ? plan : null;
  }

  planAction() {
    const moves = {};
    for (const id of Object.keys(this.plan).sort((a, b) => Number(a) - Number(b))) moves[id] = this.plan[id];
    return { turn: requestTurn(this.request), moves };
  }

  submitPlan(moves = null) {
    if (!this.planning) return;
    const action = moves ? { turn: requestTurn(this.request), moves } : this.planAction();
    this.pending = action;
    this.error = null;
    this.submit(action);
  }

  clearPlan() {
    this.plan = {};
    this.render();
  }

  /** A pointer event's position in field pixels (the SVG's own units). */
  fieldPoint(e) {
    const ctm = this.els.svg.getScreenCTM();
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    return [p.x - 0.5, p.y - 0.5];  // a pixel's centre is drawn at +0.5
  }

  startDrag(e, id) {
    if (!this.planning || e.button !== 0) return;
    e.preventDefault();
    this.els.svg.setPointerCapture(e.pointerId);
    this.drag = { id, pointer: e.pointerId };
    this.els.svg.classList.add("dragging");
    this.dragTo(e);
  }

  dragTo(e) {
    if (!this.drag || e.pointerId !== this.drag.pointer) return;
    const id = this.drag.id;
    const space = discsOf(this.request)[id];
    if (!space) {
      // The request closed under the pointer (a deadline): nothing more to plan.
      this.drag = null;
      return;
    }
    const [x, y] = this.fieldPoint(e);
    const target = pointIn(space, x, y);
    if (target[0] === space.center[0] && target[1] === space.center[1]) delete this.plan[id];
    else this.plan[id] = target;
    // Only this piece's mark is redrawn while dragging (the pointer stays captured).
    const old = this.els.plans.querySelector(`[data-target="${id}"]`);
    const mark = this.plan[id] ? this.planMark(id, space.center, this.plan[id], "planned") : null;
    if (old && mark) old.replaceWith(mark);
    else if (old) old.remove();
    else if (mark) this.els.plans.appendChild(mark);
  }

  endDrag(e) {
    if (!this.drag || e.pointerId !== this.drag.pointer) return;
    this.dragTo(e);
    this.drag = null;
    this.render();
  }

  /** The captures and treasures of the playback up to `tick`, as list items. */
  tickerItems(tick) {
    return this.anim.resolution.events
      .filter((x) => x.tick <= tick && (x.kind === "piece_captured" || x.kind === "treasure_captured"))
      .map((x) => h("li", { class: `bd-team-${TEAMS[x.by]}` }, happeningText(x, this.seats, this.me)));
  }

  // ---- playback ----------------------------------------------------------------------------

  /** Play `resolution` back from `prior` (the view the turn started from) within `budgetMs`. */
  startAnimation(prior, resolution, budgetMs) {
    this.stopAnimation();
    if (!prior?.pieces || prior.turn !== resolution.turn || !resolution.ticks) return;
    const walks = new Map(resolution.walks.map((w) => [w[0], w]));
    const at = (kind, key) => new Map(resolution.events.filter((x) => x.kind === kind).map((x) => [x[key], x.tick]));
    this.anim = {
      from: prior, resolution, walks, tick: 0, ticks: resolution.ticks,
      capturedAt: at("piece_captured", "piece"), takenAt: at("treasure_captured", "treasure"),
      msPerTick: Math.max(1, Math.min(25, budgetMs / resolution.ticks)), began: performance.now(),
    };
    this.shown = { turn: resolution.turn, tick: 0, ticks: resolution.ticks };
    const step = (now) => {
      const anim = this.anim;
      if (!anim) return;
      // A frame's time may come from just before the playback began.
      const tick = Math.max(0, Math.min(anim.ticks, Math.floor((now - anim.began) / anim.msPerTick)));
      if (tick !== anim.tick) this.showTick(tick);
      if (tick >= anim.ticks) this.finishAnimation();
      else anim.frame = requestAnimationFrame(step);
    };
    this.anim.frame = requestAnimationFrame(step);
  }

  stopAnimation() {
    if (this.anim?.frame) cancelAnimationFrame(this.anim.frame);
    this.anim = null;
    this.flushLog();
  }

  finishAnimation() {
    if (!this.anim) return;
    if (this.anim.tick !== this.anim.ticks) this.showTick(this.anim.ticks);
    this.stopAnimation();
    this.render();
  }

  /** Where piece `p` of the playback's starting view is after `tick`. */
  animatedAt(p, tick) {
    const walk = this.anim.walks.get(p.id);
    if (!walk) return [p.x, p.y];
    const gone = this.anim.capturedAt.get(p.id);
    return walkAt(walk, gone === undefined ? tick : Math.min(tick, gone));
  }

  /** The pieces and treasures on the field as drawn: the view's, or during a playback those
   *  of the turn's start that are not yet captured or taken. */
  onField() {
    const anim = this.anim;
    if (!anim) return { pieces: this.view.pieces || [], treasures: this.view.treasures || [] };
    const before = (at, id) => !(at.get(id) <= anim.tick);
    return { pieces: anim.from.pieces.filter((p) => before(anim.capturedAt, p.id)),
             treasures: anim.from.treasures.filter((t) => before(anim.takenAt, t.id)) };
  }

  countTexts() {
    const { pieces, treasures } = this.onField();
    const left = [0, 1].map((seat) => pieces.filter((p) => p.team === seat).length);
    const worth = treasures.reduce((a, t) => a + t.value, 0);
    return { pieces: left.map((n) => `${n} piece${n === 1 ? "" : "s"}`), treasuresLeft: treasures.length,
             treasures: `${treasures.length} treasure${treasures.length === 1 ? "" : "s"} left, worth ${worth}` };
  }

  /** The scores after `tick`: the turn's starting scores plus the points scored so far. */
  animatedScores(tick) {
    const scores = [...this.anim.from.scores];
    for (const ev of this.anim.resolution.events) if (ev.points && ev.tick <= tick) scores[ev.by] += ev.points;
    return scores;
  }

  /** One tick of the playback, updating the drawn elements in place. */
  showTick(tick) {
    const anim = this.anim;
    anim.tick = tick;
    this.shown.tick = tick;
    const els = this.els;
    if (!els) return;
    for (const p of anim.from.pieces) {
      const el = els.pieces.get(p.id);
      if (!el) continue;
      const [x, y] = this.animatedAt(p, tick);
      el.setAttribute("transform", `translate(${x + 0.5} ${y + 0.5})`);
      el.dataset.x = String(x);
      el.dataset.y = String(y);
      const gone = anim.capturedAt.get(p.id);
      el.classList.toggle("is-captured", gone !== undefined && gone <= tick);
    }
    for (const [id, el] of els.treasures) {
      const gone = anim.takenAt.get(id);
      el.classList.toggle("is-taken", gone !== undefined && gone <= tick);
    }
    const scores = this.animatedScores(tick);
    els.scores.forEach((el, seat) => { el.textContent = String(scores[seat]); });
    const counts = this.countTexts();
    els.left.forEach((el, seat) => { el.textContent = counts.pieces[seat]; });
    els.treasureCount.textContent = counts.treasures;
    els.treasureCount.dataset.treasuresLeft = String(counts.treasuresLeft);
    els.tick.textContent = `tick ${tick} / ${anim.ticks}`;
    els.ticker.replaceChildren(...this.tickerItems(tick));
    this.root.dataset.tick = String(tick);
  }

  // ---- drawing -----------------------------------------------------------------------------

  clockText(seat) {
    if (!this.clocks) return "untimed";
    let ms = this.clocks[seat];
    if (this.clockRunning(seat)) ms -= performance.now() - this.clockAt;
    return formatClock(ms);
  }

  /** Both seats plan at once: a seat's clock runs until its plan is in. */
  clockRunning(seat) {
    return Boolean(this.clocks && this.view?.phase === "planning" && !this.over && !this.replay && !this.anim && !this.isReady(seat));
  }

  territory(view) {
    if (this.picture.text !== view.territory) {
      this.picture = { text: view.territory, ...territoryImage(view.territory, view.field) };
    }
    return this.picture;
  }

  render() {
    const view = this.view;
    if (!view) return;
    if (this.drag && this.els?.svg?.isConnected) return;  // endDrag draws everything again
    const root = this.resetRoot();
    root.dataset.phase = view.phase;
    root.dataset.turn = String(view.turn ?? "");
    if (this.anim) root.dataset.animating = "1";
    else delete root.dataset.animating;
    if (this.shown) {
      root.dataset.tick = String(this.shown.tick);
      root.dataset.ticks = String(this.shown.ticks);
      root.dataset.resolvedTurn = String(this.shown.turn);
    }
    const outcome = this.over?.outcome;
    this.els = { pieces: new Map(), treasures: new Map(), scores: [], left: [] };
    root.appendChild(h("div", { class: "bd-main" },
      this.renderHead(),
      view.pieces ? this.renderField() : h("p", { class: "bd-setup muted" }, "The field is being laid out…"),
      outcome ? this.banner(outcome, outcomeText(outcome, this.seats, this.me)) : null,
      this.me !== null ? this.renderPrompt() : null));
    root.appendChild(h("aside", { class: "bd-panel" }, this.renderPlayers(), this.renderLog()));
  }

  renderHead() {
    const view = this.view;
    const anim = this.anim;
    this.els.tick = h("span", { class: "bd-tick", dataset: { tickCounter: "" } },
      anim ? `tick ${anim.tick} / ${anim.ticks}` : this.shown ? `turn ${this.shown.turn}: ${this.shown.ticks} ticks` : "");
    this.els.ticker = h("ul", { class: "bd-ticker" }, anim ? this.tickerItems(anim.tick) : null);
    const phase = anim ? `Turn ${anim.resolution.turn} · moving`
      : view.phase === "planning" ? `Turn ${view.turn} · planning` : view.phase === "over" ? "Game over" : "Setting up";
    return h("div", { class: "bd-head" },
      h("strong", { dataset: { turnLabel: view.turn ?? "" } }, phase),
      this.els.tick,
      anim ? h("button", { type: "button", class: "small subtle", dataset: { action: "skip" },
                           onclick: () => this.finishAnimation() }, "Skip") : null,
      this.els.ticker);
  }

  renderField() {
    const view = this.view;
    const anim = this.anim;
    const shown = anim ? anim.from : view;
    const [W, H] = view.field || [800, 800];
    const picture = this.territory(shown);
    const planning = this.planning;
    const discs = planning ? discsOf(this.request) : {};

    const treasures = shown.treasures.map((t) => {
      const el = s("g", { class: "bd-treasure", transform: `translate(${t.x + 0.5} ${t.y + 0.5})`,
                          dataset: { treasure: t.id, x: t.x, y: t.y, value: t.value } },
        s("title", {}, `treasure ${t.id}: ${t.value} point${t.value === 1 ? "" : "s"}`),
        s("rect", { x: -8, y: -8, width: 16, height: 16, rx: 2, transform: "rotate(45)" }),
        s("text", { y: 4.5, "text-anchor": "middle" }, String(t.value)));
      this.els.treasures.set(t.id, el);
      return el;
    });
    const taken = anim ? [] : (view.taken || []).map((t) => s("g", {
      class: ["bd-taken", `bd-team-${TEAMS[t.by]}`], transform: `translate(${t.x + 0.5} ${t.y + 0.5})`,
      dataset: { taken: t.id, by: t.by } },
    s("title", {}, `treasure ${t.id} (${t.value}) taken by ${teamName(t.by)}`),
    s("path", { d: "M-5,-5 L5,5 M-5,5 L5,-5" })));

    // Blobs of two or more: a link from each member to the blob's middle, and its size there.
    const links = [];
    if (!anim) {
      const byId = new Map(view.pieces.map((p) => [p.id, p]));
      for (const blob of view.blobs || []) {
        if (blob.members.length < 2) continue;
        const members = blob.members.map((id) => byId.get(id)).filter(Boolean);
        const mx = members.reduce((a, p) => a + p.x, 0) / members.length + 0.5;
        const my = members.reduce((a, p) => a + p.y, 0) / members.length + 0.5;
        links.push(s("g", { class: ["bd-blob", `bd-team-${TEAMS[blob.team]}`], dataset: { blobId: blob.id, members: blob.members.join(",") } },
          members.map((p) => s("line", { x1: p.x + 0.5, y1: p.y + 0.5, x2: mx, y2: my })),
          s("circle", { cx: mx, cy: my, r: 7 }),
          s("text", { x: mx, y: my + 3.5, "text-anchor": "middle" }, String(members.length))));
      }
    }

    // Where each piece started the previous turn: a faint trail.
    const trails = anim ? [] : view.pieces.filter((p) => p.prev && (p.prev[0] !== p.x || p.prev[1] !== p.y))
      .map((p) => s("line", { class: ["bd-trail", `bd-team-${TEAMS[p.team]}`], x1: p.prev[0] + 0.5, y1: p.prev[1] + 0.5,
                              x2: p.x + 0.5, y2: p.y + 0.5 }));

    const discEls = Object.entries(discs).map(([id, space]) => s("circle", {
      class: "bd-disc", cx: space.center[0] + 0.5, cy: space.center[1] + 0.5, r: space.radius,
      dataset: { disc: id, x: space.center[0], y: space.center[1], r: space.radius } }));

    const plans = [];
    if (planning) {
      for (const [id, target] of Object.entries(this.plan)) plans.push(this.planMark(id, discs[id].center, target, "planned"));
    } else if (!anim) {
      const sent = this.sentPlan();
      const byId = new Map(view.pieces.map((p) => [String(p.id), p]));
      for (const [id, target] of Object.entries(sent?.moves || {})) {
        const p = byId.get(id);
        if (p) plans.push(this.planMark(id, [p.x, p.y], target, "sent"));
      }
    }

    const pieces = shown.pieces.map((p) => {
      const [x, y] = anim ? this.animatedAt(p, anim.tick) : [p.x, p.y];
      const movable = planning && Object.hasOwn(discs, String(p.id));
      const blob = (shown.blobs || []).find((b) => b.id === p.blob);
      const gone = anim?.capturedAt.get(p.id);
      const el = s("g", {
        class: ["bd-piece", `bd-team-${TEAMS[p.team]}`, movable ? "movable" : null,
                blob && blob.members.length > 1 ? "in-blob" : null,
                gone !== undefined && gone <= anim.tick ? "is-captured" : null],
        transform: `translate(${x + 0.5} ${y + 0.5})`,
        dataset: { piece: p.id, team: p.team, x, y, blob: p.blob },
        onpointerdown: movable ? (e) => this.startDrag(e, String(p.id)) : null,
      },
      s("title", {}, `${teamName(p.team)} piece ${p.id} at ${p.x}, ${p.y}` +
        (blob ? ` — blob of ${blob.members.length}, reach ${blob.move_radius} px` : "")),
      s("circle", { r: PIECE_R }),
      s("text", { y: 3.5, "text-anchor": "middle" }, String(p.id)));
      this.els.pieces.set(p.id, el);
      return el;
    });

    this.els.plans = s("g", { class: "bd-plans" }, plans);
    const svg = s("svg", {
      class: ["bd-field", planning ? "planning" : null, anim ? "moving" : null],
      viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `Boundary field, turn ${view.turn}`,
      onpointermove: (e) => this.dragTo(e), onpointerup: (e) => this.endDrag(e),
      onpointercancel: (e) => this.endDrag(e),
    },
    s("rect", { class: "bd-ground", width: W, height: H }),
    s("image", { class: "bd-territory", href: picture.url, x: 0, y: 0, width: W, height: H,
                 preserveAspectRatio: "none",
                 dataset: { blue: picture.counts[0], red: picture.counts[1], neutral: picture.counts[2] } }),
    s("g", { class: "bd-trails" }, trails),
    s("g", { class: "bd-discs" }, discEls),
    s("g", { class: "bd-taken-marks" }, taken),
    s("g", { class: "bd-treasures" }, treasures),
    s("g", { class: "bd-blobs" }, links),
    this.els.plans,
    s("g", { class: "bd-pieces" }, pieces));
    this.els.svg = svg;
    return h("div", { class: "bd-field-wrap" }, svg);
  }

  /** A planned move: a line from the piece to its target, and the piece's ghost there. */
  planMark(id, from, target, kind) {
    return s("g", { class: ["bd-plan", kind], dataset: { target: id, x: target[0], y: target[1] } },
      s("line", { x1: from[0] + 0.5, y1: from[1] + 0.5, x2: target[0] + 0.5, y2: target[1] + 0.5 }),
      s("circle", { cx: target[0] + 0.5, cy: target[1] + 0.5, r: PIECE_R }));
  }

  renderPrompt() {
    const planning = this.planning;
    const planned = Object.keys(this.plan).length;
    const sent = this.sentPlan();
    const other = 1 - this.me;
    let text;
    let state;
    if (this.over) [text, state] = ["The game is over.", "over"];
    else if (this.anim) [text, state] = ["The plans are revealed: the pieces move…", "moving"];
    else if (planning) {
      state = "planning";
      text = planned
        ? `${planned} piece${planned === 1 ? "" : "s"} planned; the rest stay. Submit when ready.`
        : "Plan your turn: drag your pieces inside their circles (pieces you leave stay), then submit.";
    } else if (this.pending) [text, state] = ["Sending your plan…", "sending"];
    else if (sent) {
      state = "sent";
      text = this.isReady(other) ? "Plan sent; both plans are in." : "Plan sent, waiting for the opponent…";
    } else [text, state] = ["Waiting for the next turn…", "waiting"];
    const buttons = [];
    if (planning) {
      buttons.push(h("button", { type: "button", class: "primary", dataset: { action: "submit" },
                                 onclick: () => this.submitPlan() }, "Submit plan"));
      buttons.push(h("button", { type: "button", dataset: { action: "clear" }, disabled: planned ? null : true,
                                 title: "forget the targets dragged this turn", onclick: () => this.clearPlan() }, "Clear"));
      buttons.push(h("button", { type: "button", dataset: { action: "stay" }, title: "send the empty plan: every piece stays",
                                 onclick: () => this.submitPlan({}) }, "Stay"));
    }
    if (this.resign && !this.over) {
      buttons.push(confirmButton("Resign", "Really resign?", () => this.resign(),
                                 { class: "subtle", dataset: { action: "resign" } }, this));
    }
    const error = this.error;
    return h("div", { class: ["bl-prompt", "bd-prompt", planning ? "your-turn" : null], dataset: { state } },
      h("span", { class: "prompt-text", role: "status" }, text,
        error ? h("span", { class: "bd-error", dataset: { error: error.details?.rule || error.code } },
                  ` Refused: ${error.message}`) : null),
      h("span", { class: "prompt-buttons" }, buttons));
  }

  renderPlayers() {
    const view = this.view;
    const scores = this.anim ? this.animatedScores(this.anim.tick) : view.scores || [0, 0];
    const turn = this.anim ? this.anim.from.turn : view.turn;
    const counts = this.countTexts();
    const rows = TEAMS.map((team, seat) => {
      const info = this.seats[seat] || {};
      const ready = this.isReady(seat) && !this.over;
      const score = h("span", { class: "bd-score", dataset: { score: seat } }, String(scores[seat] ?? 0));
      const left = h("span", { class: "muted", dataset: { piecesLeft: seat } }, counts.pieces[seat]);
      this.els.scores[seat] = score;
      this.els.left[seat] = left;
      return h("div", { class: ["bd-player", `bd-player-${team}`, ready ? "ready" : null],
                        dataset: { seat, ready: ready ? "1" : null } },
        h("span", { class: `swatch swatch-${team}`, "aria-hidden": "true" }),
        h("div", { class: "bd-who" },
          h("span", { class: "seat-name" }, teamName(seat)),
          h("span", { class: "player-name" }, info.name || "?"),
          seat === this.me ? h("span", { class: "you" }, "you") : null,
          ready ? h("span", { class: "bd-ready", title: "this seat's plan for the turn is in" }, "plan in") : null),
        h("div", { class: "bd-stats" }, score, left),
        this.replay ? null : h("span", { class: ["clock", this.clockRunning(seat) ? "running" : null], dataset: { clock: seat } },
                                this.clockText(seat)));
    });
    this.els.treasureCount = h("p", { class: "bd-treasure-count muted", dataset: { treasuresLeft: counts.treasuresLeft } },
      counts.treasures);
    return h("section", { class: "panel-box players" },
      h("h3", {}, h("span", { dataset: { turn: turn ?? "" } }, `Turn ${turn ?? "–"}`),
        view.options?.turn_limit ? ` of ${view.options.turn_limit}` : ""),
      rows, this.els.treasureCount);
  }

  renderLog() {
    return this.renderLogBox("Turns · newest first");
  }
}

/** The web client's registry entry (games.js): this game's board. */
export const Board = BoundaryBoard;
