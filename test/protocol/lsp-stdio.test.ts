// The server over stdio ends when its client goes away: exit 0 after a shutdown request, 1 without.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { URI } from 'vscode-uri';
import { repoRoot } from '../util/paths';

async function exitCodeAfterStdinCloses(shutdownFirst: boolean): Promise<number | null> {
  const proc = spawn(process.execPath, [join(repoRoot, 'dist', 'server.js'), '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const conn = createMessageConnection(
    new StreamMessageReader(proc.stdout as NodeJS.ReadableStream),
    new StreamMessageWriter(proc.stdin as NodeJS.WritableStream),
  );
  conn.onNotification(() => undefined);
  conn.onRequest(() => null);
  conn.listen();
  const root = URI.file(tmpdir()).toString();
  await conn.sendRequest('initialize', { processId: process.pid, rootUri: root, capabilities: {}, initializationOptions: {} });
  if (shutdownFirst) await conn.sendRequest('shutdown');
  conn.dispose();
  proc.stdin?.end();
  const deadline = setTimeout(() => proc.kill(), 20_000);
  try {
    return await exited;
  } finally {
    clearTimeout(deadline);
  }
}

test('stdin closing after shutdown ends the server with 0', async () => {
  assert.equal(await exitCodeAfterStdinCloses(true), 0);
});

test('stdin closing without shutdown ends the server with 1', async () => {
  assert.equal(await exitCodeAfterStdinCloses(false), 1);
});
