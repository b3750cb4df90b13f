// How a finished match ended, in words: who won and how, for the match lists.
//
//   "ann#3fa1 won · resignation"   one seat ranked first
//   "ann and bob won · timeout"    several seats share the first place (three seats)
//   "draw · stalemate"             every seat ranked alike
//   "void · aborted"               an admin ended it (unrated); "void · server fault"
//
// Reasons are the outcome's, as the server names them (PROTOCOL.md Outcome), made readable.

const REASONS = {
  aborted: "aborted", void: "server fault", five_flags: "five flags", turn_limit: "turn limit",
  agreed: "agreed", resignation: "resignation", forfeit: "forfeit",
};

/** A reason as people say it: "five flags", "turn limit". */
export function reasonText(reason) {
  return REASONS[reason] || String(reason || "over").replace(/_/g, " ");
}

/** Who won and how, from a MatchSummary (or a replay: seats and outcome); "" while live. */
export function resultText(match) {
  const outcome = match.outcome;
  if (!outcome) return match.status === "live" ? "" : "over";
  const reason = reasonText(outcome.reason);
  if (outcome.reason === "void" || outcome.reason === "aborted") return `void · ${reason}`;
  const ranks = outcome.ranks || [];
  if (ranks.length > 1 && ranks.every((r) => r === ranks[0])) return `draw · ${reason}`;
  const names = ranks.map((r, seat) => (r === 0 ? nameOf(match.seats, seat) : null)).filter(Boolean);
  const who = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];
  return `${who} won · ${reason}`;
}

function nameOf(seats, seat) {
  return seats?.find((s) => s.seat === seat)?.name ?? seats?.[seat]?.name ?? `seat ${seat}`;
}
