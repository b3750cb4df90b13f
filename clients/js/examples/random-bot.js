#!/usr/bin/env node
// A random bot for any game: it answers every request with a random element of
// `legal_actions`, or, in a game that sends an `action_space` instead (Boundary), a random
// value of that space. Settings from the environment (ARENA_SERVER, ARENA_TOKEN, ARENA_GAME,
// ARENA_MODE, ARENA_OPPONENT, ARENA_MATCHES, ARENA_CLOCK; see src/runner.js), e.g.
//
//   ARENA_TOKEN=... ARENA_GAME=chexers node examples/random-bot.js
//   ARENA_TOKEN=... ARENA_GAME=boundary node examples/random-bot.js
//
// ARENA_SEED makes its choices repeatable. Exit status: 0 when it stopped normally,
// 1 when it could not connect, lost the server for good, or was refused a match.

import { RandomBot, runBot } from '../src/index.js';

const seed = process.env.ARENA_SEED ? Number(process.env.ARENA_SEED) : undefined;
try {
  const stats = await runBot(new RandomBot(seed), { seed });
  process.exitCode = stats.lost || stats.refused ? 1 : 0;
} catch (error) {
  console.error(`random-bot: ${error.message}`);
  process.exitCode = 1;
}
