// Drives the bundled dist/server.js over stdio JSON-RPC, as an editor would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { URI } from 'vscode-uri';
import { repoRoot } from '../util/paths';

const server = join(repoRoot, 'dist', 'server.js');
const demo = join(repoRoot, 'demo');
const configPath = join(demo, 'math_agent.yaml');
const uri = URI.file(configPath).toString();

interface Diag {
  code: string;
  range: { start: { line: number; character: number } };
  message: string;
  severity: number;
  data?: unknown;
}
interface Published {
  uri: string;
  diagnostics: Diag[];
}

let proc: ChildProcess;
let conn: MessageConnection;
const published: Published[] = [];
const waiters: ((p: Published) => void)[] = [];

function nextDiagnostics(u: string, pred: (p: Published) => boolean = () => true, ms = 15_000): Promise<Published> {
  const seen = published.find((p) => p.uri === u && pred(p));
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no diagnostics for ${u} within ${ms} ms`)), ms);
    waiters.push((p) => {
      if (p.uri === u && pred(p)) {
        clearTimeout(timer);
        resolve(p);
      }
    });
  });
}

before(async () => {
  assert.ok(existsSync(server), 'run node scripts/build.mjs first');
  proc = spawn(process.execPath, [server, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  conn = createMessageConnection(
    new StreamMessageReader(proc.stdout as NodeJS.ReadableStream),
    new StreamMessageWriter(proc.stdin as NodeJS.WritableStream),
  );
  conn.onNotification('textDocument/publishDiagnostics', (p: Published) => {
    published.push(p);
    for (const w of waiters.slice()) w(p);
  });
  conn.onNotification('window/logMessage', () => undefined);
  conn.onRequest('workspace/configuration', () => []);
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('workspace/workspaceFolders', () => [{ uri: URI.file(demo).toString(), name: 'demo' }]);
  conn.listen();
  const init = (await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: URI.file(demo).toString(),
    capabilities: {},
    workspaceFolders: [{ uri: URI.file(demo).toString(), name: 'demo' }],
    initializationOptions: {},
  })) as { capabilities: Record<string, unknown> };
  assert.ok(init.capabilities.completionProvider);
  await conn.sendNotification('initialized', {});
});

after(async () => {
  try {
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
  } catch {
    /* already gone */
  }
  conn.dispose();
  proc.kill();
});

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
  assert.ok(!published.some((p) => p.uri === other && p.diagnostics.length > 0));
});

test('completion offers keys of the section under the cursor and enum values', async () => {
  const lines = text.split('\n');
  const l = lines.findIndex((x) => x.includes('num_repeat: 4'));
  const edited = [...lines.slice(0, l + 1), '    na', ...lines.slice(l + 1)].join('\n');
  await conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: edited }] });
  const items = (await conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: l + 1, character: 6 } })) as {
    label: string;
    textEdit?: { newText: string };
  }[];
  const name = items.find((i) => i.label === 'name');
  assert.ok(name, items.map((i) => i.label).join(','));
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
