// The language server in Simplified Chinese: the client's `initializationOptions.locale` (the
// extension passes vscode.env.language) decides the language of diagnostics, quick fixes and hovers.
// The same server without it (test/protocol/lsp.test.ts) answers in English.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { URI } from 'vscode-uri';
import { repoRoot } from '../util/paths';
import { descriptionCatalogue } from '../../core/config/schemaDescriptions';
import { LspClient, type Diag, type Published } from '../util/lspClient';

const demo = join(repoRoot, 'demo');
const configPath = join(demo, 'math_agent.yaml');
const uri = URI.file(configPath).toString();
const text = readFileSync(configPath, 'utf8')
  .replace('temperature: 0.9', 'temprature: 0.9')
  .replace('max_model_len: 8000', 'max_model_len: "8000"');

let lsp: LspClient;
let conn: MessageConnection;
let diagnostics: Promise<Published>;

before(async () => {
  lsp = new LspClient();
  conn = lsp.conn;
  diagnostics = lsp.nextDiagnostics(uri, (p) => p.diagnostics.length > 0, 60_000);
  conn.onRequest('workspace/configuration', () => []);
  conn.listen();
  // The LSP `locale` says English; the extension's option wins.
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: URI.file(demo).toString(),
    capabilities: {},
    locale: 'en',
    workspaceFolders: [{ uri: URI.file(demo).toString(), name: 'demo' }],
    initializationOptions: { locale: 'zh-cn', reportSyntaxErrors: true, trusted: true },
  });
  await conn.sendNotification('initialized', {});
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
});

after(() => lsp.stop());

test('zh-cn: diagnostics in Chinese, codes and ranges unchanged', async () => {
  const p = await diagnostics;
  const typo = p.diagnostics.find((x) => x.code === 'unknown-key');
  assert.ok(typo, JSON.stringify(p.diagnostics));
  assert.equal(typo.message, '`ajet.rollout` 中有未知的键 `temprature`。你是想写 `temperature` 吗？');
  const quoted = p.diagnostics.find((x) => x.code === 'type-mismatch');
  assert.ok(quoted, JSON.stringify(p.diagnostics));
  assert.match(quoted.message, /^`ajet\.rollout\.max_model_len` 应为 integer，实际是字符串 `"8000"`。$/);
});

test('zh-cn: quick fix titles and hovers in Chinese', async () => {
  const p = await diagnostics;
  const d = p.diagnostics.find((x) => x.code === 'unknown-key') as Diag;
  const actions = (await conn.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: d.range,
    context: { diagnostics: [d] },
  })) as { title: string; kind: string }[];
  assert.ok(
    actions.some((a) => a.kind === 'quickfix' && a.title === '改为 `temperature`'),
    JSON.stringify(actions),
  );
  const lines = text.split('\n');
  const l = lines.findIndex((x) => x.includes('n_vllm_engine'));
  const h = (await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: l, character: 6 } })) as {
    contents: { value: string };
  };
  assert.match(h.contents.value, /ajet\.rollout\.n_vllm_engine/);
  assert.match(h.contents.value, /默认值：`\d+`/);
  assert.doesNotMatch(h.contents.value, /Default:/);
  // The key's description too (core/l10n/schema.zh-cn.json), not the schema's English.
  const engines = descriptionCatalogue()['ajet.rollout.n_vllm_engine'];
  assert.ok(engines);
  assert.ok(h.contents.value.includes(engines['zh-cn']), h.contents.value);
  assert.ok(!h.contents.value.includes(engines.en), h.contents.value);
});

test('zh-cn: completion items resolve their documentation with the Chinese description', async () => {
  const lines = text.split('\n');
  const l = lines.findIndex((x) => x.includes('num_repeat: 4'));
  const items = (await conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: l, character: 6 } })) as {
    label: string;
    detail?: string;
  }[];
  const name = items.find((i) => i.label === 'name');
  assert.ok(name, items.map((i) => i.label).join(','));
  const resolved = (await conn.sendRequest('completionItem/resolve', name)) as { documentation?: { value: string } };
  const doc = resolved.documentation?.value ?? '';
  const entry = descriptionCatalogue()['ajet.rollout.name'];
  assert.ok(entry);
  assert.match(doc, /\*\*ajet\.rollout\.name\*\*/);
  assert.ok(doc.includes(entry['zh-cn']), doc);
  assert.ok(!doc.includes(entry.en), doc);
  assert.match(doc, /可选值：`vllm`, `sglang`/);
});
