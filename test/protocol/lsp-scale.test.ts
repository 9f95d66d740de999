// Issue 22 item 10 through the language server: one hostile document (40,000 unknown keys) and
// three keystrokes on it never hold up a hover on another document, and only the newest version's
// diagnostics are published (stale checks are dropped, not run to the end).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { URI } from 'vscode-uri';
import { repoRoot } from '../util/paths';
import { LspClient } from '../util/lspClient';
import { unknownKeysDoc } from '../util/hostileConfigs';

const demo = join(repoRoot, 'demo');
const small = URI.file(join(demo, 'math_agent.yaml')).toString();
const big = URI.file(join(demo, 'hostile.yaml')).toString();
let lsp: LspClient;

before(async () => {
  lsp = new LspClient();
  lsp.conn.onRequest('workspace/configuration', () => []);
  lsp.conn.listen();
  await lsp.conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: URI.file(demo).toString(),
    capabilities: {},
    workspaceFolders: [{ uri: URI.file(demo).toString(), name: 'demo' }],
    initializationOptions: { problems: 'openFiles', trusted: true },
  });
  await lsp.conn.sendNotification('initialized', {});
});

after(() => lsp.stop());

test('issue 22 #10: a hover on another document is answered while a 40,000-key document is checked; stale versions publish nothing', async () => {
  const text = readFileSync(join(demo, 'math_agent.yaml'), 'utf8');
  await lsp.conn.sendNotification('textDocument/didOpen', { textDocument: { uri: small, languageId: 'yaml', version: 1, text } });
  await lsp.nextDiagnostics(small);
  const hostile = unknownKeysDoc();
  await lsp.conn.sendNotification('textDocument/didOpen', { textDocument: { uri: big, languageId: 'yaml', version: 1, text: hostile } });
  // Three edits in a burst (a paste, a fast typist): each arrives before the check of the one before ends.
  for (let v = 2; v <= 4; v++) {
    const edited = hostile.replace('project_name: x', `project_name: x${v}`);
    await lsp.conn.sendNotification('textDocument/didChange', {
      textDocument: { uri: big, version: v },
      contentChanges: [{ text: edited }],
    });
  }
  const line = text.split('\n').findIndex((l) => l.includes('max_model_len'));
  const order: string[] = [];
  const final = lsp.nextDiagnostics(big, (p) => p.version === 4, 120_000).then(() => order.push('diagnostics'));
  const h = (await lsp.conn.sendRequest('textDocument/hover', { textDocument: { uri: small }, position: { line, character: 6 } })) as {
    contents: { value: string };
  };
  order.push('hover');
  assert.match(h.contents.value, /ajet\.rollout\.max_model_len/);
  await final;
  assert.deepEqual(order, ['hover', 'diagnostics'], 'the hover did not wait for the big document');
  const versions = lsp.published.filter((p) => p.uri === big).map((p) => p.version);
  // A version the server knew to be old when it published is stale: what it publishes only ever moves
  // forward and ends at the newest (how many earlier checks finish in time depends on the machine).
  assert.equal(versions.at(-1), 4, `the newest version is published last (got ${versions.join(',')})`);
  assert.ok(
    versions.every((v, i) => i === 0 || (v ?? 0) > (versions[i - 1] ?? 0)),
    `no version is published after a newer one (got ${versions.join(',')})`,
  );
  const last = lsp.published.filter((p) => p.uri === big).at(-1);
  assert.equal(last?.diagnostics.filter((d) => d.code === 'unknown-key').length, 40_000);
});
