// Chexers in the browser (the web client's module for the game "chexers"): a hex board in SVG
// with three colours and exit counters.
//
// Perfect information: every viewer's view is the same (`pieces` by colour, `exits`, `turn`,
// `to_move_seat`); the board draws only the views the server sends (every `events` message
// carries one). Actions are composed from the open request's `legal_actions` only: click one
// of your pieces that has a legal action, then a highlighted hex (or the exit arrow).
// Shapes: engine/chexers/__init__.py.

import { h, s, confirmButton } from "../dom.js";
import { MatchTable } from "../table.js";

export const COLOURS = ["red", "green", "blue"];
const SQRT3 = Math.sqrt(3);
const R = 34; // hex radius in SVG units
// The outward direction of each colour's exit edge (pixels): red leaves to the upper right
// (q = 3), green off the bottom row (r = 3), blue to the upper left (s = -q-r = 3).
const EXIT_DIRECTION = { red: [SQRT3 / 2, -0.5], green: [0, 1], blue: [-SQRT3 / 2, -0.5] };

export const HEXES = [];
for (let r = -3; r <= 3; r += 1) {
  for (let q = -3; q <= 3; q += 1) {
    if (Math.abs(q + r) <= 3) HEXES.push([q, r]);
  }
}

export function isExitHex(colour, [q, r]) {
  if (colour === "red") return q === 3;
  if (colour === "green") return r === 3;
  return -q - r === 3;
}

export function hexKey([q, r]) {
  return `${q},${r}`;
}

function centre([q, r]) {
  return [R * SQRT3 * (q + r / 2), R * 1.5 * r];
}

function hexPoints([x, y], radius = R) {
  const points = [];
  for (let i = 0; i < 6; i += 1) {
    const angle = (Math.PI / 180) * (60 * i - 30);
    points.push(`${(x + radius * Math.cos(angle)).toFixed(1)},${(y + radius * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

export function seatLabel(seat, seats, me) {
  const colour = COLOURS[seat][0].toUpperCase() + COLOURS[seat].slice(1);
  if (seat === me) return `You (${colour})`;
  const name = seats?.[seat]?.name;
  return name ? `${colour} (${name})` : colour;
}

const REASONS = { exits: "four exits", repetition: "repetition", turn_limit: "turn limit",
                  timeout: "time", resignation: "resignation", forfeit: "forfeit", void: "void (server fault)" };

export function outcomeText(outcome, seats, me) {
  if (!outcome) return "";
  const reason = REASONS[outcome.reason] || outcome.reason;
  const winners = outcome.ranks.map((r, s) => (r === 0 ? s : null)).filter((s) => s !== null);
  if (winners.length === outcome.ranks.length) return `Draw — ${reason}`;
  const names = winners.map((s) => seatLabel(s, seats, me)).join(" and ");
  return `${names} ${winners.length > 1 ? "share first place" : "wins"} — ${reason}`;
}

export function eventLines(events, seats, me) {
  return events.map((ev) => {
    if (ev.type === "action") {
      const who = seatLabel(ev.seat, seats, me);
      const a = ev.action;
      if (a.type === "MOVE") return [`${who} moved ${hexKey(a.from)} → ${hexKey(a.to)}`];
      if (a.type === "JUMP") {
        return [`${who} jumped ${hexKey(a.from)} → ${hexKey(a.to)}`,
                ev.converted ? `, converting a ${COLOURS[ev.converted_from]} piece` : ""];
      }
      if (a.type === "EXIT") return [`${who} exited from ${hexKey(a.from)}`];
      return [`${who} passed`];
    }
    if (ev.type === "timeout") return [`${ev.seats.map((x) => seatLabel(x, seats, me)).join(", ")} ran out of time`];
    if (ev.type === "forfeit") return [`${ev.seats.map((x) => seatLabel(x, seats, me)).join(", ")} forfeited`];
    if (["resigned", "disconnected", "reconnected"].includes(ev.type)) return [`${seatLabel(ev.seat, seats, me)} ${ev.type}`];
    return [ev.type];
  });
}

/** One Chexers match on screen; options as for BattleLineTable. */
export class ChexersBoard extends MatchTable {
  constructor(root, opts) {
    super(root, { game: "chexers", ...opts }, "cx-root");
  }

  clearSelection() {
    this.sel = null;   // the hex of the selected piece
  }

  eventLines(events) {
    return eventLines(events, this.seats, this.me);
  }

  pickPiece(hex) {
    const key = hexKey(hex);
    this.sel = this.sel === key ? null : key;
    this.render();
  }

  pickTarget(hex) {
    const action = this.legal.find((a) => a.from && hexKey(a.from) === this.sel && a.to && hexKey(a.to) === hexKey(hex));
    this.submit(action);
  }

  clockText(seat) {
    return this.turnClockText(seat, this.view.to_move_seat);
  }

  render() {
    const view = this.view;
    if (!view) return;
    const root = this.resetRoot();
    const outcome = this.over?.outcome;
    root.appendChild(h("div", { class: "cx-main" }, this.renderBoard(),
                       outcome ? this.banner(outcome, outcomeText(outcome, this.seats, this.me)) : null,
                       this.me !== null ? this.renderPrompt() : null));
    root.appendChild(h("aside", { class: "cx-panel" }, this.renderPlayers(), this.renderLog()));
  }

  renderBoard() {
    const view = this.view;
    const legal = this.legal;
    const occupant = new Map();
    for (const colour of COLOURS) {
      for (const p of view.pieces[colour] || []) occupant.set(hexKey(p), colour);
    }
    const movable = new Set(legal.filter((a) => a.from).map((a) => hexKey(a.from)));
    const targets = new Set(legal.filter((a) => a.from && hexKey(a.from) === this.sel && a.to).map((a) => hexKey(a.to)));
    const exitAction = legal.find((a) => a.type === "EXIT" && hexKey(a.from) === this.sel);
    const last = this.last?.action;
    const lastHexes = new Set(last ? [last.from, last.to].filter(Boolean).map(hexKey) : []);

    const edges = [];
    for (const colour of COLOURS) {
      for (const hex of HEXES.filter((x) => isExitHex(colour, x))) {
        const [x, y] = centre(hex);
        const [dx, dy] = EXIT_DIRECTION[colour];
        edges.push(s("line", { class: `exit-edge exit-${colour}`, x1: (x + dx * R * 0.95).toFixed(1),
                               y1: (y + dy * R * 0.95).toFixed(1), x2: (x + dx * R * 1.45).toFixed(1),
                               y2: (y + dy * R * 1.45).toFixed(1) }));
      }
    }
    const cells = HEXES.map((hex) => {
      const key = hexKey(hex);
      const [x, y] = centre(hex);
      const classes = ["hex", targets.has(key) ? "is-target" : null, lastHexes.has(key) ? "last-move" : null,
                       ...COLOURS.filter((c) => isExitHex(c, hex)).map((c) => `exit-of-${c}`)];
      return s("polygon", { class: classes, points: hexPoints([x, y], R - 1.5), dataset: { hex: key },
                            onclick: targets.has(key) ? () => this.pickTarget(hex) : null },
               s("title", {}, key));
    });
    const pieces = [];
    for (const [key, colour] of occupant) {
      const hex = key.split(",").map(Number);
      const [x, y] = centre(hex);
      const canMove = movable.has(key);
      pieces.push(s("circle", {
        class: ["piece", `piece-${colour}`, canMove ? "movable" : null, this.sel === key ? "is-selected" : null],
        cx: x.toFixed(1), cy: y.toFixed(1), r: (R * 0.58).toFixed(1),
        dataset: { piece: key, colour },
        onclick: canMove ? () => this.pickPiece(hex) : null,
      }, s("title", {}, `${colour} piece at ${key}`)));
    }
    const extras = [];
    if (exitAction) {
      const from = exitAction.from;
      const colour = COLOURS[this.me];
      const [x, y] = centre(from);
      const [dx, dy] = EXIT_DIRECTION[colour];
      const ax = x + dx * R * 1.75;
      const ay = y + dy * R * 1.75;
      extras.push(s("g", { class: "exit-target", dataset: { exit: hexKey(from) }, onclick: () => this.submit(exitAction) },
        s("circle", { cx: ax.toFixed(1), cy: ay.toFixed(1), r: (R * 0.5).toFixed(1) }),
        s("text", { x: ax.toFixed(1), y: (ay + 5).toFixed(1), "text-anchor": "middle" }, "exit"),
        s("title", {}, `exit from ${hexKey(from)}`)));
    }
    // Wide enough for the exit marks beyond the edge hexes (and the exit arrow).
    const half = R * 7.3;
    const tall = R * 6.9;
    return h("div", { class: "cx-board-wrap" },
      s("svg", { class: "cx-board", viewBox: `${-half} ${-tall} ${half * 2} ${tall * 2}`,
                 role: "img", "aria-label": "Chexers board" },
        s("g", { class: "edges" }, edges), s("g", { class: "cells" }, cells), s("g", { class: "pieces" }, pieces),
        s("g", { class: "extras" }, extras)));
  }

  renderPrompt() {
    const legal = this.legal;
    const buttons = [];
    let text;
    if (this.over) text = "The game is over.";
    else if (!this.request) text = this._sent ? "Sent…" : `Waiting for ${seatLabel(this.view.to_move_seat, this.seats, this.me)}…`;
    else if (legal.some((a) => a.type === "PASS")) text = "No move is possible: you must pass.";
    else if (this.sel) text = "Click a highlighted hex (or the exit arrow), or another piece.";
    else text = "Your move: click one of your pieces.";
    if (legal.some((a) => a.type === "PASS")) {
      buttons.push(h("button", { type: "button", class: "primary", dataset: { action: "pass" },
                                 onclick: () => this.submit({ type: "PASS" }) }, "Pass"));
    }
    if (this.resign && !this.over) {
      buttons.push(confirmButton("Resign", "Really resign?", () => this.resign(),
                                 { class: "subtle", dataset: { action: "resign" } }, this));
    }
    return h("div", { class: ["bl-prompt", this.request ? "your-turn" : null] },
      h("span", { class: "prompt-text", role: "status" }, text), h("span", { class: "prompt-buttons" }, buttons));
  }

  renderPlayers() {
    const view = this.view;
    const rows = COLOURS.map((colour, seat) => {
      const info = this.seats[seat] || {};
      const acting = view.to_move_seat === seat && !this.over;
      const exits = view.exits[colour] || 0;
      return h("div", { class: ["cx-player", `cx-${colour}`, acting ? "acting" : null], dataset: { seat } },
        h("span", { class: `swatch swatch-${colour}`, "aria-hidden": "true" }),
        h("div", { class: "cx-who" },
          h("span", { class: "seat-name" }, colour[0].toUpperCase() + colour.slice(1)),
          h("span", { class: "player-name" }, info.name || "?"),
          seat === this.me ? h("span", { class: "you" }, "you") : null),
        h("div", { class: "cx-exits", dataset: { exits: colour }, title: `${exits} of 4 pieces exited` },
          [0, 1, 2, 3].map((i) => h("span", { class: ["exit-pip", i < exits ? "done" : null] })),
          h("span", { class: "exit-count" }, `${exits}/4`)),
        h("span", { class: "cx-pieces" }, `${(view.pieces[colour] || []).length} on board`),
        this.replay ? null : h("span", { class: ["clock", acting ? "running" : null], dataset: { clock: seat } }, this.clockText(seat)));
    });
    return h("section", { class: "panel-box players" }, h("h3", {}, `Turn ${view.turn}`), rows);
  }

  renderLog() {
    return this.renderLogBox("Moves · newest first");
  }
}

/** The web client's registry entry (games.js): this game's board. */
export const Board = ChexersBoard;
