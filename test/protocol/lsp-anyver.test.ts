// The config server judges a file by the user's own AgentJet: with a checkout of AgentJet 0.0.4
// (plus a key "from the future") as the workspace folder, the first diagnostics may come from the
// bundled facts and say so; once the checkout is read, the file is checked again by it, the
// Problems source names it, hover names it, and its rules bring their quick fixes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { URI } from 'vscode-uri';
import { LspClient, type Diag } from '../util/lspClient';
import { findUpstream, UPSTREAM_SKIP, UPSTREAM_SKIP_TAG } from '../util/upstream';
import { skipForEnvironment } from '../util/envSkip';

const tree = findUpstream('agentjet-c68c154');
let ws: string;
let cache: string;
let lsp: LspClient;
let conn: MessageConnection;

const CONFIG = `ajet:
  model:
    path: Qwen/Qwen2.5-7B-Instruct
  rollout:
    user_workflow: my_workflow->MyWorkflow
    future_tokens_per_gpu: 4096
  task_reader:
    type: random_dummy
  lora:
    lora_rank: 16
    load_format: safetensors
  task_runner:
    llm_infer_submit_method: async
`;

const source = (d: Diag) => (d as Diag & { source?: string }).source ?? '';

before(async () => {
  if (!tree) return;
  ws = mkdtempSync(join(tmpdir(), 'agentjet-lsp-anyver-'));
  cache = mkdtempSync(join(tmpdir(), 'agentjet-lsp-anyver-cache-'));
  cpSync(join(tree, 'ajet'), join(ws, 'ajet'), { recursive: true });
  cpSync(join(tree, 'pyproject.toml'), join(ws, 'pyproject.toml'));
  const defaults = join(ws, 'ajet', 'default_config', 'ajet_default.yaml');
  writeFileSync(defaults, readFileSync(defaults, 'utf8').replace(/^( {2}rollout:\n)/m, '$1    future_tokens_per_gpu: 16384\n'));
  writeFileSync(join(ws, 'my_workflow.py'), 'class MyWorkflow:\n    pass\n');
  writeFileSync(join(ws, 'exp.yaml'), CONFIG);
  lsp = new LspClient();
  conn = lsp.conn;
  conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
    p.items.map((i) => (i.section === 'agentjet' ? { pythonPath: '', config: { problems: 'openFiles' } } : null)),
  );
  conn.onRequest('workspace/workspaceFolders', () => [{ uri: URI.file(ws).toString(), name: 'ws' }]);
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: URI.file(ws).toString(),
    workspaceFolders: [{ uri: URI.file(ws).toString(), name: 'ws' }],
    capabilities: { workspace: { configuration: true } },
    initializationOptions: { reportSyntaxErrors: true, factsCacheDir: cache, trusted: true },
  });
  await conn.sendNotification('initialized', {});
});

after(async () => {
  if (!tree) return;
  await lsp.stop();
  rmSync(ws, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

test("a config is judged by the workspace's AgentJet checkout, read at run time; the source, hover and fixes name it", async (t) => {
  if (skipForEnvironment(t, tree ? undefined : `${UPSTREAM_SKIP_TAG} agentjet-c68c154 missing; ${UPSTREAM_SKIP}`)) return;
  const uri = URI.file(join(ws, 'exp.yaml')).toString();
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text: CONFIG } });
  const first = await lsp.nextDiagnostics(uri);
  const own = `AgentJet 0.0.4 at ${join(ws, 'ajet')}`;
  // The first pass either already has the checkout's facts, or says it used bundled ones meanwhile.
  const firstSource = first.diagnostics.map(source)[0] ?? '';
  assert.ok(firstSource.includes(own) || /bundled facts of AgentJet .*still reading your AgentJet/.test(firstSource), firstSource);
  const p = await lsp.until('diagnostics judged by the checkout', () => {
    const l = lsp.latest(uri);
    return l?.diagnostics.length && l.diagnostics.every((d) => source(d) === `agentjet (${own})`) ? l : undefined;
  });
  const codes = p.diagnostics.map((d) => `${d.code} ${d.message}`);
  assert.ok(!codes.some((c) => c.includes('future_tokens_per_gpu')), `the checkout's own key is known:\n${codes.join('\n')}`);
  assert.ok(
    codes.some((c) => c.includes('`task_runner.llm_infer_submit_method` was removed in AgentJet 0.0.4')),
    codes.join('\n'),
  );
  const lora = p.diagnostics.find((d) => d.code === 'cross-field/lora') as Diag;
  assert.ok(lora, codes.join('\n'));
  assert.equal(lora.severity, 1);
  assert.ok(
    readdirSync(cache).some((f) => /^facts-\w+\.json$/.test(f)),
    'the facts were cached in the client-given folder',
  );

  const h = (await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 9, character: 6 } })) as {
    contents: { value: string };
  } | null;
  assert.match(h?.contents.value ?? '', new RegExp(`Judged by ${own.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));

  const actions = (await conn.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: lora.range,
    context: { diagnostics: [lora] },
  })) as { title: string; kind: string; edit: { changes: Record<string, { newText: string }[]> } }[];
  const fix = actions.find((a) => a.title === 'Set `ajet.lora.layered_summon: true`');
  assert.ok(fix, actions.map((a) => a.title).join(', '));
  assert.equal(fix.edit.changes[uri]?.[0]?.newText.trim(), 'layered_summon: true');
  assert.ok(actions.some((a) => a.title === 'Update this config to AgentJet 0.0.4' && a.kind === 'refactor.rewrite'));

  // Completion offers the checkout's keys (here the one only it has).
  const text2 = CONFIG.replace('    future_tokens_per_gpu: 4096\n', '    \n');
  await conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: text2 }] });
  const items = (await conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: 5, character: 4 } })) as {
    label: string;
  }[];
  assert.ok(items.some((i) => i.label === 'future_tokens_per_gpu'));
});
