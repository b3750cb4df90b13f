// The action-space sampler (src/spaces.js) against its contract: every sampled value is one
// `contains` accepts, points cover their whole disc (clipped by the field), and the generic
// bots answer a request from its action space alone. No server needed.
// (tests/clients_js/test_spaces_agree.py checks the same verdicts against engine/spaces.py.)

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  RandomBot, contains, randomAction, safeAction, sample, seededRandom,
} from '../src/index.js';

const FIELD = { min: [0, 0], max: [799, 799] };
const point = (center, radius, box = FIELD) => ({ type: 'point', center, radius, ...box });

/** A Boundary plan space: the turn as a constant, one disc per living piece, several of
 * them cut by the edge of the 800 x 800 field. */
function boundarySpace(turn = 7) {
  return {
    type: 'record',
    fields: {
      turn: { type: 'const', value: turn },
      moves: {
        type: 'subset',
        entries: {
          0: point([0, 0], 40),          // a corner: a quarter disc
          1: point([799, 5], 80),        // the top edge near a corner
          3: point([485, 579], 40),      // inside the field
          4: point([400, 799], 120),     // the bottom edge, a big blob
          6: point([3, 400], 40),        // the left edge
          9: point([798, 798], 280),     // a seven-piece blob in a corner
          12: point([10, 790], 0),       // no reach at all: only its own square
        },
      },
    },
  };
}

test('every sampled Boundary plan is a value of its space', () => {
  const space = boundarySpace();
  const random = seededRandom(1);
  const keys = Object.keys(space.fields.moves.entries);
  const taken = Object.fromEntries(keys.map((k) => [k, 0]));
  const draws = 3000;
  for (let i = 0; i < draws; i += 1) {
    const plan = sample(space, random);
    assert.ok(contains(space, plan), JSON.stringify(plan));
    assert.deepEqual(Object.keys(plan).sort(), ['moves', 'turn']);
    assert.equal(plan.turn, 7);
    for (const [key, target] of Object.entries(plan.moves)) {
      taken[key] += 1;
      assert.ok(Number.isInteger(target[0]) && Number.isInteger(target[1]));
      assert.ok(target.every((v) => v >= 0 && v <= 799), `${key}: ${target}`);
    }
    assert.ok(JSON.parse(JSON.stringify(plan)), 'survives the wire');
  }
  for (const key of keys) {
    // A subset takes each entry with probability 1/2.
    assert.ok(taken[key] > draws * 0.4 && taken[key] < draws * 0.6, `${key}: ${taken[key]}`);
  }
});

test('a point covers every integer point of its disc clipped by the box, evenly', () => {
  const cases = [
    point([1, 2], 4),                                      // clipped by two edges
    point([5, 5], 3, { min: [4, 0], max: [6, 799] }),      // a narrow box through the disc
    point([797, 798], 5),                                  // the far corner
    point([20, 20], 2),                                    // a whole small disc
  ];
  for (const space of cases) {
    const all = new Set();
    const [cx, cy] = space.center;
    const r = space.radius;
    for (let x = cx - r; x <= cx + r; x += 1) {
      for (let y = cy - r; y <= cy + r; y += 1) {
        if (contains(space, [x, y])) all.add(`${x},${y}`);
      }
    }
    const counts = new Map();
    const random = seededRandom(2);
    const draws = 200 * all.size;
    for (let i = 0; i < draws; i += 1) {
      const value = sample(space, random);
      assert.ok(contains(space, value), `${JSON.stringify(value)} in ${JSON.stringify(space)}`);
      const key = value.join(',');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    assert.deepEqual(new Set(counts.keys()), all, JSON.stringify(space));
    for (const [key, n] of counts) assert.ok(n > 100 && n < 300, `${key}: ${n} of ~200`);
  }
});

test('a point falls back to its centre after 64 misses, and radius 0 is the centre', () => {
  // The generator always picks the far corner of the bounding box, which is outside the disc.
  let calls = 0;
  const corner = () => { calls += 1; return 0.9999999; };
  assert.deepEqual(sample(point([100, 100], 10), corner), [100, 100]);
  assert.equal(calls, 2 * 64);
  assert.deepEqual(sample(point([0, 799], 0), seededRandom(3)), [0, 799]);
});

test('const, record and subset', () => {
  const value = { deep: [1, { two: 2 }] };
  const space = {
    type: 'record',
    fields: {
      kind: { type: 'const', value: 'plan' },
      payload: { type: 'const', value },
      nothing: { type: 'const', value: null },
      extras: { type: 'subset', entries: { a: { type: 'const', value: 1 }, b: point([0, 0], 1) } },
      empty: { type: 'subset', entries: {} },
    },
  };
  const drawn = sample(space, seededRandom(4));
  assert.ok(contains(space, drawn));
  assert.deepEqual(drawn.payload, value);
  assert.notEqual(drawn.payload, value, 'a copy: changing the answer leaves the space as is');
  assert.deepEqual(drawn.empty, {});
  assert.deepEqual(sample(space, seededRandom(4), 1).extras.a, 1, 'include=1 takes every entry');
  const everything = sample(space, seededRandom(5), 1);
  assert.deepEqual(Object.keys(everything.extras).sort(), ['a', 'b']);
  // The same seed gives the same draws.
  assert.deepEqual(sample(boundarySpace(), seededRandom(9)),
    sample(boundarySpace(), seededRandom(9)));

  const base = { kind: 'plan', payload: value, nothing: null, extras: {}, empty: {} };
  assert.ok(contains(space, base));
  assert.ok(contains(space, { ...base, extras: { b: [1, 0] } }));
  const refused = [
    { ...base, kind: 'Plan' },                          // const: another value
    { ...base, payload: { deep: [1, { two: '2' }] } },  // const: no type coercion
    { ...base, payload: { deep: [1, { two: 2 }], more: 1 } },
    { ...base, nothing: 0 },
    { ...base, extra: 1 },                              // record: an unknown key
    (({ kind, ...rest }) => rest)(base),                // record: a missing key
    { ...base, extras: { c: 1 } },                      // subset: not an entry
    { ...base, extras: { a: 2 } },                      // subset: a value outside its space
    { ...base, extras: { b: [1, 1] } },                 // point: outside the disc
    { ...base, extras: JSON.parse('{"constructor": 1}') }, // inherited names are no entries
    [base],
    null,
    'plan',
  ];
  for (const value of refused) assert.equal(contains(space, value), false, JSON.stringify(value));
});

test('contains refuses points that are not two integers in the disc and the box', () => {
  const space = point([0, 5], 10);
  assert.ok(contains(space, [0, 0]) && contains(space, [10, 5]) && contains(space, [6, 13]));
  for (const value of [[-1, 5], [11, 5], [8, 12], [0, 5.5], ['0', '5'], [true, 5], [0, 5, 0],
    [0], { 0: 0, 1: 5 }, null, 5]) {
    assert.equal(contains(space, value), false, JSON.stringify(value));
  }
});

test('an unknown node type is an error, not a guess', () => {
  assert.throws(() => sample({ type: 'range', low: 0, high: 3 }),
    /unknown action space node type "range"/);
  assert.throws(() => contains({ type: 'range' }, 1), /unknown action space node type/);
});

test('the random bot answers from legal_actions or from the action space', () => {
  const bot = new RandomBot(6);
  const space = boundarySpace(12);
  const request = { request_id: 'r', seat: 0, view: {}, action_space: space,
    default_action: { turn: 12, moves: {} }, clock_ms: null };
  for (let i = 0; i < 200; i += 1) assert.ok(contains(space, bot.choose(request)));
  const legal = [{ type: 'pass' }, { type: 'play', card: '3r', flag: 2 }];
  for (let i = 0; i < 50; i += 1) assert.ok(legal.includes(bot.choose({ legal_actions: legal })));
  assert.ok(contains(space, randomAction(request, seededRandom(1))));

  // After a refusal the runner answers safely: the default action where there is one.
  assert.deepEqual(safeAction(request), { turn: 12, moves: {} });
  const { default_action: _, ...noDefault } = request;
  assert.ok(contains(space, safeAction(noDefault, seededRandom(2))));
  assert.ok(legal.includes(safeAction({ legal_actions: legal, default_action: 'ignored' })));
});
