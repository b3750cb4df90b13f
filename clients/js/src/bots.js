// Bots that come with the kit. A bot is any object with choose(request) -> action.

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

/** Plays every game, knowing none: a uniformly random element of `legal_actions`. */
export class RandomBot {
  constructor(seed) {
    this.random = seed === undefined || seed === null ? Math.random : seededRandom(seed);
  }

  choose(request) {
    const legal = request.legal_actions;
    return legal[Math.floor(this.random() * legal.length)];
  }
}
