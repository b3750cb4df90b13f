// The bot runner: a bot author writes one method, the runner does the protocol.
//
//   import { runBot } from 'tabletop-arena-client';
//   await runBot({ choose: (request) => request.legal_actions[0] });
//
// A bot is any object with `choose(request) -> action` (it may return a Promise). `request`
// is the protocol's `request` message: match_id, request_id, seat, view, clock_ms, and
// either legal_actions (answer with one of them) or, in a game whose actions are not a list
// (Boundary), action_space (answer with a value of it: see src/spaces.js) and
// default_action (what the server plays if the answer does not come in time). Optional
// hooks: onMatchStart(message), onEvents(message), onMatchEnd(message).
//
// What the runner does: connect (retrying until the server is up) and say hello; get matches
// (`autoplay`, the default: the server, a ladder or `arena check-bot` seats the bot; or
// `seek`; or `play_bot` against a named house bot), again after a reconnect that could not
// resume; answer every open request exactly once with its request_id, and never a request
// that went stale; when an answer is refused as malformed or illegal (or the bot throws),
// answer once more with a random legal action, or in an action-space game with the
// request's default_action (else a random value of the space); reconnect with resume (the
// server re-sends the open request); stop after `matches` finished matches if asked.
//
// Settings come from the options, else from the environment (what `arena check-bot` sets):
//   ARENA_SERVER    websocket URL                    (default ws://127.0.0.1:8765/ws)
//   ARENA_TOKEN     the bot account's bearer token   (none: play as a guest)
//   ARENA_GAME      game(s) to play, comma-separated (default battleline)
//   ARENA_MODE      autoplay | seek | play_bot       (default autoplay; play_bot if
//                                                     ARENA_OPPONENT is set)
//   ARENA_OPPONENT  the house bot to play (play_bot mode)
//   ARENA_MATCHES   stop after this many finished matches (default: never; play_bot: 1)
//   ARENA_CLOCK     time control for seek/play_bot as JSON, e.g. {"initial_ms":60000,"increment_ms":1000}
//   ARENA_SEAT      your seat in play_bot matches     (default 0)
//   ARENA_CONNECT_ATTEMPTS  tries to reach the server at start (default 20, backing off to 5 s)
//   ARENA_LEAN      1: lean delivery, one frame per decision (default 0; see client.js)

import { ArenaClient, ArenaError, ConnectionLost, StaleRequest } from './client.js';
import { safeAction, seededRandom } from './bots.js';

export const DEFAULT_SERVER = 'ws://127.0.0.1:8765/ws';

/** The runner settings the environment gives (see the header). */
export function optionsFromEnv(env = process.env) {
  const out = {};
  if (env.ARENA_SERVER) out.server = env.ARENA_SERVER;
  if (env.ARENA_TOKEN) out.token = env.ARENA_TOKEN;
  if (env.ARENA_GAME) out.games = env.ARENA_GAME.split(',').map((g) => g.trim()).filter(Boolean);
  if (env.ARENA_OPPONENT) out.opponent = env.ARENA_OPPONENT;
  if (env.ARENA_MODE) out.mode = env.ARENA_MODE;
  if (env.ARENA_MATCHES) out.matches = Number.parseInt(env.ARENA_MATCHES, 10);
  if (env.ARENA_CLOCK) out.clock = JSON.parse(env.ARENA_CLOCK);
  if (env.ARENA_SEAT) out.seat = Number.parseInt(env.ARENA_SEAT, 10);
  if (env.ARENA_LEAN) out.lean = env.ARENA_LEAN === '1' || env.ARENA_LEAN === 'true';
  if (env.ARENA_CONNECT_ATTEMPTS) {
    out.connectAttempts = Number.parseInt(env.ARENA_CONNECT_ATTEMPTS, 10);
  }
  return out;
}

/** What a run did. `results` holds {matchId, seat, outcome} per finished match; `lost`: the
 * server could not be reached any more; `refused`: why the server would not give a match. */
export function newStats() {
  return { matchesStarted: 0, matchesFinished: 0, actions: 0, errors: 0, fallbacks: 0,
    reconnects: 0, results: [], lost: false, refused: null };
}

/** "won", "lost", "draw", or the place ("2nd of 3") of `seat` in `outcome`. */
export function describeResult(outcome, seat) {
  const ranks = outcome?.ranks ?? [];
  const mine = ranks[seat];
  if (mine === undefined) return 'no result';
  if (ranks.every((r) => r === mine)) return 'draw';
  if (mine === 0) return 'won';
  if (ranks.length === 2) return 'lost';
  return `rank ${mine + 1} of ${ranks.length}`;
}

export class BotRunner {
  /**
   * @param {object} bot  has choose(request) -> action (or a Promise of one)
   * @param {object} [options] server, token, name, games, mode ('autoplay'|'seek'|'play_bot'),
   *   opponent (house bot name for play_bot), seat (yours, play_bot), maxMatches (at once), matches (stop after),
   *   clock, gameOptions, seats, reconnect, log (function taking a line; null: silent),
   *   logErrors (same, for errors), seed (for fallback answers), lean (lean delivery: one
   *   frame per decision; onEvents is called the same), env (default process.env)
   */
  constructor(bot, options = {}) {
    const settings = { ...optionsFromEnv(options.env ?? process.env), ...stripUndefined(options) };
    this.bot = bot;
    this.server = settings.server ?? DEFAULT_SERVER;
    this.games = settings.games ?? (settings.game ? [settings.game] : ['battleline']);
    this.opponent = settings.opponent ?? null;
    this.mode = settings.mode ?? (this.opponent ? 'play_bot' : 'autoplay');
    if (!['autoplay', 'seek', 'play_bot'].includes(this.mode)) {
      throw new Error(`mode must be autoplay, seek or play_bot, not ${this.mode}`);
    }
    this.matches = settings.matches ?? (this.mode === 'play_bot' ? 1 : null);
    this.maxMatches = settings.maxMatches ?? 1;
    this.clock = settings.clock ?? null;
    this.gameOptions = settings.gameOptions ?? null;
    this.seats = settings.seats ?? null;
    this.seat = settings.seat ?? null;
    this.log = settings.log === undefined ? (line) => console.log(line) : settings.log;
    this.logError = settings.logErrors === undefined ? (line) => console.error(line)
      : settings.logErrors;
    this.fallbackRandom = settings.seed === undefined || settings.seed === null ? Math.random
      : seededRandom(settings.seed);
    this.stats = newStats();
    this.client = new ArenaClient(this.server, {
      token: settings.token, name: settings.name, client: settings.client,
      reconnect: settings.reconnect, connectAttempts: settings.connectAttempts,
      lean: settings.lean,
    });
    this._active = new Map();     // match_id -> match_start
    this._thinking = new Set();   // request ids being answered
    this._fellBack = new Set();   // request ids answered again after a refusal
    this._offeredSession = null;
    this._asked = 0;              // seeks or play_bot requests not yet turned into matches
    this._nextGame = 0;
    this._done = null;
    /** Resolves once the server accepted the first offer (autoplay, seek or play_bot). */
    this.ready = new Promise((resolve) => { this._ready = resolve; });
  }

  /** Connect and play; resolves with the stats when done (matches reached), stopped, or
   * the connection is lost for good. Rejects if the server refuses the hello. */
  run() {
    return new Promise((resolve, reject) => {
      this._done = resolve;
      this.client.on('message', (message) => this._handle(message));
      this.client.on('connected', (welcome) => this._onConnected(welcome));
      this.client.on('closed', () => {
        this.stats.reconnects = this.client.reconnects;
        this.stats.lost = !this._stopping;
        resolve(this.stats);
      });
      this.client.connect().catch((error) => {
        reject(error); // first: a promise settles once, and close() below would resolve it
        this.client.close();
      });
    });
  }

  /** End the run soon (active matches are abandoned: the server forfeits them later). */
  stop() {
    this._stopping = true;
    this.client.close();
  }

  _say(line) {
    if (this.log) this.log(line);
  }

  _onConnected(welcome) {
    if (welcome.session === this._offeredSession) return; // resumed: matches carry on
    if (this._offeredSession === null) {
      this._say(`connected to ${this.server} as ${welcome.account.name} (${welcome.account.kind})`);
    }
    this._offeredSession = welcome.session;
    this._asked = 0;
    this._offer();
  }

  _finished() {
    return this.matches !== null && this.stats.matchesFinished >= this.matches
      && this._active.size === 0;
  }

  async _offer() {
    try {
      if (this.mode === 'autoplay') {
        await this.client.autoplay(this.games, this.maxMatches);
        this._ready();
        return;
      }
      while (this._wanted() > 0) {
        const game = this.games[this._nextGame % this.games.length];
        this._nextGame += 1;
        this._asked += 1;
        if (this.mode === 'seek') {
          await this.client.seek(game, { options: this.gameOptions, clock: this.clock,
            seats: this.seats });
        } else {
          await this.client.playBot(game, { bot: this.opponent, options: this.gameOptions,
            clock: this.clock, seat: this.seat });
        }
        this._ready();
      }
    } catch (error) {
      if (error instanceof ArenaError) {
        // (_onError counted it: the error reply also arrives as a message.)
        this.stats.refused = error.message;
        this.logError?.(`the server refused to give us a match: ${error.message}`);
        this.stop();
      }
      // ConnectionLost: the welcome after the reconnect offers again if needed.
    }
  }

  _wanted() {
    let slots = this.maxMatches - this._active.size - this._asked;
    if (this.matches !== null) slots = Math.min(slots, this.matches - this.stats.matchesStarted - this._asked);
    return slots;
  }

  _handle(message) {
    switch (message.type) {
      case 'match_start': this._onMatchStart(message); break;
      case 'request': this._onRequest(message); break;
      case 'events': this._hook('onEvents', message); break;
      case 'match_end': this._onMatchEnd(message); break;
      case 'error': this._onError(message); break;
      default: break;
    }
  }

  _onMatchStart(message) {
    if (message.your_seat === null || message.your_seat === undefined) return;
    if (this._active.has(message.match_id)) {
      this._active.set(message.match_id, message); // re-sent on resume: fresher view
      return;
    }
    if (message.status !== 'live') return;
    this._active.set(message.match_id, message);
    this.stats.matchesStarted += 1;
    if (this.mode !== 'autoplay' && this._asked > 0) this._asked -= 1;
    const others = message.seats.filter((s) => s.seat !== message.your_seat).map((s) => s.name);
    this._say(`match ${message.match_id} started: ${message.game}, seat ${message.your_seat}`
      + ` against ${others.join(', ')}`);
    this._hook('onMatchStart', message);
  }

  _onMatchEnd(message) {
    const start = this._active.get(message.match_id);
    if (start === undefined) return;
    this._active.delete(message.match_id);
    const seat = start.your_seat;
    this.stats.matchesFinished += 1;
    this.stats.results.push({ matchId: message.match_id, seat, outcome: message.outcome });
    this._say(`match ${message.match_id} ended: ${describeResult(message.outcome, seat)}`
      + ` (${message.outcome?.reason}), ranks ${JSON.stringify(message.outcome?.ranks)}`);
    this._hook('onMatchEnd', message);
    if (this._finished()) {
      this._say(`done: ${this.stats.matchesFinished} match(es), ${this.stats.actions} actions,`
        + ` ${this.stats.errors} errors`);
      this._stopping = true;
      this.client.close();
    } else if (this.mode !== 'autoplay') {
      this._offer();
    }
  }

  _onRequest(request) {
    const id = request.request_id;
    if (this._thinking.has(id) || !this.client.isPending(request)) return;
    this._answer(request, false);
  }

  _onError(error) {
    this.stats.errors += 1;
    this.logError?.(`server error ${error.code}: ${error.message}`
      + (error.request_id ? ` (request ${error.request_id})` : ''));
    const id = error.request_id;
    if ((error.code === 'illegal_action' || error.code === 'malformed_action')
        && id && !this._fellBack.has(id) && !this._thinking.has(id)) {
      // The request stays open after a refusal: answer it once more, safely.
      const request = this.client.pendingRequests().find((r) => r.request_id === id);
      if (request !== undefined) {
        this._fellBack.add(id);
        this.stats.fallbacks += 1;
        this._answer(request, true);
      }
    }
  }

  async _answer(request, fallback) {
    const id = request.request_id;
    this._thinking.add(id);
    try {
      let action;
      if (fallback) {
        action = safeAction(request, this.fallbackRandom);
      } else {
        try {
          action = await this.bot.choose(request);
        } catch (error) {
          this.logError?.(`the bot failed to choose (${error?.message ?? error}); `
            + 'answering with a safe action instead');
          this.stats.fallbacks += 1;
          action = safeAction(request, this.fallbackRandom);
        }
      }
      if (!this.client.isPending(request)) return; // went stale while thinking
      try {
        this.client.act(request, action);
        this.stats.actions += 1;
      } catch (error) {
        if (!(error instanceof ConnectionLost || error instanceof StaleRequest)) throw error;
        // After the resume the server re-sends the request; it is answered then.
      }
    } finally {
      this._thinking.delete(id);
    }
  }

  _hook(name, message) {
    const hook = this.bot[name];
    if (typeof hook !== 'function') return;
    try {
      hook.call(this.bot, message);
    } catch (error) {
      this.logError?.(`bot hook ${name} failed: ${error?.message ?? error}`);
    }
  }
}

/** `new BotRunner(bot, options).run()` with SIGINT/SIGTERM stopping it; resolves with the
 * stats. */
export async function runBot(bot, options = {}) {
  const runner = new BotRunner(bot, options);
  const stop = () => runner.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await runner.run();
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

function stripUndefined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
}
