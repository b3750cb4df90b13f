// A simple Battle Line heuristic bot: claim whatever can be claimed, draw troops, and play
// the troop card that does most for a formation (colour run > three of a kind > colour >
// run > sum). It reads only the request: `view` (the table and its own hand) and
// `legal_actions`, and always answers with one of the legal actions.
//
// Cards: troops "1r" ... "10p" (value then colour), tactics by name. The view's `flags` list
// each flag's two `sides` (cards in play order, seat 0 first), `env` (Fog/Mud), `claimed`.

const LEADERS = new Set(['Alexander', 'Darius']);

/** {value, colour} of a troop card, or null for a tactics card. */
export function troop(card) {
  const match = /^(10|[1-9])([roygbp])$/.exec(card);
  return match ? { value: Number(match[1]), colour: match[2] } : null;
}

/** How promising `cards` (troops, plus `wild` cards that can be anything) are as the start
 * of a formation of `size` cards: higher is better, 0..~16. */
export function formationPotential(cards, wild, size = 3) {
  const values = cards.map((c) => c.value);
  const total = values.reduce((a, b) => a + b, 0);
  const n = cards.length + wild;
  if (n > size) return 0;
  const sameColour = cards.every((c) => c.colour === cards[0].colour);
  const distinct = new Set(values).size === values.length;
  const span = values.length ? Math.max(...values) - Math.min(...values) : 0;
  const run = distinct && span <= size - 1;
  const sameValue = values.every((v) => v === values[0]);
  let shape = 0;
  if (sameColour && run) shape = 5;
  else if (sameValue && cards.length > 1) shape = 4;
  else if (sameValue) shape = 3.5; // one card: everything is still possible
  else if (sameColour) shape = 3;
  else if (run) shape = 2;
  return shape * 2 + total / 10;
}

export class BattleLineBot {
  choose(request) {
    const legal = request.legal_actions;
    const claim = legal.find((a) => a.type === 'claim');
    if (claim) return claim;
    const draw = legal.filter((a) => a.type === 'draw');
    if (draw.length) return draw.find((a) => a.deck === 'troop') ?? draw[0];
    const returns = legal.filter((a) => a.type === 'return');
    if (returns.length) return this.cheapestReturn(returns);
    const plays = legal.filter((a) => a.type === 'play' && troop(a.card) !== null);
    if (plays.length) return this.bestPlay(request, plays);
    const leader = legal.find((a) => a.type === 'play' && LEADERS.has(a.card));
    if (leader) return leader;
    return legal.find((a) => a.type === 'pass') ?? legal.find((a) => a.type === 'end_claims')
      ?? legal[0];
  }

  cheapestReturn(returns) {
    // Give back tactics we would not play, else the weakest troop.
    const worth = (a) => troop(a.card)?.value ?? 0;
    return returns.reduce((best, a) => (worth(a) < worth(best) ? a : best));
  }

  bestPlay(request, plays) {
    const view = request.view;
    const seat = request.seat;
    const flags = new Map((view.flags ?? []).map((f) => [f.flag, f]));
    let best = null;
    let bestScore = -Infinity;
    for (const action of plays) {
      const score = this.scorePlay(action, flags.get(action.flag), seat);
      if (score > bestScore) {
        best = action;
        bestScore = score;
      }
    }
    return best;
  }

  scorePlay(action, flag, seat) {
    const card = troop(action.card);
    const mine = flag ? flag.sides[seat] : [];
    const theirs = flag ? flag.sides[1 - seat] : [];
    const size = flag && flag.env && 'Mud' in flag.env ? 4 : 3;
    const fog = Boolean(flag && flag.env && 'Fog' in flag.env);
    const troops = mine.map(troop).filter((c) => c !== null);
    const wild = mine.length - troops.length;
    const before = mine.length ? formationPotential(troops, wild, size) : 0;
    const after = fog
      ? [...troops, card].reduce((a, c) => a + c.value, 0) / 3
      : formationPotential([...troops, card], wild, size);
    let score = after - before / 2;
    if (mine.length === 0) {
      // Opening a flag: keep good cards for flags already begun, unless nothing fits.
      score = 2 + card.value / 5;
      if (theirs.length) score += 0.5; // answer the opponent's flags first
    }
    if (mine.length + 1 === size) score += 1; // finishing a side makes it claimable sooner
    return score;
  }
}
