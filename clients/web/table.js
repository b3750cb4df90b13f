// What every game's table in the browser shares: its options, and how it is fed the
// protocol's messages (match_start, request, events' clocks). A game's table extends
// MatchTable and supplies copyView (its own view copy), clearSelection and render.

export class MatchTable {
  constructor(root, opts, rootClass) {
    this.root = root;
    this.seats = opts.seats || [];
    this.me = opts.me ?? null;
    this.sendAction = opts.send || null;
    this.resign = opts.resign || null;
    this.replay = Boolean(opts.replay);
    this.view = null;
    this.request = null;     // the open request, until answered
    this.log = [];
    this.clocks = null;
    this.clockAt = 0;
    this.seq = 0;
    this.over = null;        // match_end message
    this.status = "live";
    this.clearSelection();
    this.root.classList.add(rootClass);
  }

  destroy() {}

  start(msg) {
    this.seats = msg.seats;
    this.view = this.copyView(msg.view);
    this.seq = msg.seq || 0;
    this.status = msg.status;
    this.setClocks(msg.clocks_ms);
    this.render();
  }

  setView(view) {
    this.view = this.copyView(view);
    this.render();
  }

  setClocks(clocks) {
    this.clocks = clocks ? [...clocks] : null;
    this.clockAt = performance.now();
  }

  onRequest(msg) {
    this.view = this.copyView(msg.view);
    this.request = msg;
    this.clearSelection();
    if (this.clocks && msg.clock_ms !== null && msg.clock_ms !== undefined) {
      this.clocks[msg.seat] = msg.clock_ms;
      this.clockAt = performance.now();
    }
    this.render();
  }
}
