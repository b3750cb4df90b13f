// Test helper: a real Tabletop Arena server (`arena serve` on 127.0.0.1, port 0, SQLite in a
// temporary directory), accounts, and house bots (`arena bot ...`) as child processes.
//
// The `arena` program is found as $ARENA_BIN, else the repository's .venv/bin/arena, else on
// PATH.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '..', '..', '..');

export function arenaBin() {
  if (process.env.ARENA_BIN) return process.env.ARENA_BIN;
  const venv = path.join(REPO, '.venv', 'bin', 'arena');
  return existsSync(venv) ? venv : 'arena';
}

/** The Python next to `arena` (the project's virtualenv), else python3. */
export function pythonBin() {
  const bin = arenaBin();
  const sibling = path.join(path.dirname(bin), 'python');
  return bin.includes(path.sep) && existsSync(sibling) ? sibling : 'python3';
}

const CREATE_ACCOUNTS = `
import json, sys
from server.storage import SqliteStore
store = SqliteStore(sys.argv[1])
print(json.dumps({name: store.create_account(name, "bot", house=name.startswith("house-"))
                  for name in sys.argv[2:]}))
store.close()
`;

function run(bin, args) {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function waitForLine(child, pattern, timeoutMs) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${seen}`)),
      timeoutMs);
    const onData = (chunk) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve(match);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${pattern}:\n${seen}`));
    });
  });
}

/** Start a server with the given bot accounts. Resolves with {url, tokens, startHouseBot,
 * stop}. */
export async function startArena(accountNames) {
  const dir = mkdtempSync(path.join(tmpdir(), 'arena-js-test-'));
  const db = path.join(dir, 'arena.sqlite3');
  const bin = arenaBin();
  // `arena account create NAME` does this one account per process; one process for all of
  // them keeps the set-up short.
  const made = await run(pythonBin(), ['-c', CREATE_ACCOUNTS, db, ...accountNames]);
  if (made.code !== 0) throw new Error(`creating accounts failed: ${made.stderr}`);
  const tokens = JSON.parse(made.stdout);
  const children = [];
  const server = spawn(bin, ['serve', '--port', '0', '--db', db, '--log-level', 'warning',
    '--grace', '10'], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(server);
  server.stderr.resume();
  const [, url] = await waitForLine(server, /(ws:\/\/\S+\/ws)/, 20000);

  /** A house bot: `arena bot NAME --game GAME` offering autoplay under account `account`. */
  async function startHouseBot(account, game = 'battleline', bot = 'random') {
    const child = spawn(bin, ['bot', bot, '--game', game, '--server', url, '--token',
      tokens[account], '--max-matches', '4', '--log-level', 'info'],
    { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    child.stdout.resume();
    // Ready once its autoplay offer went out (structlog JSON lines on stderr).
    await new Promise((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`house bot not ready:\n${seen}`)), 20000);
      child.stderr.on('data', (chunk) => {
        seen += chunk.toString();
        if (seen.includes('autoplay_offered')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    return child;
  }

  function stop() {
    for (const child of children.reverse()) {
      if (child.exitCode === null) child.kill('SIGTERM');
    }
    rmSync(dir, { recursive: true, force: true });
  }

  return { url, tokens, db, startHouseBot, stop };
}
