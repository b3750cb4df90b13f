// What a match page shows beside the board: the chat (players' or spectators', by role) and,
// for a player once the match is over, the rematch bar. The board redraws itself often;
// these keep their own state (lines typed, offers) outside it, for as long as the match's
// record lives in the client.

import { h } from "./dom.js";
import { ChatPanel } from "./chat.js";
import { RematchBar } from "./rematch.js";

export class TableExtras {
  /** `start`: the match_start; `me`: this session's account name. */
  constructor(conn, start, { spectating, me }) {
    this.chat = new ChatPanel(conn, start.match_id, { spectating, me });
    this.rematch = spectating ? null : new RematchBar(conn, start.match_id, { me });
    this.root = h("div", { class: "table-extras" }, this.rematch?.root, this.chat.root);
    if (start.status !== "live") this.ended();
  }

  /** The match is over (its match_end came). */
  ended() {
    this.rematch?.ended();
  }

  destroy() {
    this.chat.destroy();
    this.rematch?.destroy();
  }
}
