// Issue 28, hostile input round 3: HTTP answers the project reads (the swarm server's) from a
// server on 127.0.0.1 that answers badly. 200 MB of JSON, with or without a Content-Length, is
// refused at the byte cap; an answer trickled forever ends at the one deadline; a redirect to
// itself and a Content-Length larger than the body read as what they are (connected, bad answer),
// not as "cannot connect"; `agentjet swarm status --format json` prints nothing unbounded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SwarmApi, SwarmError, SWARM_MAX_ANSWER_BYTES } from '../../core/swarm/api';
import { httpJson, HttpJsonError } from '../../core/net/httpJson';
import { repoRoot } from '../util/paths';
import { waitFor } from '../util/poll';

let server: Server;
let base = '';
const open = new Set<ServerResponse>();

/** Writes about `bytes` of a JSON array in 1 MB pieces, minding backpressure (nothing this large is held). */
function streamHugeJson(res: ServerResponse, bytes: number): void {
  const piece = Buffer.from(`${'"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",'.repeat(32 * 1024)}`);
  let sent = 0;
  res.write('[');
  const pump = () => {
    while (sent < bytes) {
      sent += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    res.end('"end"]');
  };
  res.on('close', () => (sent = bytes + 1));
  pump();
}

before(async () => {
  server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const url = req.url ?? '/';
    if (url.startsWith('/huge-declared/')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(200 * 1024 * 1024) });
      streamHugeJson(res, 200 * 1024 * 1024);
    } else if (url.startsWith('/huge-chunked/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      streamHugeJson(res, 200 * 1024 * 1024);
    } else if (url.startsWith('/loop/')) {
      res.writeHead(302, { location: url });
      res.end();
    } else if (url.startsWith('/short/')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
      res.write('{"engine_status": "ENGINE.ROLLING"');
      // The socket ends after a part of the announced body.
      setImmediate(() => res.socket?.destroy());
    } else if (url.startsWith('/trickle/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"engine_status": "');
      const t = setInterval(() => res.write('x'), 100);
      res.on('close', () => clearInterval(t));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ engine_status: 'ENGINE.ROLLING', engine_status_detail: null, global_step: 3 }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const r of open) r.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

async function failure(prefix: string, timeoutMs = 5000): Promise<SwarmError> {
  try {
    await new SwarmApi(`${base}${prefix}`, { timeoutMs }).engineStatus();
  } catch (e) {
    assert.ok(e instanceof SwarmError, String(e));
    return e;
  }
  assert.fail(`${prefix}: answered`);
}

test('a good answer still reads', async () => {
  assert.equal((await new SwarmApi(base).engineStatus()).engine_status, 'ENGINE.ROLLING');
});

test('200 MB of JSON with its Content-Length: refused before reading, as a bad answer', async () => {
  const e = await failure('/huge-declared');
  assert.equal(e.kind, 'invalid');
  assert.match(e.message, /connected, but the answer is 200 MB, more than the 8 MB read at most/);
});

test('200 MB of JSON without a Content-Length: reading stops at the byte cap', async () => {
  const before = process.memoryUsage().rss;
  const e = await failure('/huge-chunked', 30_000);
  assert.equal(e.kind, 'invalid');
  assert.match(e.message, /connected, but the answer is more than the 8 MB read at most/);
  // Held at most the cap (plus what one read brings), never the 200 MB.
  const grew = process.memoryUsage().rss - before;
  assert.ok(grew < 150 * 1024 * 1024, `rss grew ${grew} bytes`);
});

test('a redirect to itself: connected, the answer is a redirect (not "cannot connect")', async () => {
  const e = await failure('/loop');
  assert.equal(e.kind, 'http');
  assert.match(e.message, /connected, but the server answered HTTP 302, a redirect to \/loop/);
  assert.doesNotMatch(e.message, /cannot connect/);
});

test('a Content-Length larger than the body: connected, the answer broke off', async () => {
  const e = await failure('/short');
  assert.equal(e.kind, 'invalid');
  assert.match(e.message, /connected, but the answer broke off after \d+ bytes of the 5000 announced/);
  assert.doesNotMatch(e.message, /cannot connect/);
});

test('an answer trickled forever ends at the one deadline (it covers reading, not only connecting)', async () => {
  const e = await failure('/trickle', 1500);
  assert.equal(e.kind, 'timeout');
  assert.match(e.message, /no answer within 1500 ms/);
});

test('nothing listening: "connection refused", not a bad answer', async () => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  await assert.rejects(httpJson(`http://127.0.0.1:${port}/`, { timeoutMs: 3000, maxBytes: 1024 }), (e: unknown) => {
    assert.ok(e instanceof HttpJsonError);
    assert.equal(e.failure, 'refused');
    assert.equal(e.connected, false);
    return true;
  });
});

test(
  'agentjet swarm status --format json against 200 MB answers: exit 1, a clear message, nothing printed',
  { timeout: 60_000 },
  async () => {
    const p = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(repoRoot, 'cli', 'main.ts'),
        'swarm',
        'status',
        '--url',
        `${base}/huge-chunked`,
        '--format',
        'json',
        '--timeout',
        '20',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, LANG: 'C.UTF-8', LANGUAGE: '' },
      },
    );
    let out = '';
    let err = '';
    p.stdout.on('data', (b: Buffer) => (out += b.toString()));
    p.stderr.on('data', (b: Buffer) => (err += b.toString()));
    let code: number | null | undefined;
    p.on('close', (c) => (code = c));
    try {
      await waitFor(() => code !== undefined, 'agentjet swarm status to end', 50_000);
    } finally {
      if (code === undefined) p.kill('SIGKILL');
    }
    assert.equal(code, 1, err);
    assert.equal(out, '');
    assert.match(err, new RegExp(`connected, but the answer is more than the ${SWARM_MAX_ANSWER_BYTES / (1024 * 1024)} MB read at most`));
  },
);
