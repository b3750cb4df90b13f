// Small DOM helpers shared by every page of the web client (no framework, no build step).

const SVG_NS = "http://www.w3.org/2000/svg";

/** h("div", {class: "x", onclick: fn, dataset: {flag: 3}}, child, "text", [more]) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  return fill(el, attrs, children);
}

/** The same for SVG elements. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  return fill(el, attrs, children);
}

function fill(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) {
        if (v !== null && v !== undefined) el.dataset[k] = String(v);
      }
    } else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class" && Array.isArray(value)) {
      el.setAttribute("class", value.filter(Boolean).join(" "));
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** "4:05", "0:09.5" under ten seconds, "—" when untimed. */
export function formatClock(ms) {
  if (ms === null || ms === undefined) return "—";
  const clamped = Math.max(0, ms);
  const total = Math.floor(clamped / 1000);
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  if (clamped < 10000) return `0:0${(clamped / 1000).toFixed(1)}`;
  return `${minutes}:${String(seconds).padStart(2, "0")}`;
}

export function formatWhen(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

/** A transient message in the corner: toast("illegal: …", "error"). */
export function toast(text, kind = "info") {
  let box = document.getElementById("toasts");
  if (!box) {
    box = h("div", { id: "toasts", "aria-live": "polite" });
    document.body.appendChild(box);
  }
  const item = h("div", { class: ["toast", `toast-${kind}`], role: kind === "error" ? "alert" : "status" }, text);
  box.appendChild(item);
  setTimeout(() => item.classList.add("toast-fade"), 4000);
  setTimeout(() => item.remove(), 4600);
}

const armedUntil = new Map(); // key -> when its arming lapses (ms): a re-render keeps it

/** A button that asks for a second click within three seconds before it acts. */
export function confirmButton(label, confirmLabel, onConfirm, attrs = {}, key = null) {
  // `key` (e.g. the board): the armed state outlives this element, so a button drawn anew
  // between the two clicks (an opponent's move re-renders the prompt) is still armed.
  const button = h("button", { type: "button", ...attrs }, label);
  let armed = false;
  let timer = null;
  const show = (on) => {
    armed = on;
    button.textContent = on ? confirmLabel : label;
    button.classList.toggle("armed", on);
  };
  const arm = (ms) => {
    show(true);
    clearTimeout(timer);
    timer = setTimeout(() => {
      show(false);
      if (key !== null && !(armedUntil.get(key) > Date.now())) armedUntil.delete(key);
    }, ms);
  };
  if (key !== null && armedUntil.get(key) > Date.now()) arm(armedUntil.get(key) - Date.now());
  button.addEventListener("click", () => {
    if (armed) {
      clearTimeout(timer);
      show(false);
      if (key !== null) armedUntil.delete(key);
      onConfirm();
      return;
    }
    if (key !== null) armedUntil.set(key, Date.now() + 3000);
    arm(3000);
  });
  return button;
}
