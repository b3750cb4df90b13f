// Action spaces: how a game whose actions are not a short list (Boundary: points on a field)
// describes them in a request, instead of `legal_actions`. The same semantics as the
// engine's own engine/spaces.py, so a bot can answer such a game with no game-specific code:
//
//   import { sample, contains } from 'tabletop-arena-client';
//   const action = sample(request.action_space, Math.random);   // always a valid answer
//   contains(request.action_space, action);                     // true
//
// Four node types (PROTOCOL.md, "Action spaces"):
//   {type: 'const', value: V}                   exactly V
//   {type: 'record', fields: {name: SPACE}}     an object with exactly these keys
//   {type: 'subset', entries: {key: SPACE}}     an object with any subset of these keys
//   {type: 'point', center: [cx, cy], radius: r, min: [x0, y0], max: [x1, y1]}
//       [x, y], two integers with (x-cx)^2 + (y-cy)^2 <= r^2 inside the box min..max;
//       the centre always lies in the box, so [cx, cy] is always valid.
//
// Boundary's plan, for example, is a record of the turn (a const) and a subset of moves, one
// point per living piece: {turn: 3, moves: {'0': [500, 560]}}.

export const NODE_TYPES = Object.freeze(['const', 'record', 'subset', 'point']);

// Rejection sampling of a point gives up after this many misses and takes the centre
// (engine/spaces.py does the same).
const POINT_TRIES = 64;

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

/** Whether two JSON values are equal (objects by their keys, arrays in order; no coercion). */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length
      && keys.every((k) => has(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function unknownNode(space) {
  return new Error(`unknown action space node type ${JSON.stringify(space?.type)}`);
}

/** Whether `value` lies in `space`. */
export function contains(space, value) {
  switch (space.type) {
    case 'const':
      return jsonEqual(value, space.value);
    case 'record': {
      const fields = space.fields;
      if (!isObject(value)) return false;
      const keys = Object.keys(value);
      return keys.length === Object.keys(fields).length
        && keys.every((k) => has(fields, k) && contains(fields[k], value[k]));
    }
    case 'subset': {
      const entries = space.entries;
      return isObject(value)
        && Object.keys(value).every((k) => has(entries, k) && contains(entries[k], value[k]));
    }
    case 'point': {
      if (!Array.isArray(value) || value.length !== 2 || !value.every(Number.isInteger)) {
        return false;
      }
      const [x, y] = value;
      const [cx, cy] = space.center;
      const r = space.radius;
      return x >= space.min[0] && x <= space.max[0] && y >= space.min[1] && y <= space.max[1]
        && (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
    }
    default:
      throw unknownNode(space);
  }
}

/**
 * A random value of `space`. `random` returns a float in [0, 1) (Math.random, or the kit's
 * seededRandom(seed) for repeatable draws). A subset takes each entry with probability
 * 1/`include` (include = 1: every entry); a point is uniform over its integer points
 * (rejection from the disc's bounding box clipped to the box; the centre after 64 misses).
 */
export function sample(space, random = Math.random, include = 2) {
  const below = (n) => Math.floor(random() * n);
  const draw = (node) => {
    switch (node.type) {
      case 'const':
        return structuredClone(node.value); // the caller may change its answer freely
      case 'record':
        return Object.fromEntries(Object.entries(node.fields).map(([k, s]) => [k, draw(s)]));
      case 'subset': {
        const out = {};
        for (const [k, s] of Object.entries(node.entries)) {
          if (below(include) === 0) out[k] = draw(s);
        }
        return out;
      }
      case 'point': {
        const [cx, cy] = node.center;
        const r = node.radius;
        const x0 = Math.max(node.min[0], cx - r);
        const y0 = Math.max(node.min[1], cy - r);
        const x1 = Math.min(node.max[0], cx + r);
        const y1 = Math.min(node.max[1], cy + r);
        for (let i = 0; i < POINT_TRIES; i += 1) {
          const x = x0 + below(x1 - x0 + 1);
          const y = y0 + below(y1 - y0 + 1);
          if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) return [x, y];
        }
        return [cx, cy];
      }
      default:
        throw unknownNode(node);
    }
  };
  return draw(space);
}
