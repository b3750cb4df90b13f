// The bot runner and the example bots play whole matches on a real server: against the
// Python house bot (`arena bot random`), against each other, and as child processes
// configured only by ARENA_* environment variables.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  BattleLineBot, BotRunner, RandomBot, contains, describeResult, sample,
} from '../src/index.js';
import { REPO, startArena } from './arena.js';

let arena;
const FAST = { initialDelayMs: 20, maxDelayMs: 200, maxAttempts: 20 };
const REASONS = ['five_flags', 'breakthrough', 'stalemate'];
const BOUNDARY_REASONS = ['treasures', 'elimination', 'turn_limit'];

before(async () => {
  arena = await startArena(['house', 'house-boundary', 'js-random', 'js-heuristic', 'cx-0',
    'cx-1', 'cx-2', 'js-plans', 'js-clumsy']);
  await Promise.all([arena.startHouseBot('house', 'battleline'),
    arena.startHouseBot('house-boundary', 'boundary', 'greedy-treasure')]);
});

after(() => arena?.stop());

function runner(bot, account, options) {
  return new BotRunner(bot, { server: arena.url, token: arena.tokens[account], log: null,
    logErrors: null, reconnect: FAST, env: {}, ...options });
}

test('the random and the heuristic bot each play whole matches against the house bot', async () => {
  const results = await Promise.all([
    runner(new RandomBot(1), 'js-random', { opponent: 'house', matches: 2 }).run(),
    runner(new BattleLineBot(), 'js-heuristic', { opponent: 'house', matches: 2 }).run(),
  ]);
  for (const stats of results) {
    assert.equal(stats.matchesFinished, 2);
    assert.equal(stats.errors, 0);
    assert.equal(stats.fallbacks, 0, 'every answer was legal');
    assert.equal(stats.lost, false);
    assert.ok(stats.actions >= 2 * 20, `${stats.actions} actions`);
    for (const { outcome, seat } of stats.results) {
      assert.ok(REASONS.includes(outcome.reason), outcome.reason);
      assert.ok(['won', 'lost', 'draw'].includes(describeResult(outcome, seat)));
    }
  }
});

test('a refused or failed choice is replaced by a random legal action', async () => {
  let calls = 0;
  const clumsy = {
    choose(request) {
      calls += 1;
      if (calls % 3 === 0) throw new Error('the bot tripped');
      if (calls % 3 === 1) return { type: 'play', card: 'Joker', flag: 1 }; // no such card
      return request.legal_actions[0];
    },
  };
  const errors = [];
  const stats = await runner(clumsy, 'js-random',
    { opponent: 'house', matches: 1, logErrors: (line) => errors.push(line) }).run();
  assert.equal(stats.matchesFinished, 1);
  assert.ok(stats.errors > 0 && stats.errors === errors.filter((e) => e.startsWith('server error')).length);
  assert.ok(errors.some((e) => e.startsWith('server error malformed_action')), errors[0]);
  assert.ok(errors.some((e) => e.includes('the bot tripped')));
  assert.ok(stats.fallbacks >= stats.errors, `${stats.fallbacks} fallbacks, ${stats.errors} errors`);
  assert.ok(REASONS.includes(stats.results[0].outcome.reason));
});

test('in Boundary the random bot answers from the action space alone', async () => {
  const bot = new RandomBot(5);
  const seen = [];
  const watching = { choose(request) {
    assert.equal(request.legal_actions, undefined);
    const action = bot.choose(request);
    assert.ok(contains(request.action_space, action));
    seen.push(request.request_id);
    return action;
  } };
  const stats = await runner(watching, 'js-plans', { games: ['boundary'],
    opponent: 'house-boundary', matches: 1, seat: 1, gameOptions: { turn_limit: 20 } }).run();
  assert.equal(stats.matchesFinished, 1);
  assert.equal(stats.errors, 0);
  assert.equal(stats.fallbacks, 0);
  assert.equal(stats.actions, seen.length);
  assert.equal(new Set(seen).size, seen.length, 'one answer per request');
  assert.ok(BOUNDARY_REASONS.includes(stats.results[0].outcome.reason));
});

test('in Boundary a refused or failed plan is replaced by the default action', async () => {
  let calls = 0;
  const refusedFor = new Set();
  const clumsy = {
    choose(request) {
      calls += 1;
      const space = request.action_space;
      if (calls % 3 === 1) {
        // A plan for another turn: illegal (stale_turn), then the runner's default plan.
        refusedFor.add(request.request_id);
        return { ...sample(space), turn: space.fields.turn.value + 1 };
      }
      if (calls % 3 === 2) throw new Error('the bot tripped');
      return sample(space);
    },
  };
  const errors = [];
  const sent = [];
  const runnerForClumsy = runner(clumsy, 'js-clumsy', { games: ['boundary'],
    opponent: 'house-boundary', matches: 1, gameOptions: { turn_limit: 9 },
    logErrors: (line) => errors.push(line) });
  const act = runnerForClumsy.client.act.bind(runnerForClumsy.client);
  runnerForClumsy.client.act = (request, action) => {
    sent.push({ request, action });
    return act(request, action);
  };
  const stats = await runnerForClumsy.run();
  assert.equal(stats.matchesFinished, 1);
  assert.ok(calls >= 3, `${calls} turns`);
  assert.equal(stats.errors, refusedFor.size);
  assert.ok(errors.some((e) => e.startsWith('server error illegal_action')), errors[0]);
  assert.ok(errors.some((e) => e.includes('the bot tripped')));
  assert.equal(stats.fallbacks, stats.errors + Math.floor((calls + 1) / 3));
  // Each refused plan was answered again with the request's default action.
  for (const id of refusedFor) {
    const answers = sent.filter((s) => s.request.request_id === id);
    assert.equal(answers.length, 2);
    assert.deepEqual(answers[1].action, answers[1].request.default_action);
  }
  assert.ok(BOUNDARY_REASONS.includes(stats.results[0].outcome.reason));
});

test('three JS random bots play Chexers: two on autoplay, one asking play_bot', async () => {
  const house = [0, 1].map((i) => runner(new RandomBot(10 + i), `cx-${i}`,
    { games: ['chexers'], mode: 'autoplay', matches: 1 }));
  const running = house.map((r) => r.run());
  await Promise.all(house.map((r) => r.ready)); // both autoplay offers accepted
  const asker = await runner(new RandomBot(12), 'cx-2',
    { games: ['chexers'], mode: 'play_bot', matches: 1 }).run();
  const seated = await Promise.all(running);
  for (const stats of [asker, ...seated]) {
    assert.equal(stats.matchesFinished, 1);
    assert.equal(stats.errors, 0);
    assert.equal(stats.results[0].outcome.ranks.length, 3);
  }
  assert.deepEqual(new Set([asker, ...seated].map((s) => s.results[0].matchId)).size, 1);
});

function runExample(script, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO, 'clients', 'js', 'examples', script)],
      { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('the example bots are configured by ARENA_* variables alone', async () => {
  const env = { ARENA_SERVER: arena.url, ARENA_GAME: 'battleline', ARENA_OPPONENT: 'house',
    ARENA_MATCHES: '1' };
  const [random, heuristic] = await Promise.all([
    runExample('random-bot.js', { ...env, ARENA_TOKEN: arena.tokens['js-random'], ARENA_SEED: '3' }),
    runExample('battleline-bot.js', { ...env, ARENA_TOKEN: arena.tokens['js-heuristic'] }),
  ]);
  for (const [result, account] of [[random, 'js-random'], [heuristic, 'js-heuristic']]) {
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`connected to ws://\\S+ as ${account} \\(bot\\)`));
    assert.match(result.stdout, /match \w+ started: battleline, seat [01] against house/);
    assert.match(result.stdout, /match \w+ ended: (won|lost|draw) \(\w+\)/);
    assert.match(result.stdout, /done: 1 match\(es\), \d+ actions, 0 errors/);
    assert.equal(result.stderr, '');
  }
});

test('a bot that cannot reach a server gives up and exits 1', async () => {
  const result = await runExample('random-bot.js', { ARENA_SERVER: 'ws://127.0.0.1:9/ws',
    ARENA_CONNECT_ATTEMPTS: '2' });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /random-bot: .*ECONNREFUSED/);
});

test('a bot refused a match (no such house bot) says why and exits 1', async () => {
  const result = await runExample('random-bot.js', { ARENA_SERVER: arena.url,
    ARENA_TOKEN: arena.tokens['js-random'], ARENA_OPPONENT: 'nobody' });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /server error not_found: no bot of that name/);
  assert.match(result.stderr, /the server refused to give us a match: not_found/);
});
