// Battle Line in the browser (the web client's module for the game "battleline"): cards,
// event text and the table.
//
// The table is drawn only from the views the server sends (match_start, request, match_end,
// and the `view` of every `events` message: the client asks for views in hello), for a seat
// or a spectator alike; no rule of the game is re-implemented here. Actions are composed only
// from the open request's `legal_actions`: a card, a flag, a table card or a deck can be
// clicked only when some legal action uses it, and the action sent is always one of that
// list, verbatim. Shapes: engine/battleline/__init__.py and PROTOCOL.md section 11.

import { h, formatClock, confirmButton } from "../dom.js";
import { MatchTable } from "../table.js";

export const COLOUR_NAMES = { r: "red", o: "orange", y: "yellow", g: "green", b: "blue", p: "purple" };
const COLOUR_ORDER = "roygbp";
export const TACTICS = ["Alexander", "Darius", "Cavalry", "Shield", "Fog", "Mud",
                        "Scout", "Redeploy", "Deserter", "Traitor"];
export const SEAT_NAMES = ["North", "South"];

const TACTICS_INFO = {
  Alexander: { kind: "Leader", icon: "♛", text: "Wild: any colour, any value. One Leader per player." },
  Darius: { kind: "Leader", icon: "♚", text: "Wild: any colour, any value. One Leader per player." },
  Cavalry: { kind: "Morale", icon: "♞", label: "Companion Cavalry", text: "Value 8, any colour." },
  Shield: { kind: "Morale", icon: "◈", label: "Shield Bearers", text: "Value 1, 2 or 3, any colour." },
  Fog: { kind: "Environment", icon: "☁", text: "Beside a flag: formations there count only their total." },
  Mud: { kind: "Environment", icon: "≈", text: "Beside a flag: formations there need four cards." },
  Scout: { kind: "Guile", icon: "◎", text: "Draw three cards from either deck, then put two back on top." },
  Redeploy: { kind: "Guile", icon: "⇄", text: "Move one of your cards to another unclaimed flag, or discard it." },
  Deserter: { kind: "Guile", icon: "✖", text: "Discard one of your opponent's cards from an unclaimed flag." },
  Traitor: { kind: "Guile", icon: "☠", text: "Take an opponent's troop card from an unclaimed flag to your side." },
};

// ---- cards -----------------------------------------------------------------------------

export function isTroop(card) {
  return /^(10|[1-9])[roygbp]$/.test(card);
}

export function deckOf(card) {
  return isTroop(card) ? "troop" : "tactics";
}

/** Canonical order: troops by colour then value, then the tactics in TACTICS order. */
export function cardIndex(card) {
  if (isTroop(card)) {
    const value = parseInt(card, 10);
    return COLOUR_ORDER.indexOf(card.slice(-1)) * 10 + value - 1;
  }
  return 60 + TACTICS.indexOf(card);
}

/** How a card is played: "slot" (troops, Leaders, Cavalry, Shield), "env" or its name. */
export function cardKind(card) {
  if (isTroop(card) || ["Alexander", "Darius", "Cavalry", "Shield"].includes(card)) return "slot";
  if (card === "Fog" || card === "Mud") return "env";
  return card;
}

export function cardTitle(card) {
  if (isTroop(card)) return `${parseInt(card, 10)} ${COLOUR_NAMES[card.slice(-1)]}`;
  const info = TACTICS_INFO[card];
  return info ? `${info.label || card} (${info.kind}): ${info.text}` : card;
}

/** A face-up card. `opts`: {tag, zone, size, classes, dataset, onclick, disabled}. */
export function cardFace(card, opts = {}) {
  const tag = opts.onclick ? "button" : (opts.tag || "div");
  const classes = ["card", `card-${opts.size || "md"}`, ...(opts.classes || [])];
  const dataset = { card, zone: opts.zone, ...(opts.dataset || {}) };
  let body;
  if (isTroop(card)) {
    const value = parseInt(card, 10);
    const colour = card.slice(-1);
    classes.push("troop", `c-${colour}`);
    body = [h("span", { class: "pip pip-tl" }, String(value)),
            h("span", { class: "big" }, String(value)),
            h("span", { class: "pip pip-br" }, String(value))];
  } else {
    const info = TACTICS_INFO[card] || { kind: "Tactics", icon: "★", text: "" };
    classes.push("tactic", `t-${card}`, `tk-${info.kind.toLowerCase()}`);
    // The name at both ends, like a troop's pips: a card half covered on the table still
    // shows it.
    const name = info.label || card;
    body = [h("span", { class: "t-name t-name-top" }, name),
            h("span", { class: "t-icon", "aria-hidden": "true" }, info.icon),
            h("span", { class: "t-kind" }, info.kind),
            h("span", { class: "t-name t-name-bottom", "aria-hidden": "true" }, name)];
  }
  const attrs = { class: classes, dataset, title: cardTitle(card), "aria-label": cardTitle(card) };
  if (tag === "button") {
    attrs.type = "button";
    attrs.disabled = opts.disabled || false;
    attrs.onclick = opts.onclick;
  }
  return h(tag, attrs, body);
}

/** A face-down card showing only its kind (troop or tactics), as the protocol reveals. */
export function cardBack(kind, opts = {}) {
  return h("div", { class: ["card", "back", `back-${kind}`, `card-${opts.size || "sm"}`],
                    dataset: { back: kind }, title: `a ${kind} card` },
           h("span", { class: "back-mark", "aria-hidden": "true" }, kind === "troop" ? "⚔" : "★"),
           h("span", { class: "back-kind" }, kind === "troop" ? "Troop" : "Tactics"));
}

/** A small inline card name for the event log. */
export function cardChip(card) {
  const colour = isTroop(card) ? `c-${card.slice(-1)}` : "tactic";
  const label = isTroop(card) ? card : (TACTICS_INFO[card]?.label || card);
  return h("span", { class: ["chip", colour], dataset: { card }, title: cardTitle(card) }, label);
}

// ---- event text ------------------------------------------------------------------------------

/** Who a seat is, for the viewer: "You" or "North (zoe)". */
export function seatLabel(seat, seats, me) {
  if (seat === me) return "You";
  const name = seats?.[seat]?.name;
  return name ? `${SEAT_NAMES[seat]} (${name})` : SEAT_NAMES[seat];
}

const REASONS = {
  five_flags: "five flags", breakthrough: "breakthrough (three adjacent flags)",
  stalemate: "stalemate", timeout: "time", resignation: "resignation", forfeit: "forfeit",
  void: "void (server fault)",
};

export function outcomeText(outcome, seats, me) {
  if (!outcome) return "";
  const reason = REASONS[outcome.reason] || outcome.reason;
  const scores = outcome.scores ? ` · flags ${outcome.scores.join("–")}` : "";
  const winners = outcome.ranks.map((r, s) => (r === 0 ? s : null)).filter((s) => s !== null);
  if (winners.length !== 1) return `Draw — ${reason}${scores}`;
  const who = winners[0] === me ? "You win" : me === null || me === undefined
    ? `${seatLabel(winners[0], seats, me)} wins` : "You lose";
  return `${who} — ${reason}${scores}`;
}

/** Log lines (arrays of strings and nodes) for one `events` message. */
export function eventLines(events, seats, me) {
  const lines = [];
  const deals = events.filter((e) => e.type === "deal");
  const summarise = deals.length > 1;  // the live deal comes as one message of 14 events
  if (summarise) {
    const mine = deals.filter((e) => e.card && e.seat === me).map((e) => e.card);
    lines.push([`Cards dealt, ${Math.floor(deals.length / 2)} each`,
                ...(mine.length ? [" — your hand: ", ...mine.sort((a, b) => cardIndex(a) - cardIndex(b)).map(cardChip)] : [])]);
  }
  for (const ev of events) {
    const who = ev.seat !== undefined ? seatLabel(ev.seat, seats, me) : "";
    switch (ev.type) {
      case "deal":
        if (!summarise) lines.push(ev.card ? [`${who} ${who === "You" ? "were" : "was"} dealt `, cardChip(ev.card)]
                                           : [`${who} ${who === "You" ? "were" : "was"} dealt a card`]);
        break;
      case "draw":
        lines.push(ev.card ? [`${who} drew `, cardChip(ev.card)] : [`${who} drew a ${ev.deck} card`]);
        break;
      case "return":
        lines.push(ev.card ? [`${who} put `, cardChip(ev.card), ` back on the ${ev.deck} deck`]
                           : [`${who} put a card back on the ${ev.deck} deck`]);
        break;
      case "play":
        lines.push(playLine(ev, who));
        break;
      case "claim":
        lines.push([`${who} claimed flag ${ev.flag}${ev.by === "stalemate" ? " (stalemate)" : ""}`]);
        break;
      case "pass":
        lines.push([`${who} passed`]);
        break;
      case "game_over":
        lines.push([`Game over: ${outcomeText(ev, seats, me)}`]);
        break;
      case "timeout":
        lines.push([`${ev.seats.map((s) => seatLabel(s, seats, me)).join(", ")} ran out of time`]);
        break;
      case "forfeit":
        lines.push([`${ev.seats.map((s) => seatLabel(s, seats, me)).join(", ")} forfeited`]);
        break;
      case "resigned":
        lines.push([`${who} resigned`]);
        break;
      case "disconnected":
        lines.push([`${who} disconnected`]);
        break;
      case "reconnected":
        lines.push([`${who} reconnected`]);
        break;
      default:
        lines.push([`${ev.type}`]);
    }
  }
  return lines;
}

function playLine(ev, who) {
  const card = ev.card;
  switch (cardKind(card)) {
    case "slot":
      return [`${who} played `, cardChip(card), ` on flag ${ev.flag}`];
    case "env":
      return [`${who} played `, cardChip(card), ` beside flag ${ev.flag}`];
    case "Scout":
      return [`${who} played `, cardChip(card), " — three draws, then two cards go back"];
    case "Redeploy":
      return [`${who} played `, cardChip(card), ": ", cardChip(ev.target),
              ev.to_flag === null || ev.to_flag === undefined
                ? ` from flag ${ev.from_flag} to the discard pile`
                : ` from flag ${ev.from_flag} to flag ${ev.to_flag}`];
    case "Deserter":
      return [`${who} played `, cardChip(card), ": discarded ", cardChip(ev.target), ` from flag ${ev.flag}`];
    case "Traitor":
      return [`${who} played `, cardChip(card), ": took ", cardChip(ev.target),
              ` from flag ${ev.from_flag} to flag ${ev.to_flag}`];
    default:
      return [`${who} played `, cardChip(card)];
  }
}

// ---- the table ---------------------------------------------------------------------------------

/**
 * One Battle Line match on screen. `opts`:
 *   seats       SeatInfo list from match_start
 *   me          your seat, or null for a spectator / replay
 *   send(a)     answer the open request with action a (players only)
 *   resign()    resign (players only)
 *   replay      true: no actions; both hands face up when the replay has every seat's view
 */
export class BattleLineTable extends MatchTable {
  constructor(root, opts) {
    super(root, { game: "battleline", ...opts }, "bl-root");
    this._keys = (e) => { if (e.key === "Escape") this.cancel(); };
    document.addEventListener("keydown", this._keys);
  }

  clearSelection() {
    this.sel = {};           // what has been picked so far: {card, from_flag, target}
  }

  destroy() {
    document.removeEventListener("keydown", this._keys);
  }

  get bottomSeat() {
    return this.nearSeat ?? 1;
  }

  eventLines(events) {
    return eventLines(events, this.seats, this.me);
  }

  // ---- composing an action ----------------------------------------------------------------

  cancel() {
    if (Object.keys(this.sel).length) {
      this.sel = {};
      this.render();
    }
  }

  /** Plays still possible with what has been picked so far. */
  candidates() {
    const sel = this.sel;
    if (!sel.card) return [];
    return this.legal.filter((a) => a.type === "play" && a.card === sel.card
      && (sel.from_flag === undefined || (a.from_flag ?? a.flag) === sel.from_flag)
      && (sel.target === undefined || a.target === sel.target));
  }

  /** What the next click must choose: "flag", "table", "to_flag", "confirm" or null. */
  stage() {
    const card = this.sel.card;
    if (!card) return null;
    const kind = cardKind(card);
    if (kind === "slot" || kind === "env") return "flag";
    if (kind === "Scout") return "confirm";
    if (kind === "Deserter") return "table";
    return this.sel.target === undefined ? "table" : "to_flag";
  }

  pickHandCard(card) {
    const legal = this.legal;
    if (legal.some((a) => a.type === "return")) {
      const action = legal.find((a) => a.type === "return" && a.card === card);
      if (action) this.submit(action);
      return;
    }
    if (this.sel.card === card) {
      this.sel = {};
    } else if (legal.some((a) => a.type === "play" && a.card === card)) {
      this.sel = { card };
    }
    this.render();
  }

  pickFlag(flag) {
    const stage = this.stage();
    const found = this.candidates().find((a) =>
      (stage === "flag" && a.flag === flag) || (stage === "to_flag" && a.to_flag === flag));
    if (found) this.submit(found);
  }

  pickTableCard(flag, card) {
    if (this.stage() !== "table") return;
    const matches = this.candidates().filter((a) => (a.from_flag ?? a.flag) === flag && a.target === card);
    if (!matches.length) return;
    if (this.sel.card === "Deserter") {
      this.submit(matches[0]);
      return;
    }
    this.sel = { ...this.sel, from_flag: flag, target: card };
    this.render();
  }

  // ---- drawing -------------------------------------------------------------------------------

  render() {
    const root = this.root;
    const view = this.view;
    if (!view) return;
    const focus = document.activeElement?.dataset?.focusKey;
    this.resetRoot(this.over || view.phase === "over");
    root.dataset.phase = view.phase;
    const legal = this.legal;

    const bottom = this.bottomSeat;
    const top = 1 - bottom;
    const main = h("div", { class: "bl-main" },
      this.renderSeatBar(top, "top"),
      this.renderBoard(top, bottom, legal),
      this.over || view.outcome ? this.renderBanner() : null,
      this.renderSeatBar(bottom, "bottom"),
      this.me !== null ? this.renderPrompt(legal) : null,
      this.me !== null ? this.renderHand(legal) : null);
    const side = h("aside", { class: "bl-panel" },
      this.renderDecks(legal),
      this.renderDiscards(),
      this.renderLog());
    root.appendChild(main);
    root.appendChild(side);
    if (focus) root.querySelector(`[data-focus-key="${focus}"]`)?.focus();
  }

  renderSeatBar(seat, where) {
    const view = this.view;
    const info = this.seats[seat] || {};
    const hand = view.hands[seat];
    const acting = view.to_act === seat && !this.over && view.phase !== "over";
    let cards;
    if (this.replay && this.seatViews) {
      cards = this.seatViews[seat].hand.map((c) => cardFace(c, { size: "xs", zone: "replay-hand", dataset: { seat } }));
    } else if (seat === this.me) {
      cards = [h("span", { class: "hand-count" }, `${hand.troop + hand.tactics} cards in hand`)];
    } else {
      const known = view.opponent_known || [];
      cards = [];
      for (let i = 0; i < hand.troop; i += 1) cards.push(cardBack("troop", { size: "xs" }));
      for (let i = 0; i < hand.tactics; i += 1) cards.push(cardBack("tactics", { size: "xs" }));
      if (known.length) {
        cards.push(h("span", { class: "known" }, "known: ", ...known.map(cardChip)));
      }
    }
    return h("div", { class: ["seatbar", `seatbar-${where}`, acting ? "acting" : null],
                      dataset: { seat } },
      h("div", { class: "seat-id" },
        h("span", { class: "seat-name" }, SEAT_NAMES[seat]),
        h("span", { class: "player-name" }, info.name || "?"),
        h("span", { class: ["kind", `kind-${info.kind}`] }, info.kind || ""),
        seat === this.me ? h("span", { class: "you" }, "you") : null),
      h("div", { class: "seat-hand", dataset: { handOf: seat }, "aria-label": `${SEAT_NAMES[seat]}'s hand` }, cards),
      h("div", { class: "seat-stats" },
        h("span", { title: "tactics cards played" }, `tactics played ${view.tactics_played[seat]}`),
        h("span", { title: "flags claimed" },
          `flags ${view.flags.filter((f) => f.claimed === seat).length}`)),
      this.replay ? null : h("div", { class: ["clock", acting ? "running" : null], dataset: { clock: seat } },
        this.clockText(seat)));
  }

  clockText(seat) {
    if (!this.clocks) return "untimed";
    let ms = this.clocks[seat];
    if (this.view.to_act === seat && !this.over && this.view.phase !== "over" && !this.replay) {
      ms -= performance.now() - this.clockAt;
    }
    return formatClock(ms);
  }

  renderBoard(top, bottom, legal) {
    const view = this.view;
    const stage = this.stage();
    const candidates = this.candidates();
    const claimable = new Set(legal.filter((a) => a.type === "claim").map((a) => a.flag));
    const flagTargets = new Set(candidates.map((a) => (stage === "flag" ? a.flag : stage === "to_flag" ? a.to_flag : undefined))
      .filter((f) => typeof f === "number"));
    const tableTargets = new Set(stage === "table"
      ? candidates.map((a) => `${a.from_flag ?? a.flag}:${a.target}`) : []);
    const columns = view.flags.map((f) => {
      const n = f.flag;
      const isTarget = flagTargets.has(n);
      const side = (seat, where) => {
        const cards = f.sides[seat].map((card, i) => {
          const key = `${n}:${card}`;
          const targetable = tableTargets.has(key);
          const chosen = this.sel.from_flag === n && this.sel.target === card;
          return cardFace(card, {
            zone: "table", size: "sm",
            classes: [targetable ? "is-target" : null, chosen ? "is-selected" : null, `stack-${i}`],
            dataset: { flag: n, seat },
            onclick: targetable ? () => this.pickTableCard(n, card) : null,
          });
        });
        const size = "Mud" in f.env ? 4 : 3;
        const complete = f.complete?.includes(seat);
        return h("div", { class: ["bl-side", `bl-side-${where}`, complete ? "complete" : null,
                                  seat === bottom && isTarget ? "is-target" : null],
                          dataset: { side: seat, flag: n, slots: size } },
          cards,
          seat === bottom && isTarget && this.me !== null
            ? h("button", { type: "button", class: "bl-drop", dataset: { dropFlag: n },
                            onclick: (e) => { e.stopPropagation(); this.pickFlag(n); } },
                stage === "to_flag" ? "move here" : (cardKind(this.sel.card) === "env" ? "place here" : "play here"))
            : null);
      };
      const env = Object.entries(f.env).map(([card, owner]) => {
        const key = `${n}:${card}`;
        const targetable = tableTargets.has(key);
        return cardFace(card, { zone: "env", size: "xs",
          classes: [targetable ? "is-target" : null, `env-of-${owner === bottom ? "bottom" : "top"}`],
          dataset: { flag: n, seat: owner },
          onclick: targetable ? () => this.pickTableCard(n, card) : null });
      });
      const claimedBy = f.claimed;
      const marker = h("div", { class: ["bl-flag", claimedBy === null ? "open" : claimedBy === bottom ? "won-bottom" : "won-top",
                                        claimable.has(n) ? "claimable" : null],
                                dataset: { flagMarker: n, claimed: claimedBy ?? "" } },
        h("span", { class: "flag-icon", "aria-hidden": "true" }, "⚑"),
        h("span", { class: "flag-no" }, String(n)),
        env.length ? h("div", { class: "env" }, env) : null,
        claimable.has(n)
          ? h("button", { type: "button", class: "bl-claim", dataset: { claim: n },
                          onclick: () => this.submit({ type: "claim", flag: n }) }, "Claim")
          : null,
        claimedBy !== null ? h("span", { class: "claimed-by" }, claimedBy === this.me ? "yours" : SEAT_NAMES[claimedBy]) : null);
      return h("div", { class: ["bl-flag-col", isTarget ? "is-target" : null, claimable.has(n) ? "claimable" : null],
                        dataset: { flag: n },
                        onclick: isTarget ? () => this.pickFlag(n) : null },
        side(top, "top"), marker, side(bottom, "bottom"));
    });
    return h("div", { class: "bl-board", role: "grid", "aria-label": "the nine flags" }, columns);
  }

  renderPrompt(legal) {
    const view = this.view;
    const buttons = [];
    let text;
    const stage = this.stage();
    if (this.over || view.phase === "over") {
      text = "The game is over.";
    } else if (!this.request) {
      text = this._sent ? "Sent…" : `Waiting for ${seatLabel(view.to_act ?? 1 - this.me, this.seats, this.me)}…`;
    } else if (legal.some((a) => a.type === "return")) {
      text = `Scout: put ${view.returns_left === 1 ? "one more card" : `${view.returns_left} cards`} back on top of its deck — click a card in your hand.`;
    } else if (legal.some((a) => a.type === "draw")) {
      const scout = view.scout_draws_left;
      text = scout ? `Scout: draw ${scout} more card${scout > 1 ? "s" : ""} — click a deck.` : "Draw a card — click the troop or the tactics deck.";
    } else if (stage === "flag") {
      text = cardKind(this.sel.card) === "env"
        ? `Place ${this.sel.card} beside a highlighted flag.` : "Click a highlighted flag to play the card there.";
    } else if (stage === "confirm") {
      text = "Scout: you will draw three cards (from either deck), then put two back on top.";
      buttons.push(h("button", { type: "button", class: "primary", dataset: { action: "scout" },
                                 onclick: () => this.submit(this.candidates()[0]) }, "Play Scout"));
    } else if (stage === "table") {
      text = { Redeploy: "Redeploy: pick one of your cards (or your Fog/Mud) on the table.",
               Deserter: "Deserter: pick an opponent's card to discard.",
               Traitor: "Traitor: pick an opponent's troop card to take." }[this.sel.card];
    } else if (stage === "to_flag") {
      const canDiscard = this.candidates().some((a) => a.to_flag === null);
      text = `Move ${this.sel.target} to a highlighted flag${canDiscard ? ", or discard it" : ""}.`;
      if (canDiscard) {
        buttons.push(h("button", { type: "button", dataset: { action: "discard" },
                                   onclick: () => this.submit(this.candidates().find((a) => a.to_flag === null)) },
                       "Discard it"));
      }
    } else {
      const claims = legal.filter((a) => a.type === "claim").length;
      const plays = legal.some((a) => a.type === "play");
      text = [claims ? `You can claim ${claims === 1 ? "a flag" : `${claims} flags`} (gold). ` : "",
              plays ? "Pick a card from your hand." : ""].join("") || "Your move.";
    }
    if (this.sel.card) {
      buttons.push(h("button", { type: "button", dataset: { action: "cancel" }, onclick: () => this.cancel() }, "Cancel"));
    }
    if (legal.some((a) => a.type === "pass")) {
      buttons.push(h("button", { type: "button", dataset: { action: "pass" },
                                 title: "No troop card of yours can be placed",
                                 onclick: () => this.submit({ type: "pass" }) }, "Pass"));
    }
    if (legal.some((a) => a.type === "end_claims")) {
      buttons.push(h("button", { type: "button", dataset: { action: "end_claims" },
                                 onclick: () => this.submit({ type: "end_claims" }) }, "End claims"));
    }
    if (this.resign && !this.over && view.phase !== "over") {
      buttons.push(confirmButton("Resign", "Really resign?", () => this.resign(),
                                 { class: "subtle", dataset: { action: "resign" } }, this));
    }
    return h("div", { class: ["bl-prompt", this.request ? "your-turn" : null] },
      h("span", { class: "prompt-text", role: "status" }, text), h("span", { class: "prompt-buttons" }, buttons));
  }

  renderHand(legal) {
    const view = this.view;
    const hand = view.hand || [];
    const returning = legal.some((a) => a.type === "return");
    const playable = new Set(legal.filter((a) => a.type === "play").map((a) => a.card));
    const returnable = new Set(legal.filter((a) => a.type === "return").map((a) => a.card));
    const tacticsBlocked = view.tactics_played[this.me] > view.tactics_played[1 - this.me];
    const cards = hand.map((card) => {
      const usable = returning ? returnable.has(card) : playable.has(card);
      let why = null;
      if (!usable && this.request && !returning && !isTroop(card)) {
        if (tacticsBlocked) why = "You may not play more tactics cards than your opponent.";
        else if ((card === "Alexander" || card === "Darius") && view.leaders_played[this.me]) why = "Only one Leader per game.";
      }
      const face = cardFace(card, {
        zone: "hand", size: "lg",
        classes: [usable ? "playable" : "idle", this.sel.card === card ? "is-selected" : null,
                  returning && usable ? "returnable" : null],
        disabled: !usable,
        dataset: { focusKey: `hand-${card}` },
        onclick: () => this.pickHandCard(card),
      });
      if (why) face.title = `${cardTitle(card)} — ${why}`;
      return face;
    });
    return h("div", { class: "bl-hand", "aria-label": "your hand" }, cards);
  }

  renderDecks(legal) {
    const view = this.view;
    const drawable = new Set(legal.filter((a) => a.type === "draw").map((a) => a.deck));
    const deck = (name) => {
      const count = view.decks[name];
      const tops = view.known_tops?.[name] || [];
      const topNote = tops.length
        ? h("div", { class: "deck-tops" }, "on top: ", ...tops.map((c) => (c ? cardChip(c) : h("span", { class: "chip unknown" }, "?"))))
        : null;
      return h("div", { class: "deck-wrap" },
        h("button", { type: "button", class: ["bl-deck", `deck-${name}`, drawable.has(name) ? "drawable" : null],
                      dataset: { deck: name }, disabled: !drawable.has(name),
                      title: `${name} deck: ${count} card${count === 1 ? "" : "s"}`,
                      onclick: () => this.submit({ type: "draw", deck: name }) },
          h("span", { class: "deck-pile", "aria-hidden": "true" }, cardBack(name, { size: "sm" })),
          h("span", { class: "deck-label" }, name === "troop" ? "Troops" : "Tactics"),
          h("span", { class: "deck-count", dataset: { deckCount: name } }, String(count))),
        topNote);
    };
    return h("section", { class: "panel-box decks" }, h("h3", {}, "Decks"),
      h("div", { class: "deck-row" }, deck("troop"), deck("tactics")));
  }

  renderDiscards() {
    const view = this.view;
    const rows = [this.bottomSeat, 1 - this.bottomSeat].map((seat) =>
      h("div", { class: "discard-row" },
        h("span", { class: "discard-who" }, seatLabel(seat, this.seats, this.me)),
        view.discards[seat].length ? view.discards[seat].map(cardChip) : h("span", { class: "muted" }, "none")));
    return h("section", { class: "panel-box discards" }, h("h3", {}, "Discards"), rows);
  }

  renderLog() {
    // Newest first: the latest event is always in sight without scrolling.
    return h("section", { class: "panel-box log" }, h("h3", {}, "Events · newest first"),
      h("ol", { class: "log-list", reversed: true, "aria-live": "polite" },
        this.log.map((line) => h("li", {}, line)).reverse()));
  }

  renderBanner() {
    const outcome = this.over?.outcome || this.view.outcome;
    return this.banner(outcome, outcomeText(outcome, this.seats, this.me));
  }
}

/** The web client's registry entry (games.js): this game's board. */
export const Board = BattleLineTable;
