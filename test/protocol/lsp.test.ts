// Drives the bundled dist/server.js over stdio JSON-RPC, as an editor would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { URI } from 'vscode-uri';
import { repoRoot } from '../util/paths';
import { LspClient, type Diag, type Published } from '../util/lspClient';

const demo = join(repoRoot, 'demo');
const configPath = join(demo, 'math_agent.yaml');
const uri = URI.file(configPath).toString();

let lsp: LspClient;
let conn: MessageConnection;
const nextDiagnostics = (u: string, pred?: (p: Published) => boolean): Promise<Published> => lsp.nextDiagnostics(u, pred);

before(async () => {
  lsp = new LspClient();
  conn = lsp.conn;
  conn.onRequest('workspace/configuration', () => []);
  conn.onRequest('workspace/workspaceFolders', () => [{ uri: URI.file(demo).toString(), name: 'demo' }]);
  conn.listen();
  const init = (await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: URI.file(demo).toString(),
    capabilities: {},
    workspaceFolders: [{ uri: URI.file(demo).toString(), name: 'demo' }],
    initializationOptions: { trusted: true },
  })) as { capabilities: Record<string, unknown> };
  assert.ok(init.capabilities.completionProvider);
  await conn.sendNotification('initialized', {});
});

after(() => lsp.stop());

const text = readFileSync(configPath, 'utf8').replace('temperature: 0.9', 'temprature: 0.9');

test('diagnostics: a typo is published with its code, range and a fix in data', async () => {
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  const p = await nextDiagnostics(uri, (x) => x.diagnostics.length > 0);
  const d = p.diagnostics.find((x) => x.code === 'unknown-key');
  assert.ok(d, JSON.stringify(p.diagnostics));
  const line = text.split('\n').findIndex((l) => l.includes('temprature'));
  assert.deepEqual(d.range.start, { line, character: 4 });
  assert.ok(d.data);
});

test('other YAML gets no diagnostics and no completions', async () => {
  const other = 'file:///tmp/ci.yaml';
  await conn.sendNotification('textDocument/didOpen', {
    textDocument: { uri: other, languageId: 'yaml', version: 1, text: 'jobs:\n  build: {runs-on: x}\n  tempreture: 1\n' },
  });
  const items = (await conn.sendRequest('textDocument/completion', {
    textDocument: { uri: other },
    position: { line: 2, character: 2 },
  })) as unknown[];
  assert.deepEqual(items, []);
  assert.ok(!lsp.published.some((p) => p.uri === other && p.diagnostics.length > 0));
});

test('completion offers keys of the section under the cursor and enum values', async () => {
  const lines = text.split('\n');
  const l = lines.findIndex((x) => x.includes('num_repeat: 4'));
  const edited = [...lines.slice(0, l + 1), '    na', ...lines.slice(l + 1)].join('\n');
  await conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: edited }] });
  const items = (await conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: l + 1, character: 6 } })) as {
    label: string;
    filterText?: string;
    textEdit?: { newText: string };
  }[];
  const name = items.find((i) => i.label === 'name');
  assert.ok(name, items.map((i) => i.label).join(','));
  // A key filters by its label, the protocol's default: no filterText repeats it.
  assert.ok(!items.some((i) => i.filterText !== undefined), 'no filterText that repeats the label');
  assert.match(name.textEdit?.newText ?? '', /^name: \$\{1\|vllm,sglang\|\}$/);
  assert.ok(!items.some((i) => i.label === 'num_repeat'), 'present keys are not offered again');
  const resolved = (await conn.sendRequest('completionItem/resolve', name)) as { documentation?: { value: string } };
  assert.match(resolved.documentation?.value ?? '', /\*\*ajet\.rollout\.name\*\*/);
  assert.match(resolved.documentation?.value ?? '', /Allowed: `vllm`, `sglang`/);
  assert.match(resolved.documentation?.value ?? '', /Inference engine used during rollout\./);

  const withValue = [...lines.slice(0, l + 1), '    name: ', ...lines.slice(l + 1)].join('\n');
  await conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 3 }, contentChanges: [{ text: withValue }] });
  const values = (await conn.sendRequest('textDocument/completion', {
    textDocument: { uri },
    position: { line: l + 1, character: 10 },
  })) as { label: string }[];
  assert.deepEqual(
    values.map((v) => v.label),
    ['vllm', 'sglang'],
  );
});

test('hover describes a key; go to definition reaches the workflow class', async () => {
  await conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 4 }, contentChanges: [{ text }] });
  const lines = text.split('\n');
  const l = lines.findIndex((x) => x.includes('max_model_len'));
  const h = (await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: l, character: 6 } })) as {
    contents: { value: string };
  };
  assert.match(h.contents.value, /ajet\.rollout\.max_model_len/);
  assert.match(h.contents.value, /Default: `18000`/);
  assert.match(h.contents.value, /Context window in tokens for the inference engine during rollout/);

  const w = lines.findIndex((x) => x.includes('user_workflow'));
  const col = (lines[w] as string).indexOf('MathWorkflow') + 2;
  const hv = (await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: w, character: col } })) as {
    contents: { value: string };
  };
  assert.match(hv.contents.value, /class MathWorkflow\(Workflow\)/);
  assert.match(hv.contents.value, /async def execute/);
  const def = (await conn.sendRequest('textDocument/definition', { textDocument: { uri }, position: { line: w, character: col } })) as {
    uri: string;
    range: { start: { line: number } };
  };
  assert.equal(URI.parse(def.uri).fsPath, join(demo, 'math_demo', 'workflow.py'));
  const src = readFileSync(join(demo, 'math_demo', 'workflow.py'), 'utf8').split('\n');
  assert.match(src[def.range.start.line] as string, /^class MathWorkflow/);
});

test('code action: the typo fix edits the key', async () => {
  const p = await nextDiagnostics(uri, (x) => x.diagnostics.some((d) => d.code === 'unknown-key'));
  const d = p.diagnostics.find((x) => x.code === 'unknown-key') as Diag;
  const actions = (await conn.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: d.range,
    context: { diagnostics: [d] },
  })) as { title: string; kind: string; edit: { changes: Record<string, { newText: string }[]> } }[];
  const fix = actions.find((a) => a.kind === 'quickfix');
  assert.ok(fix, JSON.stringify(actions));
  assert.equal(fix.title, 'Change to `temperature`');
  assert.equal(fix.edit.changes[uri]?.[0]?.newText, 'temperature');
});
