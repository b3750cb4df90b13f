// The browser's side of the Tabletop Arena wire protocol (protocol/PROTOCOL.md), version 1.
//
// One websocket to ws(s)://<this host>/ws speaking JSON text frames (no subprotocol offered:
// the server then speaks JSON). Nothing here knows any game: messages go in and out as the
// spec writes them.
//
//   const conn = new ArenaConnection(wsUrl(), {views: true}); // views: every `events` message
//                                                             // carries the viewer's view
//   conn.on("request", (msg) => …);            // any server message type, or "*" for all
//   const welcome = await conn.open({name: "zoe"});   // or {token} / {resume}
//   const games = await conn.ask({type: "list_games"}); // resolves with the reply (ref)
//
// `ask` rejects with an ArenaError when the reply is an `error`. When the socket drops, the
// connection reconnects with backoff and resumes the session (hello.resume, section 9); the
// server then re-sends match_start and any pending request, which arrive as ordinary
// messages. `conn.status` is "connecting" | "open" | "reconnecting" | "closed".

export const PROTOCOL_VERSION = 1;
export const CLIENT_NAME = "arena-web/0.1";

export class ArenaError extends Error {
  constructor(message) {
    super(message.message || message.code);
    this.code = message.code;
    this.details = message.details || {};
    this.reply = message;
  }
}

export function wsUrl(loc = window.location) {
  const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${loc.host}/ws`;
}

export class ArenaConnection {
  constructor(url = wsUrl(), { views = false } = {}) {
    this.url = url;
    this.views = views;         // ask for views in hello (section 4, hello)
    this.ws = null;
    this.status = "closed";
    this.welcome = null;
    this.session = null;        // resume token from welcome
    this._hello = null;         // the identity part of the first hello: {name} or {token}
    this._nextId = 1;
    this._pending = new Map();  // id -> {resolve, reject, ws}: the socket it was asked on
    this._handlers = new Map(); // type -> Set(fn)
    this._closedByUs = false;
    this._attempt = 0;
    this._timer = null;
  }

  on(type, fn) {
    if (!this._handlers.has(type)) this._handlers.set(type, new Set());
    this._handlers.get(type).add(fn);
    return () => this._handlers.get(type).delete(fn);
  }

  _emit(type, payload) {
    for (const key of [type, "*"]) {
      for (const fn of this._handlers.get(key) || []) {
        try {
          fn(payload);
        } catch (err) {
          console.error(`handler for ${type} failed`, err);
        }
      }
    }
  }

  _views() {
    return this.views ? { views: true } : {};
  }

  _setStatus(status) {
    this.status = status;
    this._emit("status", status);
  }

  /** Connect and say hello with `identity` ({name}, {token} or {resume}); resolves with the
   *  welcome, rejects with an ArenaError (e.g. unauthorized). */
  open(identity = {}, fallback = null) {
    // `fallback` is who to be if a resume token is refused on a later reconnect.
    this._closedByUs = false;
    this._hello = identity.resume ? fallback : { ...identity };
    if (!identity.resume) this.session = null;
    return this._connect(identity);
  }

  _connect(identity) {
    return new Promise((resolve, reject) => {
      this._setStatus(this.welcome ? "reconnecting" : "connecting");
      const old = this.ws;
      const ws = new WebSocket(this.url);
      this.ws = ws;  // first: the old socket's close handler then knows it is replaced
      if (old && old.readyState <= WebSocket.OPEN) old.close(1000, "replaced");
      let greeted = false;
      ws.onopen = () => {
        // A hello refused by the rate limiter (this address's budget still in debt from
        // earlier pages) is sent again after retry_after, on the same connection.
        this.askPatiently({ type: "hello", protocol: PROTOCOL_VERSION, client: CLIENT_NAME, ...this._views(), ...identity })
          .then((welcome) => {
            greeted = true;
            this._attempt = 0;
            this.welcome = welcome;
            this.session = welcome.session;
            this._setStatus("open");
            this._emit("welcome", welcome);
            resolve(welcome);
          })
          .catch((err) => {
            if (identity.resume && this._hello) {
              // The server forgot the session: start a new one as the same identity.
              this.ask({ type: "hello", protocol: PROTOCOL_VERSION, client: CLIENT_NAME,
                         ...this._views(), ...this._hello })
                .then((welcome) => {
                  greeted = true;
                  this.welcome = welcome;
                  this.session = welcome.session;
                  this._setStatus("open");
                  this._emit("welcome", welcome);
                  this._emit("session_lost", welcome);
                  resolve(welcome);
                })
                .catch(reject);
              return;
            }
            reject(err);
          });
      };
      ws.onmessage = (frame) => this._receive(frame.data, ws);
      ws.onclose = () => {
        // Only this socket's questions die with it: a replaced socket's close can arrive
        // after its successor has sent hello, and that hello must not fail for it.
        for (const [id, { reject: fail, ws: asked }] of this._pending) {
          if (asked !== ws) continue;
          this._pending.delete(id);
          fail(new ArenaError({ code: "closed", message: "connection closed" }));
        }
        if (this.ws !== ws) return;
        if (this._closedByUs) {
          this._setStatus("closed");
          return;
        }
        if (!greeted && !this.session) {
          this._setStatus("closed");
          reject(new ArenaError({ code: "closed", message: "could not reach the server" }));
          return;
        }
        this._reconnectSoon();
      };
    });
  }

  _reconnectSoon() {
    // Exponential backoff with jitter, as section 9 asks: 0.1 s doubling to 5 s.
    this._setStatus("reconnecting");
    const delay = Math.min(5000, 100 * 2 ** this._attempt) * (0.5 + Math.random() / 2);
    this._attempt += 1;
    clearTimeout(this._timer);
    this._timer = setTimeout(() => {
      const identity = this.session ? { resume: this.session, ...(this._hello?.token ? { token: this._hello.token } : {}) }
                                    : this._hello || {};
      this._connect(identity).catch(() => this._reconnectSoon());
    }, delay);
  }

  /** Who to be from now on when a resume is refused on a reconnect (a guest that signed up
   *  or in is the account now: {token: its login token}). */
  setIdentity(identity) {
    this._hello = { ...identity };
  }

  close() {
    this._closedByUs = true;
    clearTimeout(this._timer);
    if (this.ws) this.ws.close(1000, "bye");
    this._setStatus("closed");
  }

  _receive(data, ws) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      console.warn("not JSON from the server", data);
      return;
    }
    if (message.ref !== undefined && this._pending.has(message.ref)) {
      const { resolve, reject } = this._pending.get(message.ref);
      this._pending.delete(message.ref);
      if (message.type === "error") reject(new ArenaError(message));
      else resolve(message);
    }
    // A replaced socket still answers what was asked on it, but its pushes are the left
    // session's (a match, a challenge of the account signed out of): not this page's news.
    if (ws === this.ws) this._emit(message.type, message);
  }

  /** Send a client message as is (no id unless it has one). */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      throw new ArenaError({ code: "closed", message: "not connected" });
    }
    this.ws.send(JSON.stringify(message));
  }

  /** Send with a fresh id; resolve with the direct reply (its ref), reject on an error. */
  ask(message) {
    const id = this._nextId++;
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject, ws: this.ws });
      try {
        this.send({ ...message, id });
      } catch (err) {
        this._pending.delete(id);
        reject(err);
      }
    });
  }

  /** `ask`, for a read that is safe to send again (a replay, a listing): refused with
   *  `rate_limited`, it waits the `retry_after` the server names (at most `maxWaitS` in all)
   *  and asks again, instead of failing. An expensive read (a long replay with views) can
   *  leave the connection's budget in debt for a few seconds, and the next page a person
   *  opens should not fail for it. */
  async askPatiently(message, maxWaitS = 15) {
    let waited = 0;
    for (;;) {
      try {
        return await this.ask(message);
      } catch (err) {
        const wait = Number(err.reply?.retry_after);
        if (err.code !== "rate_limited" || !(wait > 0) || waited + wait > maxWaitS) throw err;
        waited += wait;
        await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      }
    }
  }

  /** Answer a request: the action goes with the request's match_id and request_id. An id
   *  is attached so an error (illegal, stale…) comes back with ref. */
  answer(request, action) {
    const id = this._nextId++;
    this.send({ type: "action", id, match_id: request.match_id,
                request_id: request.request_id, action });
    return id;
  }
}
