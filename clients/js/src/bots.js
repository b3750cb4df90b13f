// Bots that come with the kit. A bot is any object with choose(request) -> action.

import { sample } from './spaces.js';

/** A small seeded generator (mulberry32): the same seed gives the same answers. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A uniformly random element of the request's `legal_actions`, or, in a game that sends
 * an `action_space` instead (Boundary), a random value of that space. */
export function randomAction(request, random = Math.random) {
  if (request.action_space !== undefined) return sample(request.action_space, random);
  const legal = request.legal_actions;
  return legal[Math.floor(random() * legal.length)];
}

/** What to answer when the bot's own answer was refused or the bot failed: a random legal
 * action, or in an action-space game the request's `default_action` (what the server would
 * play on a missed deadline), else a random value of the space. */
export function safeAction(request, random = Math.random) {
  if (request.action_space !== undefined && request.default_action !== undefined) {
    return request.default_action;
  }
  return randomAction(request, random);
}

/** Plays every game, knowing none: a random legal action or a random value of the action
 * space (randomAction). */
export class RandomBot {
  constructor(seed) {
    this.random = seed === undefined || seed === null ? Math.random : seededRandom(seed);
  }

  choose(request) {
    return randomAction(request, this.random);
  }
}
