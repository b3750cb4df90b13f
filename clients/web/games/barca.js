// Barca in the browser (the web client's module for the game "barca"): a 10 × 10 board in SVG
// with the four watering holes, mice, lions and elephants of both sides, and the marks of
// scared, forced and trapped animals.
//
// Perfect information: every viewer's view is the same (`pieces` side → type → squares,
// `holes`, `to_move_seat`, `ply`, `repetitions`, `claim_available`, `status` square →
// calm/forced/trapped for the side to move, `scared` squares of both sides). The board draws
// only those views; who is scared, forced or trapped is what the view says, never worked out
// here. Actions come only from the open request's `legal_actions`: click one of your animals
// that has a legal move, then a highlighted square. A move that may carry a draw claim (the
// list holds it twice, once with `"claim": true`) is sent with the claim while "Claim with
// my move" is on; "Claim draw" sends the bare claim and "Pass" the pass, when they are listed.
// The viewer's side is at the bottom: Black's seat sees rank 10 there (the board turned
// round), White's seat and spectators rank 1. Shapes: engine/barca/__init__.py.

import { h, s, confirmButton } from "../dom.js";
import { MatchTable } from "../table.js";

export const SIDES = ["white", "black"];
export const FILES = "abcdefghij";
const TYPES = ["elephant", "lion", "mouse"];
const LETTER = { mouse: "M", lion: "L", elephant: "E" };
const S = 52;      // square size in SVG units
const MARGIN = 24; // room for the file and rank labels

/** The board position of `square` ("e5") for a viewer at `bottom` ("white" | "black"):
 *  column and row from the top-left corner as drawn. */
export function cellOf(square, bottom) {
  const file = FILES.indexOf(square[0]);
  const rank = Number(square.slice(1));
  return bottom === "black" ? [9 - file, rank - 1] : [file, 10 - rank];
}

function squareName(col, row, bottom) {
  return bottom === "black" ? `${FILES[9 - col]}${row + 1}` : `${FILES[col]}${10 - row}`;
}

function sideName(seat) {
  return SIDES[seat][0].toUpperCase() + SIDES[seat].slice(1);
}

export function seatLabel(seat, seats, me) {
  if (seat === me) return `You (${sideName(seat)})`;
  const name = seats?.[seat]?.name;
  return name ? `${sideName(seat)} (${name})` : sideName(seat);
}

const REASONS = { holes: "three watering holes", claim: "claimed on a threefold repetition",
                  fivefold: "fivefold repetition", ply_cap: "300 plies played", timeout: "time",
                  resignation: "resignation", forfeit: "forfeit", void: "void (server fault)" };

export function outcomeText(outcome, seats, me) {
  if (!outcome) return "";
  const reason = REASONS[outcome.reason] || String(outcome.reason).replace(/_/g, " ");
  const winner = outcome.ranks.indexOf(0);
  if (outcome.ranks.every((r) => r === 0)) return `Draw — ${reason}`;
  if (me !== null && me !== undefined) return `${winner === me ? "You win" : "You lose"} — ${reason}`;
  return `${seatLabel(winner, seats, me)} wins — ${reason}`;
}

export function eventLines(events, seats, me) {
  return events.map((ev) => {
    if (ev.type === "action") {
      const who = seatLabel(ev.seat, seats, me);
      const a = ev.action;
      const ended = ev.result === "holes" ? " — holds three watering holes" : ev.result === "fivefold"
        ? " — fivefold repetition" : ev.result === "ply_cap" ? " — 300 plies" : "";
      if (a.type === "move") return [`${who}: ${a.from}–${a.to}${a.claim ? ", claiming a draw" : ""}${ended}`];
      if (a.type === "claim") return [`${who} claimed a draw`];
      return [`${who} passed${ended}`];
    }
    if (ev.type === "timeout") return [`${ev.seats.map((x) => seatLabel(x, seats, me)).join(", ")} ran out of time`];
    if (ev.type === "forfeit") return [`${ev.seats.map((x) => seatLabel(x, seats, me)).join(", ")} forfeited`];
    if (["resigned", "disconnected", "reconnected"].includes(ev.type)) return [`${seatLabel(ev.seat, seats, me)} ${ev.type}`];
    return [ev.type];
  });
}

/** One Barca match on screen; options as for MatchTable. */
export class BarcaBoard extends MatchTable {
  constructor(root, opts) {
    super(root, { game: "barca", ...opts }, "bc-root");
    this.claimMove = false;  // "Claim with my move" is on
  }

  clearSelection() {
    this.sel = null;         // the square of the picked animal
  }

  eventLines(events) {
    return eventLines(events, this.seats, this.me);
  }

  onRequest(msg) {
    this.claimMove = false;
    super.onRequest(msg);
  }

  /** Only moves are marked on the board (a pass or a bare claim leaves the last move). */
  markable(ev) {
    return ev.type === "action" && ev.action.type === "move";
  }

  /** The side drawn at the bottom: the viewer's own, White for spectators. */
  get bottom() {
    return this.nearSeat === 1 ? "black" : "white";
  }

  /** The legal moves that the next click may send: with the claim while "Claim with my
   *  move" is on, without it otherwise. */
  moves() {
    return this.legal.filter((a) => a.type === "move" && Boolean(a.claim) === this.claimMove);
  }

  pickPiece(square) {
    this.sel = this.sel === square ? null : square;
    this.render();
  }

  pickTarget(square) {
    this.submit(this.moves().find((a) => a.from === this.sel && a.to === square));
  }

  toggleClaimMove() {
    this.claimMove = !this.claimMove;
    this.sel = null;
    this.render();
  }

  clockText(seat) {
    return this.turnClockText(seat, this.view.to_move_seat);
  }

  /** Holes held by `side`, counted from the view's pieces and holes. */
  holesHeld(side) {
    const held = new Set(TYPES.flatMap((t) => this.view.pieces[side]?.[t] || []));
    return this.view.holes.filter((sq) => held.has(sq)).length;
  }

  render() {
    const view = this.view;
    if (!view) return;
    const root = this.resetRoot();
    root.dataset.bottom = this.bottom;
    const outcome = this.over?.outcome;
    root.appendChild(h("div", { class: "bc-main" }, this.renderBoard(),
                       outcome ? this.banner(outcome, outcomeText(outcome, this.seats, this.me)) : null,
                       this.me !== null ? this.renderPrompt() : null));
    root.appendChild(h("aside", { class: "bc-panel" }, this.renderPlayers(), this.renderLog()));
  }

  renderBoard() {
    const view = this.view;
    const bottom = this.bottom;
    const moves = this.moves();
    const movable = new Set(moves.map((a) => a.from));
    const targets = new Set(moves.filter((a) => a.from === this.sel).map((a) => a.to));
    const holes = new Set(view.holes);
    const scared = new Set(view.scared || []);
    const status = view.status || {};
    const last = this.last?.action;
    const lastSquares = new Set(last ? [last.from, last.to] : []);
    const at = (col, row) => [MARGIN + col * S, row * S];

    const squares = [];
    const marks = [];
    for (let row = 0; row < 10; row += 1) {
      for (let col = 0; col < 10; col += 1) {
        const square = squareName(col, row, bottom);
        const [x, y] = at(col, row);
        const target = targets.has(square);
        const pick = target ? () => this.pickTarget(square) : null;
        squares.push(s("rect", {
          class: ["bc-square", (col + row) % 2 ? "dark" : "light", holes.has(square) ? "hole" : null,
                  lastSquares.has(square) ? "last-move" : null, target ? "is-target" : null],
          x, y, width: S, height: S, dataset: { square }, onclick: pick }, s("title", {}, square)));
        if (holes.has(square)) {
          marks.push(s("circle", { class: "bc-hole", cx: x + S / 2, cy: y + S / 2, r: S * 0.42,
                                   dataset: { hole: square } }));
        }
        if (target) {
          marks.push(s("circle", { class: ["bc-target", this.claimMove ? "with-claim" : null],
                                   cx: x + S / 2, cy: y + S / 2, r: S * 0.16, dataset: { target: square } }));
        }
      }
    }
    const labels = [];
    for (let i = 0; i < 10; i += 1) {
      const file = squareName(i, 9, bottom)[0];
      const rank = squareName(0, i, bottom).slice(1);
      labels.push(s("text", { class: "bc-label", x: MARGIN + i * S + S / 2, y: 10 * S + 17, "text-anchor": "middle",
                              dataset: { fileLabel: file } }, file));
      labels.push(s("text", { class: "bc-label", x: MARGIN / 2, y: i * S + S / 2 + 5, "text-anchor": "middle",
                              dataset: { rankLabel: rank } }, rank));
    }

    const pieces = [];
    for (const side of SIDES) {
      for (const type of TYPES) {
        for (const square of view.pieces[side]?.[type] || []) {
          const [x, y] = at(...cellOf(square, bottom));
          const cx = x + S / 2;
          const cy = y + S / 2;
          const state = status[square] || null;
          const canMove = movable.has(square);
          const words = [`${side} ${type} on ${square}`, scared.has(square) ? "scared" : null,
                         state && state !== "calm" ? state : null].filter(Boolean).join(", ");
          const badge = state === "trapped" ? "✕" : state === "forced" ? "!" : scared.has(square) ? "!" : null;
          pieces.push(s("g", {
            class: ["bc-piece", `bc-${side}`, `bc-${type}`, scared.has(square) ? "scared" : null,
                    state === "forced" || state === "trapped" ? state : null,
                    canMove ? "movable" : null, this.sel === square ? "is-selected" : null],
            dataset: { square, piece: type, colour: side, status: state, scared: scared.has(square) ? "1" : null },
            onclick: canMove ? () => this.pickPiece(square) : null,
          },
          s("title", {}, words),
          s(type === "elephant" ? "rect" : "circle", type === "elephant"
            ? { class: "bc-token", x: cx - S * 0.36, y: cy - S * 0.36, width: S * 0.72, height: S * 0.72, rx: S * 0.12 }
            : { class: "bc-token", cx, cy, r: S * (type === "lion" ? 0.36 : 0.31) }),
          s("text", { class: "bc-letter", x: cx, y: cy + 7, "text-anchor": "middle" }, LETTER[type]),
          badge ? s("g", { class: "bc-badge", dataset: { mark: state && state !== "calm" ? state : "scared" } },
                    s("circle", { cx: cx + S * 0.3, cy: cy - S * 0.3, r: S * 0.15 }),
                    s("text", { x: cx + S * 0.3, y: cy - S * 0.3 + 4.5, "text-anchor": "middle" }, badge)) : null));
        }
      }
    }
    return h("div", { class: "bc-board-wrap" },
      s("svg", { class: "bc-board", viewBox: `0 -4 ${MARGIN + 10 * S + 4} ${10 * S + 28}`, role: "img",
                 "aria-label": `Barca board, ${bottom} at the bottom` },
        s("g", { class: "squares" }, squares), s("g", { class: "marks" }, marks), s("g", { class: "labels" }, labels),
        s("g", { class: "pieces" }, pieces)));
  }

  renderPrompt() {
    const legal = this.legal;
    const canPass = legal.some((a) => a.type === "pass");
    const claim = legal.find((a) => a.type === "claim");
    const claimTwins = legal.some((a) => a.type === "move" && a.claim);
    let text;
    if (this.over) text = "The game is over.";
    else if (!this.request) text = this._sent ? "Sent…" : `Waiting for ${seatLabel(this.view.to_move_seat, this.seats, this.me)}…`;
    else if (canPass) text = "None of your animals can move: you must pass.";
    else if (this.claimMove) text = "Claim with your move: pick an animal and a highlighted square (the position will have occurred three times).";
    else if (this.sel) text = "Click a highlighted square, or another of your animals.";
    else text = "Your move: click one of your animals.";
    const buttons = [];
    if (canPass) {
      buttons.push(h("button", { type: "button", class: "primary", dataset: { action: "pass" },
                                 onclick: () => this.submit({ type: "pass" }) }, "Pass"));
    }
    if (claimTwins) {
      buttons.push(h("button", { type: "button", class: ["bc-toggle", this.claimMove ? "on" : null],
                                 "aria-pressed": this.claimMove ? "true" : "false", dataset: { action: "claim-move" },
                                 title: "send your next move with a draw claim (threefold repetition)",
                                 onclick: () => this.toggleClaimMove() }, "Claim with my move"));
    }
    if (claim) {
      buttons.push(h("button", { type: "button", class: "bc-claim", dataset: { action: "claim" },
                                 title: "this position has occurred three times: end the game drawn",
                                 onclick: () => this.submit(claim) }, "Claim draw"));
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
    const rows = SIDES.map((side, seat) => {
      const info = this.seats[seat] || {};
      const acting = view.to_move_seat === seat && !this.over;
      const held = this.holesHeld(side);
      return h("div", { class: ["bc-player", `bc-player-${side}`, acting ? "acting" : null], dataset: { seat } },
        h("span", { class: `swatch swatch-${side}`, "aria-hidden": "true" }),
        h("div", { class: "bc-who" },
          h("span", { class: "seat-name" }, sideName(seat)),
          h("span", { class: "player-name" }, info.name || "?"),
          seat === this.me ? h("span", { class: "you" }, "you") : null),
        h("div", { class: "bc-holes", dataset: { holes: side }, title: `${held} of the 4 watering holes held (3 win)` },
          [0, 1, 2, 3].map((i) => h("span", { class: ["hole-pip", i < held ? "held" : null] })),
          h("span", { class: "hole-count" }, `${held}/4`)),
        this.replay ? null : h("span", { class: ["clock", acting ? "running" : null], dataset: { clock: seat } }, this.clockText(seat)));
    });
    const toMove = this.over || view.to_move_seat === null || view.to_move_seat === undefined
      ? "Game over" : `${sideName(view.to_move_seat)} to move`;
    return h("section", { class: "panel-box players" },
      h("h3", {}, h("span", { dataset: { toMove: view.to_move || "" } }, toMove), " · ",
        h("span", { dataset: { ply: view.ply } }, `ply ${view.ply}`)),
      rows,
      h("p", { class: "bc-repetitions muted", dataset: { repetitions: view.repetitions } },
        `This position has occurred ${view.repetitions} time${view.repetitions === 1 ? "" : "s"}`,
        view.claim_available ? " — a draw may be claimed" : ""));
  }

  renderLog() {
    return this.renderLogBox("Moves · newest first");
  }
}

/** The web client's registry entry (games.js): this game's board. */
export const Board = BarcaBoard;
