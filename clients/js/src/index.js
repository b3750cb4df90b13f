// tabletop-arena-client: connect a Node.js bot to a Tabletop Arena server.
//
//   import { runBot } from 'tabletop-arena-client';
//   await runBot({ choose: (request) => request.legal_actions[0] });

export {
  ArenaClient, ArenaError, ConnectionLost, StaleRequest, Inbox, DEFAULT_RECONNECT,
  PROTOCOL_VERSION, SUBPROTOCOL_JSON, CLIENT_NAME, backoffDelayMs,
} from './client.js';
export { BotRunner, runBot, optionsFromEnv, describeResult, DEFAULT_SERVER } from './runner.js';
export { RandomBot, randomAction, safeAction, seededRandom } from './bots.js';
export { NODE_TYPES, contains, jsonEqual, sample } from './spaces.js';
export { BattleLineBot } from './battleline.js';
