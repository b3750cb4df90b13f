// The match chat panel: the players' chat for a seat, the spectators' chat for a watcher
// (the server keeps the two apart: PROTOCOL.md `chat`, section 10).
//
// Every line is put on the page as text (a text node), never as markup: a line such as
// "<img src=x onerror=…>" shows as those characters. A line's sender can be muted: the
// server then stops sending that account's lines to this session (`mute`), and the lines
// already shown are hidden; "unmute" undoes both.

import { h, clear, toast } from "./dom.js";

export const MAX_CHAT_CHARS = 500;
const KEPT_LINES = 200;

export class ChatPanel {
  /** `conn`: the ArenaConnection; `spectating`: whose chat this is; `me`: the account name. */
  constructor(conn, matchId, { spectating, me }) {
    this.conn = conn;
    this.matchId = matchId;
    this.me = me;
    this.channel = spectating ? "spectators" : "players";
    this.lines = [];
    this.muted = new Set();
    this.list = h("ol", { class: "chat-lines", "aria-live": "polite" });
    this.mutedRow = h("div", { class: "chat-muted" });
    this.input = h("input", { type: "text", class: "chat-input", maxlength: MAX_CHAT_CHARS, autocomplete: "off",
                              "aria-label": "chat line", placeholder: spectating ? "talk with the other spectators" : "talk with the other players" });
    const form = h("form", { class: "chat-form", onsubmit: (e) => { e.preventDefault(); this.say(); } },
      this.input, h("button", { type: "submit", dataset: { action: "chat-send" } }, "Send"));
    this.root = h("section", { class: "panel-box chat", dataset: { channel: this.channel } },
      h("h3", {}, spectating ? "Spectators' chat" : "Players' chat"),
      h("p", { class: "muted chat-note" }, spectating ? "Only spectators read this." : "Only the players read this; spectators have their own chat."),
      this.list, this.mutedRow, form);
    this.off = conn.on("chat_line", (msg) => {
      if (msg.match_id === this.matchId) this.add(msg);
    });
  }

  destroy() {
    this.off();
  }

  async say() {
    const text = this.input.value.trim();
    if (!text) return;
    try {
      await this.conn.ask({ type: "chat", match_id: this.matchId, text });
      this.input.value = "";
    } catch (err) {
      toast(err.code === "rate_limited" ? `${err.message}: wait a moment` : err.message, "error");
    }
  }

  add(line) {
    this.lines.push(line);
    if (this.lines.length > KEPT_LINES) this.lines.shift();
    this.render();
    this.list.scrollTop = this.list.scrollHeight;
  }

  async setMuted(account, muted) {
    try {
      await this.conn.ask({ type: "mute", match_id: this.matchId, account, muted });
      if (muted) this.muted.add(account);
      else this.muted.delete(account);
      this.render();
    } catch (err) {
      toast(err.message, "error");
    }
  }

  render() {
    clear(this.list).append(...this.lines.filter((l) => !this.muted.has(l.from)).map((line) =>
      h("li", { class: ["chat-line", line.from === this.me ? "mine" : null], dataset: { from: line.from } },
        h("span", { class: "chat-from" }, line.from),
        h("span", { class: "chat-text" }, line.text),
        line.from === this.me ? null
          : h("button", { type: "button", class: "subtle small chat-mute", dataset: { action: "mute", account: line.from },
                          title: `stop receiving ${line.from}'s lines`, onclick: () => this.setMuted(line.from, true) }, "mute"))));
    clear(this.mutedRow).append(...[...this.muted].map((account) =>
      h("span", { class: "chat-muted-account" }, `${account} muted `,
        h("button", { type: "button", class: "subtle small", dataset: { action: "unmute", account },
                      onclick: () => this.setMuted(account, false) }, "unmute"))));
  }
}
