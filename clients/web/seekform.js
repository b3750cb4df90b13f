// The lobby's match settings: the time control and the game's options, for `play_bot`,
// `seek` and `challenge` alike (PROTOCOL.md: Clock, GameInfo.default_options).
//
// Time controls: presets (bank + increment, as "1+0", "3+2", "5+3", "10+5" are said), untimed,
// or a custom bank (minutes) and increment (seconds). Options: one field per key of the game's
// `default_options`, by the default's type — a choice list where the values are known here,
// a checkbox for a flag, a number field for a number, text otherwise. The server checks them
// (a bad value is refused with `bad_request`, shown as a toast).

import { h } from "./dom.js";

export const CLOCK_PRESETS = [
  { label: "1 min + 0 s", clock: { initial_ms: 60000, increment_ms: 0 } },
  { label: "3 min + 2 s", clock: { initial_ms: 180000, increment_ms: 2000 } },
  { label: "5 min + 3 s", clock: { initial_ms: 300000, increment_ms: 3000 } },
  { label: "10 min + 5 s", clock: { initial_ms: 600000, increment_ms: 5000 } },
  { label: "30 min + 10 s", clock: { initial_ms: 1800000, increment_ms: 10000 } },
  { label: "untimed", clock: null },
  { label: "custom…", custom: true },
];
export const DEFAULT_PRESET = 2;
const CUSTOM = CLOCK_PRESETS.findIndex((p) => p.custom);

/** Values an option may take, where a game's options are choices (the server's list). */
const CHOICES = {
  battleline: {
    claim_timing: [["start", "at the start of your turn"], ["after_play", "after your play"]],
    mud_excess: [["keep", "keep the fourth card"], ["forbid", "forbid it"]],
    stalemate: [["resolve", "resolve it"], ["draw", "a draw"]],
  },
};
const LABELS = { claim_timing: "Claims", mud_excess: "Mud, a fourth card too many", stalemate: "Stalemate" };

function labelOf(key) {
  const text = LABELS[key] || key.replace(/_/g, " ");
  return text[0].toUpperCase() + text.slice(1);
}

/** Fill in what the form lacks (it starts as app.js made it). */
function ready(form) {
  form.clock ??= DEFAULT_PRESET;
  form.bank_min ??= 5;
  form.increment_s ??= 3;
  form.options ??= {};
  return form;
}

/** The clock fields: the preset list (#play-clock), and bank and increment for "custom". */
export function clockFields(form, refresh) {
  ready(form);
  const fields = [h("label", {}, "Clock",
    h("select", { id: "play-clock", onchange: (e) => { form.clock = Number(e.target.value); refresh(); } },
      CLOCK_PRESETS.map((c, i) => h("option", { value: String(i), selected: i === Number(form.clock) }, c.label))))];
  if (Number(form.clock) === CUSTOM) {
    fields.push(h("span", { class: "custom-clock" },
      h("label", {}, "Bank (min)", h("input", { id: "clock-bank", type: "number", min: "0.25", max: "600", step: "0.25",
                                                 value: String(form.bank_min), oninput: (e) => { form.bank_min = e.target.value; } })),
      h("label", {}, "+ increment (s)", h("input", { id: "clock-increment", type: "number", min: "0", max: "600", step: "1",
                                                      value: String(form.increment_s), oninput: (e) => { form.increment_s = e.target.value; } }))));
  }
  return fields;
}

/** The Clock the form says (null: untimed); throws an Error on a custom clock that is not one. */
export function clockOf(form) {
  ready(form);
  const preset = CLOCK_PRESETS[Number(form.clock)];
  if (!preset?.custom) return preset ? preset.clock : null;
  const bank = Math.round(Number(form.bank_min) * 60000);
  const increment = Math.round(Number(form.increment_s) * 1000);
  if (!(bank > 0) || !(increment >= 0)) throw new Error("a custom clock needs a bank above 0 and an increment of 0 or more");
  return { initial_ms: bank, increment_ms: increment };
}

/** The game's options as fields (none for a game without options). */
export function optionFields(game, form) {
  ready(form);
  const defaults = game.default_options || {};
  const keys = Object.keys(defaults);
  if (!keys.length) return [];
  const chosen = (form.options[game.name] ??= {});
  const set = (key, value) => { chosen[key] = value; };
  const fields = keys.map((key) => {
    const value = chosen[key] ?? defaults[key];
    const id = `opt-${key}`;
    const choices = CHOICES[game.name]?.[key];
    let input;
    if (choices) {
      input = h("select", { id, dataset: { option: key }, onchange: (e) => set(key, e.target.value) },
        choices.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
    } else if (typeof defaults[key] === "boolean") {
      input = h("input", { id, type: "checkbox", checked: Boolean(value), dataset: { option: key }, onchange: (e) => set(key, e.target.checked) });
    } else if (typeof defaults[key] === "number") {
      input = h("input", { id, type: "number", value: String(value), dataset: { option: key }, oninput: (e) => set(key, Number(e.target.value)) });
    } else {
      input = h("input", { id, type: "text", value: String(value), dataset: { option: key }, oninput: (e) => set(key, e.target.value) });
    }
    return h("label", {}, labelOf(key), input);
  });
  // (the lobby redraws the form often: the box stays as the player left it)
  return [h("details", { class: "game-options", open: form.options_open || null, ontoggle: (e) => { form.options_open = e.target.open; } },
    h("summary", {}, `${game.title} options`), h("div", { class: "option-fields" }, fields))];
}

/** The options the form says for `game` (what was changed; the server fills in the defaults). */
export function optionsOf(game, form) {
  ready(form);
  return { ...(form.options[game.name] || {}) };
}
