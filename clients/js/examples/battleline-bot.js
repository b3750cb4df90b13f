#!/usr/bin/env node
// A simple Battle Line heuristic bot (src/battleline.js): claims what it can, draws troops,
// and plays the troop card that does most for a formation. Same settings as
// examples/random-bot.js (ARENA_SERVER, ARENA_TOKEN, ARENA_GAME defaults to battleline, ...).

import { BattleLineBot, runBot } from '../src/index.js';

try {
  const stats = await runBot(new BattleLineBot(), { games: ['battleline'] });
  process.exitCode = stats.lost || stats.refused ? 1 : 0;
} catch (error) {
  console.error(`battleline-bot: ${error.message}`);
  process.exitCode = 1;
}
