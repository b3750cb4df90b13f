// The client library against a real server: handshake, replies by ref, errors, pending
// requests, stale answers, and a resume after a brutal network failure.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { ArenaClient, ArenaError, RandomBot, StaleRequest } from '../src/index.js';
import { startArena } from './arena.js';

let arena;

before(async () => {
  arena = await startArena(['house', 'alice', 'bob']);
  await arena.startHouseBot('house', 'battleline');
});

after(() => arena?.stop());

const FAST = { initialDelayMs: 20, maxDelayMs: 200, maxAttempts: 20 };

async function connected(options) {
  const client = new ArenaClient(arena.url, { reconnect: FAST, ...options });
  await client.connect();
  return client;
}

test('hello with a token opens a session for that account over JSON', async () => {
  const client = await connected({ token: arena.tokens.alice });
  try {
    assert.equal(client.welcome.type, 'welcome');
    assert.equal(client.welcome.protocol, 1);
    assert.deepEqual(client.welcome.account, { name: 'alice', kind: 'bot' });
    assert.equal(client.welcome.encoding, 'json');
    assert.equal(typeof client.session, 'string');
    assert.ok(client.welcome.limits.max_frame_bytes > 0);
  } finally {
    client.close();
  }
});

test('a guest gets a guest account; a wrong token is refused as unauthorized', async () => {
  const guest = await connected({ name: 'zoe' });
  assert.equal(guest.account.kind, 'guest');
  assert.match(guest.account.name, /^zoe/);
  guest.close();
  const bad = new ArenaClient(arena.url, { token: 'not-a-token', reconnect: FAST });
  await assert.rejects(bad.connect(), (error) => error instanceof ArenaError
    && error.code === 'unauthorized');
  bad.close();
});

test('requests resolve with the reply carrying their id; errors reject typed', async () => {
  const client = await connected({ token: arena.tokens.alice });
  try {
    const games = await client.listGames();
    const names = games.map((g) => g.name);
    assert.ok(names.includes('battleline') && names.includes('chexers'), names.join(','));
    const pong = await client.ping();
    assert.equal(pong.type, 'pong');
    await assert.rejects(client.seek('no-such-game'), (error) => error instanceof ArenaError
      && error.code === 'not_found' && typeof error.error.ref === 'number');
    await assert.rejects(client.playBot('battleline', { bot: 'nobody' }),
      (error) => error.code === 'not_found');
  } finally {
    client.close();
  }
});

test('a client that asks for views gets its view with every events message', async () => {
  const client = await connected({ token: arena.tokens.bob, views: true });
  const inbox = client.inbox();
  try {
    assert.equal(client.welcome.views, true);
    const start = await client.playBot('battleline', { bot: 'house', seat: 0 });
    const request = await inbox.next((m) => m.type === 'request' && m.match_id === start.match_id);
    client.act(request, request.legal_actions[0]);
    const played = await inbox.next((m) => m.type === 'events' && m.match_id === start.match_id
      && m.events.some((e) => e.type === 'play'));
    assert.equal(played.view.seat, 0);                    // seat 0's own view, its hand in it
    assert.ok(Array.isArray(played.view.hand));
    client.resign(start.match_id);
    await inbox.next((m) => m.type === 'match_end' && m.match_id === start.match_id);
  } finally {
    inbox.stop();
    client.close();
  }
});

test('a lean client gets no events frames, yet every events message before its request',
  async () => {
    const client = await connected({ token: arena.tokens.bob, lean: true });
    const inbox = client.inbox();
    const frames = [];
    client._ws.on('message', (data) => frames.push(JSON.parse(data.toString('utf8'))));
    const bot = new RandomBot(11);
    try {
      assert.equal(client.welcome.lean, true);
      const start = await client.playBot('battleline', { bot: 'house', seat: 1 });
      const seqs = [];
      let requests = 0;
      for (;;) {
        const message = await inbox.next((m) => m.match_id === start.match_id, 20000);
        assert.equal(message.type === 'events' || !('events' in message), true);
        if (message.type === 'events') seqs.push(message.seq);
        if (message.type === 'request' && client.isPending(message)) {
          requests += 1;
          client.act(message, bot.choose(message));
        }
        if (message.type === 'match_end') break;
      }
      assert.ok(requests > 5);
      // Each events message once, in order: the ones the frames carried, and no others.
      assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1));
      const ours = frames.filter((m) => m.match_id === start.match_id);
      assert.equal(ours.filter((m) => m.type === 'events').length, 0);
      assert.equal(ours.filter((m) => m.type === 'request').length, requests);
      assert.equal(ours.reduce((n, m) => n + (m.events ?? []).length, 0), seqs.length);
    } finally {
      inbox.stop();
      client.close();
    }
  });

test('a request is answered once: a second answer is stale, a wrong id is refused', async () => {
  const client = await connected({ token: arena.tokens.alice });
  const inbox = client.inbox();
  try {
    const start = await client.playBot('battleline', { bot: 'house', seat: 0 });
    assert.equal(start.your_seat, 0);
    const request = await inbox.next((m) => m.type === 'request' && m.match_id === start.match_id);
    assert.ok(client.isPending(request));
    // An answer naming a request id the server never issued: stale_request, still open.
    const wrong = { ...request, request_id: 'not-the-open-one' };
    client.send({ type: 'action', id: 'w1', match_id: wrong.match_id,
      request_id: wrong.request_id, action: request.legal_actions[0] });
    const refused = await inbox.next((m) => m.type === 'error' && m.ref === 'w1');
    assert.equal(refused.code, 'stale_request');
    assert.ok(client.isPending(request));
    client.act(request, request.legal_actions[0]);
    assert.equal(client.isPending(request), false);
    assert.throws(() => client.act(request, request.legal_actions[0]), StaleRequest);
    const played = await inbox.next((m) => m.type === 'events' && m.match_id === start.match_id
      && m.events.some((e) => e.type === 'play'));
    assert.equal(played.events.find((e) => e.type === 'play').seat, 0);
    client.resign(start.match_id);
    const end = await inbox.next((m) => m.type === 'match_end' && m.match_id === start.match_id);
    assert.deepEqual(end.outcome.ranks, [1, 0]);
    assert.equal(end.outcome.reason, 'resignation');
    assert.equal(client.pendingRequests().length, 0);
  } finally {
    inbox.stop();
    client.close();
  }
});

test('after a network failure the client resumes and the match goes on', async () => {
  const client = await connected({ token: arena.tokens.bob });
  const inbox = client.inbox();
  const bot = new RandomBot(7);
  const session = client.session;
  const resumes = [];
  client.on('connected', (welcome, { resumed }) => resumes.push(resumed));
  try {
    const start = await client.playBot('battleline', { bot: 'house', seat: 1 });
    let answered = 0;
    let end = null;
    let afterDrop = null;
    let resentId = null;
    while (end === null) {
      const message = await inbox.next((m) => m.match_id === start.match_id, 20000);
      if (message.type === 'request' && client.isPending(message)) {
        if (afterDrop !== null && resentId === null) resentId = message.request_id;
        if (answered === 3 && afterDrop === null) {
          // A brutal network failure with a request open: no close frame, nothing sent.
          afterDrop = message.request_id;
          client._ws._socket.destroy();
          continue;
        }
        client.act(message, bot.choose(message));
        answered += 1;
      } else if (message.type === 'match_end') {
        end = message;
      }
    }
    assert.equal(client.reconnects, 1);
    assert.deepEqual(resumes, [true]);
    assert.equal(client.session, session, 'the same session goes on');
    assert.ok(answered > 10, `only ${answered} answers`);
    assert.ok(['five_flags', 'breakthrough', 'stalemate'].includes(end.outcome.reason),
      end.outcome.reason);
    // The request open at the failure was re-sent with the same id and answered then.
    assert.equal(resentId, afterDrop);
    const replay = await client.getReplay(start.match_id);
    assert.equal(replay.status, 'over');
  } finally {
    inbox.stop();
    client.close();
  }
});
