// Issue 39 R15 (a), (b): `agentjet mcp` and messages it cannot take.
// (a) A message over 10 MB (the SDK's stdio bound) used to end the server with exit code 0 and
//     nothing on stderr. Now the sender gets a JSON-RPC error naming the size and the limit (to the
//     request's id when it shows), stderr says it, and the server answers the next message; a line
//     that is not JSON-RPC gets a parse error the same way.
// (b) "record too large" suggests --max-record-mb: `agentjet mcp` takes it (and every flag the
//     message names is one `agentjet mcp` has).
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, connectMcp } from '../util/mcpClient';
import { waitFor } from '../util/poll';
import { writeBombLog } from '../gen/bomb';

const scratch = mkdtempSync(join(tmpdir(), 'aj-mcpmsg-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const env = { AGENTJET_CACHE_DIR: join(scratch, 'cache'), AGENTJET_FACTS_CACHE: join(scratch, 'facts') };

test('R15a: an 11 MB tools/call gets an error to its id; the server lives and answers the next call', async () => {
  const s = await connectMcp(scratch, [], env);
  try {
    await assert.rejects(
      s.client.callTool({ name: 'agentjet_lint', arguments: { path: '.', pad: 'x'.repeat(11 * 1024 * 1024) } }),
      /a message of 11\.0 MB is over the limit of 10\.0 MB per message and was dropped; the server goes on/,
    );
    await s.client.ping();
    const r = await s.call('agentjet_runs', {});
    assert.equal(r.isError, false, r.text);
    assert.match(s.stderr(), /agentjet mcp: a message of 11\.0 MB is over the limit/);
  } finally {
    await s.close();
  }
});

test('R15a raw: a 12 MB line without an id and a line that is not JSON (a NUL in it, escaped on stderr) are answered without an id; ping after them', async () => {
  const proc = spawn(process.execPath, [CLI, 'mcp', '--root', scratch], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  try {
    // Written in pieces, as a pipe delivers them.
    const piece = 'y'.repeat(1024 * 1024);
    for (let i = 0; i < 12; i++) proc.stdin.write(piece);
    // The line that is not JSON holds a control character: stderr shows it escaped.
    proc.stdin.write('\nnot\u0000json\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    await waitFor(
      () => out.includes('"id":7'),
      () => `the ping's answer; stdout: ${out.slice(0, 500)} stderr: ${err}`,
      30_000,
    );
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: unknown; error?: { code: number; message: string }; result?: unknown });
    assert.equal(lines.length, 3, out);
    assert.equal(lines[0]!.id, undefined);
    assert.equal(lines[0]!.error?.code, -32600);
    assert.match(lines[0]!.error!.message, /a message of 12\.0 MB is over the limit of 10\.0 MB/);
    assert.equal(lines[1]!.error?.code, -32700);
    assert.deepEqual(lines[2], { jsonrpc: '2.0', id: 7, result: {} });
    assert.match(err, /over the limit/);
    assert.match(err, /not JSON-RPC/);
    assert.ok(!err.includes('\u0000') && err.includes('\\u0000'), err);
    proc.stdin.end();
    assert.equal(await exited, 0);
  } finally {
    proc.kill('SIGKILL');
  }
});

test('R15b: "record too large" names only flags agentjet mcp has; --max-record-mb is one and sets the bound', async () => {
  const root = join(scratch, 'bomb');
  mkdirSync(join(root, 'logs'), { recursive: true });
  const bomb = await writeBombLog(join(root, 'logs', 'bomb.json.log'), 40 * 1024 * 1024);
  const help = spawnSync(process.execPath, [CLI, 'mcp', '--help'], { encoding: 'utf8' }).stdout;
  const s = await connectMcp(root, ['--max-record-mb', '16'], env);
  try {
    const rec = await s.call('agentjet_log_record', { path: 'logs/bomb.json.log', index: bomb.bombIndex });
    assert.equal(rec.isError, true);
    assert.match(rec.text, /record too large: its payload inflates to more than 16 MB/);
    const flags = rec.text.match(/--[a-z][a-z-]+/g) ?? [];
    assert.ok(flags.length > 0, rec.text);
    for (const f of flags) assert.ok(help.includes(f), `${f} (suggested by "${rec.text}") is an option of agentjet mcp`);
  } finally {
    await s.close();
  }
  const bad = spawnSync(process.execPath, [CLI, 'mcp', '--root', root, '--max-record-mb', '0'], { encoding: 'utf8', input: '' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--max-record-mb must be a number from 1 to 4096/);
});
