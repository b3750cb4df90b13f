// The Tabletop Arena client for Node.js: one logical session with a server, across reconnects.
//
//   import { ArenaClient } from 'tabletop-arena-client';
//   const client = new ArenaClient('ws://127.0.0.1:8765/ws', { token: TOKEN });
//   await client.connect();                       // hello -> welcome
//   client.on('message', (message) => { ... });   // every server message, in order
//   await client.autoplay(['battleline']);        // a request: resolves with the reply
//   client.act(request, request.legal_actions[0]); // answer a `request`
//
// What it does for you (protocol/PROTOCOL.md sections 2, 3 and 9):
// * the handshake: `hello` -> `welcome` (or an ArenaError), JSON text frames
//   (subprotocol `arena.v1.json`);
// * correlation: `request(type, fields)` sends the message with a fresh `id` and resolves with
//   the server's reply carrying it as `ref` (an `error` reply rejects with ArenaError);
// * pending requests: which `request`s are still open, so a bot never answers one twice
//   or answers one a newer request has made stale;
// * reconnect with resume: when the socket drops it reconnects with exponential backoff and
//   jitter and says `hello {resume}`; the server re-sends `match_start` and the open request.
//   A resume the server refuses falls back to a new session (the old seats are lost).
//
// Events: 'message' (every server message), 'connected' (welcome, first time and after each
// reconnect: `(welcome, {resumed})`), 'disconnected' (`(code, reason)`), 'closed' (for good).
//
// Lean delivery (`{ lean: true }`, PROTOCOL.md "Lean delivery"): the server sends no `events`
// frames for this session's seats; their events ride in the seat's next `request` or
// `match_end` (field `events`). The client hands them on as the `events` messages they stand
// for, each emitted just before the message that carried it (which loses the field): a bot
// written for either way works with both.

import { EventEmitter } from 'node:events';
import WebSocket from 'ws';

export const PROTOCOL_VERSION = 1;
export const SUBPROTOCOL_JSON = 'arena.v1.json';
export const CLIENT_NAME = 'tabletop-arena-js/0.1.0';

/** The server answered with an `error` message (kept whole in `.error`). */
export class ArenaError extends Error {
  constructor(error) {
    super(`${error.code}: ${error.message}`);
    this.name = 'ArenaError';
    this.error = error;
    this.code = error.code;
    this.details = error.details ?? {};
  }
}

/** The connection dropped (or was closed) before the awaited reply arrived. */
export class ConnectionLost extends Error {
  constructor(message = 'connection lost') {
    super(message);
    this.name = 'ConnectionLost';
  }
}

/** `act` on a request that is no longer open (answered, superseded, or its match ended). */
export class StaleRequest extends Error {
  constructor(requestId) {
    super(`request ${requestId} is not open`);
    this.name = 'StaleRequest';
    this.requestId = requestId;
  }
}

/** Bounded exponential backoff with jitter (the Python client's numbers). */
export const DEFAULT_RECONNECT = Object.freeze({
  enabled: true, initialDelayMs: 100, maxDelayMs: 5000, maxAttempts: 20,
});

export function backoffDelayMs(policy, attempt) {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** attempt);
  return base * (0.5 + Math.random() / 2); // jitter spreads a herd of reconnecting bots
}

// Refusals after which the request is still open (PROTOCOL.md section 7).
const REOPENING_ERRORS = new Set(['illegal_action', 'malformed_action']);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class ArenaClient extends EventEmitter {
  /**
   * @param {string} url  the server's websocket URL, e.g. ws://127.0.0.1:8765/ws
   * @param {object} [options]
   * @param {string} [options.token]  an account's bearer token (none: a guest)
   * @param {string} [options.name]   a guest's display name
   * @param {string} [options.client] software name/version sent in hello
   * @param {boolean} [options.views] ask for views: every `events` message then carries the
   *   viewer's view after those events (default false: a bot reading requests needs none)
   * @param {boolean} [options.lean] ask for lean delivery: one frame per decision, the events
   *   riding in the requests (emitted as `events` messages all the same; default false)
   * @param {object} [options.reconnect] {enabled, initialDelayMs, maxDelayMs, maxAttempts}
   * @param {number} [options.connectAttempts] attempts to reach the server at first connect
   *   (default: reconnect.maxAttempts; a refused hello is never retried)
   * @param {number} [options.openTimeoutMs] time allowed for one connect + handshake
   */
  constructor(url, options = {}) {
    super();
    this.url = url;
    this.token = options.token ?? null;
    this.name = options.name ?? null;
    this.clientName = options.client ?? CLIENT_NAME;
    this.views = Boolean(options.views);
    this.lean = Boolean(options.lean);
    this.reconnectPolicy = { ...DEFAULT_RECONNECT, ...(options.reconnect ?? {}) };
    this.connectAttempts = options.connectAttempts ?? this.reconnectPolicy.maxAttempts;
    this.openTimeoutMs = options.openTimeoutMs ?? 10000;
    this.welcome = null;      // the latest welcome (a new one after each reconnect)
    this.session = null;      // resume token
    this.reconnects = 0;      // successful reconnections so far
    this.closed = false;      // closed for good
    this._ws = null;
    this._nextId = 0;
    this._replies = new Map();   // id -> {resolve, reject, timer}
    this._pending = new Map();   // request_id -> request message (open requests)
    this._answered = new Map();  // request_id -> request, answered on this connection
  }

  get connected() {
    return this._ws !== null && this._ws.readyState === WebSocket.OPEN && this.welcome !== null;
  }

  get account() {
    return this.welcome?.account ?? null;
  }

  // ---- opening and closing ---------------------------------------------------------------

  /** Connect and complete the handshake; resolves with the welcome. Retries an unreachable
   * server with backoff; rejects with ArenaError if the server refuses the hello. */
  async connect() {
    let lastError = null;
    for (let attempt = 0; attempt < Math.max(1, this.connectAttempts); attempt += 1) {
      if (attempt > 0) await sleep(backoffDelayMs(this.reconnectPolicy, attempt - 1));
      if (this.closed) throw new ConnectionLost('closed');
      try {
        return await this._openOnce(false);
      } catch (error) {
        if (error instanceof ArenaError) throw error;
        lastError = error;
      }
    }
    throw lastError ?? new ConnectionLost('could not connect');
  }

  /** Close for good (no reconnect). */
  close() {
    this.closed = true;
    const ws = this._ws;
    if (ws !== null && ws.readyState <= WebSocket.OPEN) ws.close(1000, 'bye');
    this._failReplies(new ConnectionLost('closed'));
    if (ws === null || ws.readyState === WebSocket.CLOSED) this._finish();
  }

  _finish() {
    if (this._finished) return;
    this._finished = true;
    this.closed = true;
    this.emit('closed');
  }

  /** One socket + handshake. Resolves with the welcome once the session is open. */
  _openOnce(resuming) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url, [SUBPROTOCOL_JSON], {
        handshakeTimeout: this.openTimeoutMs, perMessageDeflate: false,
      });
      let settled = false;
      let helloId = null;
      const timer = setTimeout(() => fail(new ConnectionLost('handshake timed out')),
        this.openTimeoutMs);
      const fail = (error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        ws.removeAllListeners();
        ws.on('error', () => {});
        ws.terminate();
        reject(error);
      };
      const sayHello = (withResume) => {
        this._nextId += 1;
        helloId = this._nextId;
        const hello = { type: 'hello', id: helloId, protocol: PROTOCOL_VERSION,
          client: this.clientName };
        if (this.token) hello.token = this.token;
        if (this.name && !this.token) hello.name = this.name;
        if (withResume && this.session) hello.resume = this.session;
        if (this.views) hello.views = true;
        if (this.lean) hello.lean = true;
        ws.send(JSON.stringify(hello));
      };
      ws.on('error', (error) => fail(error));
      ws.on('close', () => fail(new ConnectionLost('closed during the handshake')));
      ws.on('open', () => sayHello(resuming));
      ws.on('message', (data, isBinary) => {
        const message = decode(data, isBinary);
        if (message === null || message.ref !== helloId) return; // nothing else comes first
        if (message.type === 'welcome') {
          settled = true;
          clearTimeout(timer);
          ws.removeAllListeners();
          const resumed = resuming && message.session === this.session;
          this._attach(ws, message);
          resolve(message);
          this.emit('connected', message, { resumed });
        } else if (message.type === 'error') {
          if (resuming && message.code === 'unauthorized') {
            // The server forgot the session (it outlived the grace): start a new one.
            this.session = null;
            resuming = false;
            sayHello(false);
          } else {
            fail(new ArenaError(message));
          }
        }
      });
    });
  }

  _attach(ws, welcome) {
    this._ws = ws;
    this.welcome = welcome;
    this.session = welcome.session;
    this._answered.clear(); // answers in flight may be lost: re-sent requests get new ones
    ws.on('message', (data, isBinary) => {
      const message = decode(data, isBinary);
      if (message !== null) this._dispatch(message);
    });
    ws.on('error', () => {}); // 'close' follows and handles it
    ws.on('close', (code, reason) => this._onClose(ws, code, reason.toString()));
  }

  async _onClose(ws, code, reason) {
    if (ws !== this._ws) return;
    this._ws = null;
    this.welcome = null;
    this._pending.clear(); // the server re-sends the open ones on resume
    this._failReplies(new ConnectionLost(`connection closed (${code})`));
    this.emit('disconnected', code, reason);
    if (this.closed || !this.reconnectPolicy.enabled) {
      this._finish();
      return;
    }
    for (let attempt = 0; attempt < this.reconnectPolicy.maxAttempts; attempt += 1) {
      await sleep(backoffDelayMs(this.reconnectPolicy, attempt));
      if (this.closed) break;
      try {
        await this._openOnce(this.session !== null);
        this.reconnects += 1;
        return;
      } catch (error) {
        if (error instanceof ArenaError) break; // the server refuses us: stop
      }
    }
    this._finish();
  }

  // ---- incoming ----------------------------------------------------------------------------

  _dispatch(message) {
    if ((message.type === 'request' || message.type === 'match_end')
        && Array.isArray(message.events)) {
      // Lean delivery: the events held for this seat come first, as the messages they were.
      const held = message.events;
      delete message.events;
      for (const batch of held) {
        this.emit('message', { type: 'events', match_id: message.match_id, ...batch });
      }
    }
    if (message.type === 'error' && REOPENING_ERRORS.has(message.code)
        && this._answered.has(message.request_id)) {
      // A refused answer leaves the request open on the server: answer it again.
      this._pending.set(message.request_id, this._answered.get(message.request_id));
      this._answered.delete(message.request_id);
    } else if (message.type === 'request' && !this._answered.has(message.request_id)) {
      // A newer request for the same match and seat makes older ones stale. (A copy of a
      // request already answered is not newer: it changes nothing.)
      for (const [id, open] of this._pending) {
        if (open.match_id === message.match_id && open.seat === message.seat
            && id !== message.request_id) {
          this._pending.delete(id);
        }
      }
      this._pending.set(message.request_id, message);
    } else if (message.type === 'match_end') {
      for (const [id, open] of this._pending) {
        if (open.match_id === message.match_id) this._pending.delete(id);
      }
    }
    if (message.ref !== undefined && message.ref !== null) {
      const waiter = this._replies.get(message.ref);
      if (waiter !== undefined) {
        this._replies.delete(message.ref);
        clearTimeout(waiter.timer);
        if (message.type === 'error') waiter.reject(new ArenaError(message));
        else waiter.resolve(message);
      }
    }
    this.emit('message', message);
  }

  _failReplies(error) {
    const replies = [...this._replies.values()];
    this._replies.clear();
    for (const waiter of replies) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }

  // ---- sending -----------------------------------------------------------------------------

  /** Send one message as is. Throws ConnectionLost when not connected. */
  send(message) {
    if (!this.connected) throw new ConnectionLost('not connected');
    this._ws.send(JSON.stringify(message));
  }

  /** Send `type` with `fields` (undefined/null values left out) and a fresh `id`; resolves
   * with the reply carrying that id as `ref`. Rejects with ArenaError for an error reply,
   * ConnectionLost if the connection drops first, or an Error after `timeoutMs`. */
  async request(type, fields = {}, { timeoutMs = 30000 } = {}) {
    if (!this.connected) await this.waitConnected(timeoutMs);
    this._nextId += 1;
    const id = this._nextId;
    const message = { type, id };
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined && value !== null) message[key] = value;
    }
    const reply = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this._replies.delete(id);
        reject(new Error(`no reply to ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this._replies.set(id, { resolve, reject, timer });
    });
    try {
      this.send(message);
    } catch (error) {
      clearTimeout(this._replies.get(id)?.timer);
      this._replies.delete(id);
      throw error;
    }
    return reply;
  }

  /** Resolves once connected (a reconnect may be under way). */
  waitConnected(timeoutMs = 30000) {
    if (this.connected) return Promise.resolve();
    if (this.closed) return Promise.reject(new ConnectionLost('closed'));
    return new Promise((resolve, reject) => {
      const done = () => { cleanup(); resolve(); };
      const gone = () => { cleanup(); reject(new ConnectionLost('closed')); };
      const timer = setTimeout(() => { cleanup(); reject(new ConnectionLost('not connected')); },
        timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off('connected', done);
        this.off('closed', gone);
      };
      this.on('connected', done);
      this.on('closed', gone);
    });
  }

  /** Whether `request` (a request message or its request_id) is still open. */
  isPending(request) {
    const id = typeof request === 'string' ? request : request?.request_id;
    return this._pending.has(id);
  }

  /** The open requests, oldest first. */
  pendingRequests() {
    return [...this._pending.values()];
  }

  /** Answer an open `request` with `action` (fire and forget: success shows as `events` and
   * the next request, a refusal as an `error` message). Throws StaleRequest if the request
   * is not open, ConnectionLost if not connected (after the resume the server re-sends the
   * request: answer it again then). Returns the message sent. */
  act(request, action, { id } = {}) {
    if (!this.isPending(request)) throw new StaleRequest(request.request_id);
    const message = { type: 'action', match_id: request.match_id,
      request_id: request.request_id, action };
    if (id !== undefined) message.id = id;
    this.send(message);
    this._pending.delete(request.request_id);
    this._answered.set(request.request_id, request);
    if (this._answered.size > 64) this._answered.delete(this._answered.keys().next().value);
    return message;
  }

  // ---- lobby helpers ---------------------------------------------------------------------

  ping() { return this.request('ping'); }

  /** Every game the server runs (GameInfo objects). */
  async listGames() { return (await this.request('list_games')).games; }

  /** One page of match summaries, newest first: {matches, next}; pass `next` back as
   *  `cursor` for the following page (null on the last). */
  async listMatches(game, { limit, cursor } = {}) {
    const reply = await this.request('list_matches', { game, limit, cursor });
    return { matches: reply.matches, next: reply.next ?? null };
  }

  /** Offer to be seated automatically in matches of `games` (what bots do). */
  async autoplay(games, maxMatches = 1) {
    await this.request('autoplay', { games, max_matches: maxMatches });
  }

  /** Queue a seek; resolves with its seek_id (the match comes later as match_start). */
  async seek(game, { options, clock, seats } = {}) {
    return (await this.request('seek', { game, options, clock, seats })).seek_id;
  }

  async cancelSeek(seekId) { await this.request('cancel_seek', { seek_id: seekId }); }

  /** Start a match against house bot(s) at once; resolves with its match_start. */
  playBot(game, { bot, options, clock, seat } = {}) {
    return this.request('play_bot', { game, bot, options, clock, seat });
  }

  spectate(matchId) { return this.request('spectate', { match_id: matchId }); }

  async leave(matchId) { await this.request('leave', { match_id: matchId }); }

  getReplay(matchId) { return this.request('get_replay', { match_id: matchId }); }

  /** Resign (fire and forget: match_end follows). */
  resign(matchId) {
    this._nextId += 1;
    this.send({ type: 'resign', id: this._nextId, match_id: matchId });
  }

  /** An inbox: buffers every message from now on; `next(pred, timeoutMs)` takes the first
   * matching one (others stay buffered). Call `inbox.stop()` when done. */
  inbox() {
    return new Inbox(this);
  }
}

function decode(data, isBinary) {
  if (isBinary) return null; // JSON is negotiated: the server never sends binary frames
  try {
    const message = JSON.parse(data.toString('utf8'));
    return message !== null && typeof message === 'object' && typeof message.type === 'string'
      ? message : null;
  } catch {
    return null;
  }
}

/** A buffer of server messages with predicate-based waiting (handy in scripts and tests). */
export class Inbox {
  constructor(client) {
    this.client = client;
    this.messages = [];
    this._waiters = [];
    this._listener = (message) => {
      this.messages.push(message);
      this._wake();
    };
    this._closedListener = () => this._wake();
    client.on('message', this._listener);
    client.on('closed', this._closedListener);
  }

  stop() {
    this.client.off('message', this._listener);
    this.client.off('closed', this._closedListener);
  }

  _wake() {
    const waiters = this._waiters;
    this._waiters = [];
    for (const wake of waiters) wake();
  }

  /** The first buffered or future message for which `pred` holds (removed from the buffer).
   * `pred` may be a type name. Rejects after `timeoutMs` or when the client closes. */
  async next(pred = () => true, timeoutMs = 30000) {
    const test = typeof pred === 'string' ? (m) => m.type === pred : pred;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.messages.findIndex(test);
      if (index >= 0) return this.messages.splice(index, 1)[0];
      if (this.client.closed) throw new ConnectionLost('closed');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms`);
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this._waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
  }
}
