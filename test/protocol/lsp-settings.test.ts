// The config server as VS Code drives it: settings per folder through workspace/configuration,
// `${workspaceFolder}/.venv/bin/python` expanded like the launch does, an interpreter probe that
// never blocks requests, workspace-wide checking (and its opt-out), LSP tags, the server version.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { URI } from 'vscode-uri';
import { repoRoot } from '../util/paths';
import { LspClient, type Diag } from '../util/lspClient';
import { skipForEnvironment } from '../util/envSkip';

const python3 = spawnSync('python3', ['-c', 'print(1)']).status === 0 ? 'python3' : undefined;

let ws: string;
let lsp: LspClient;
let conn: MessageConnection;
const configRequests: { section?: string; scopeUri?: string }[] = [];
let problems: 'workspace' | 'openFiles' = 'workspace';
let serverVersion = '';

const waitFor = <T>(what: string, probe: () => T | undefined, ms?: number): Promise<T> => lsp.until(what, probe, ms);
const latest = (uri: string) => lsp.latest(uri);
const gate = () => join(ws, 'gate');
const mainConfig = () => join(ws, 'main.yaml');
const otherConfig = () => join(ws, 'configs', 'other.yaml');

before(async () => {
  ws = mkdtempSync(join(tmpdir(), 'agentjet-lsp-settings-'));
  // An installed `ajet` package that only the folder's venv interpreter can see.
  const site = join(ws, 'envs', 'site');
  mkdirSync(join(site, 'ajet', 'task_judge'), { recursive: true });
  writeFileSync(join(site, 'ajet', '__init__.py'), '');
  writeFileSync(join(site, 'ajet', 'task_judge', '__init__.py'), '');
  writeFileSync(join(site, 'ajet', 'task_judge', 'env_service_as_judge.py'), 'class EnvServiceJudge:\n    pass\n');
  mkdirSync(join(ws, 'envs', 'bin'), { recursive: true });
  // The interpreter answers only once the test opens the gate: requests must not wait for it.
  writeFileSync(
    join(ws, 'envs', 'bin', 'python'),
    `#!/bin/sh\nwhile [ ! -f '${gate()}' ]; do sleep 0.05; done\nPYTHONPATH='${site}' exec ${python3 ?? 'python3'} "$@"\n`,
  );
  chmodSync(join(ws, 'envs', 'bin', 'python'), 0o755);
  mkdirSync(join(ws, 'flows'));
  writeFileSync(join(ws, 'flows', '__init__.py'), '');
  writeFileSync(join(ws, 'flows', 'w.py'), 'class W:\n    async def execute(self, t, tuner):\n        return None\n');
  // January 2026's key name makes the bundled January facts judge it (0.0.4 reads `max_num_seqs`).
  const cfg = (judge: string) =>
    `ajet:\n  model:\n    path: Qwen/Qwen2.5-1.5B-Instruct\n  rollout:\n    user_workflow: flows.w->W\n    max_num_seqs: 4\n  task_reader:\n    type: env_service\n  task_judge:\n    judge_protocol: ${judge}\n  context_tracker:\n    alien_llm_model: x\n  enable_experimental_interchange_server: false\ndefaults:\n  - verl_default\n  - ajet_default\n  - _self_\n`;
  writeFileSync(mainConfig(), cfg('ajet.task_judge.env_service_as_judge->NoSuchJudge'));
  mkdirSync(join(ws, 'configs'));
  writeFileSync(
    otherConfig(),
    cfg('ajet.task_judge.env_service_as_judge->EnvServiceJudge').replace('user_workflow: flows.w->W', 'user_workflow: flows.w->Nope'),
  );
  writeFileSync(join(ws, 'configs', 'ci.yaml'), 'jobs: {}\n');

  lsp = new LspClient();
  conn = lsp.conn;
  conn.onRequest('workspace/configuration', (p: { items: { section?: string; scopeUri?: string }[] }) => {
    configRequests.push(...p.items);
    lsp.changed();
    return p.items.map((i) =>
      i.section === 'agentjet' ? { pythonPath: '${workspaceFolder}/envs/bin/python', config: { problems } } : null,
    );
  });
  conn.onRequest('workspace/workspaceFolders', () => [{ uri: URI.file(ws).toString(), name: 'ws' }]);
  conn.listen();
  const init = (await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: URI.file(ws).toString(),
    workspaceFolders: [{ uri: URI.file(ws).toString(), name: 'ws' }],
    capabilities: { workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: false } } },
    initializationOptions: { reportSyntaxErrors: true, trusted: true },
  })) as { serverInfo?: { version?: string } };
  serverVersion = init.serverInfo?.version ?? '';
  await conn.sendNotification('initialized', {});
});

after(async () => {
  await lsp.stop();
  rmSync(ws, { recursive: true, force: true });
});

test('the server reports the extension version', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal(serverVersion, pkg.version);
});

test('settings are asked per folder; requests are answered while the interpreter is still probed', async (t) => {
  if (skipForEnvironment(t, python3 ? undefined : 'python3 missing')) return;
  const uri = URI.file(mainConfig()).toString();
  await conn.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'yaml', version: 1, text: readFileSync(mainConfig(), 'utf8') },
  });
  await waitFor('a workspace/configuration request scoped to the folder', () =>
    configRequests.find((r) => r.section === 'agentjet' && r.scopeUri === URI.file(ws).toString()),
  );
  // The gate is closed, so the interpreter has not answered: a hover must still come back.
  const h = (await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 3 } })) as {
    contents: { value: string };
  } | null;
  assert.ok(h && /ajet\.model/.test(h.contents.value));
  assert.ok(!existsSync(gate()));
  const before = latest(uri);
  assert.ok(
    !before?.diagnostics.some((d) => d.code.startsWith('class-ref')),
    'nothing is claimed about built-ins before the interpreter answers',
  );
  writeFileSync(gate(), '');
  // `${workspaceFolder}/envs/bin/python` (not a venv the resolver would find alone) was expanded.
  const p = await waitFor('the built-in judge checked with the configured interpreter', () => {
    const l = latest(uri);
    return l?.diagnostics.some((d) => d.code === 'class-ref/missing-class') ? l : undefined;
  });
  const d = p.diagnostics.find((x) => x.code === 'class-ref/missing-class') as Diag;
  assert.match(d.message, /NoSuchJudge/);
  assert.ok(!p.diagnostics.some((x) => /set `agentjet\.pythonPath`/.test(x.message)), 'no advice to set what is set');
});

test('LSP tags: deprecated and never-read keys carry DiagnosticTag.Deprecated', async () => {
  const uri = URI.file(mainConfig()).toString();
  const p = await waitFor('diagnostics of main.yaml', () => latest(uri));
  const dep = p.diagnostics.find((d) => d.code === 'deprecated-key');
  const unread = p.diagnostics.find((d) => d.code === 'unread-key');
  assert.deepEqual(dep?.tags, [2]);
  assert.deepEqual(unread?.tags, [2]);
});

test('configs that are not open are checked in the background; other YAML is not', async () => {
  const other = URI.file(otherConfig()).toString();
  const p = await waitFor('background diagnostics of configs/other.yaml', () => {
    const l = latest(other);
    return l?.diagnostics.some((d) => d.code === 'class-ref/missing-class') ? l : undefined;
  });
  assert.ok(p.diagnostics.some((d) => /Nope/.test(d.message)));
  assert.ok(!lsp.published.some((x) => x.uri.endsWith('ci.yaml') && x.diagnostics.length > 0));
});

test('agentjet.config.problems = openFiles clears what only the background pass reported', async () => {
  const other = URI.file(otherConfig()).toString();
  problems = 'openFiles';
  await conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
  await waitFor('other.yaml cleared', () => (latest(other)?.diagnostics.length === 0 ? true : undefined));
  const uri = URI.file(mainConfig()).toString();
  // The open file keeps its problems.
  await waitFor('main.yaml re-checked', () =>
    latest(uri)?.diagnostics.some((d) => d.code === 'class-ref/missing-class') ? true : undefined,
  );
});

test('completion: module names keep their own name whole (package in the description); snippets adjust indentation', async () => {
  const uri = URI.file(mainConfig()).toString();
  const lines = readFileSync(mainConfig(), 'utf8').split('\n');
  const l = lines.findIndex((x) => x.includes('user_workflow'));
  const edited = [...lines.slice(0, l), '    user_workflow: fl', ...lines.slice(l + 1)].join('\n');
  await conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: edited }] });
  const items = (await conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: l, character: 21 } })) as {
    label: string;
    filterText?: string;
    labelDetails?: { description?: string };
    textEdit?: { newText: string };
  }[];
  const w = items.find((i) => i.filterText === 'flows.w');
  assert.ok(w, JSON.stringify(items.map((i) => i.label)));
  assert.equal(w.label, 'w');
  assert.equal(w.labelDetails?.description, 'flows');
  assert.equal(w.textEdit?.newText, 'flows.w->');
  const r = lines.findIndex((x) => x.startsWith('  rollout:'));
  const withKey = [...lines.slice(0, r + 1), '    val', ...lines.slice(r + 1)].join('\n');
  await conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 3 }, contentChanges: [{ text: withKey }] });
  const keys = (await conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: r + 1, character: 7 } })) as {
    label: string;
    insertTextMode?: number;
    textEdit?: { newText: string };
  }[];
  const vk = keys.find((k) => k.label === 'val_kwargs');
  assert.ok(vk);
  assert.equal(vk.insertTextMode, 2, 'InsertTextMode.adjustIndentation');
  assert.match(vk.textEdit?.newText ?? '', /^val_kwargs:\n {2}\w/);
});

test('a config written after start is checked when the client reports the file event', async () => {
  problems = 'workspace';
  await conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
  const later = join(ws, 'later', 'new.yaml');
  mkdirSync(join(ws, 'later'), { recursive: true });
  writeFileSync(later, readFileSync(otherConfig(), 'utf8'));
  const uri = URI.file(later).toString();
  await conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 1 }] });
  await waitFor('diagnostics of the new file', () =>
    latest(uri)?.diagnostics.some((d) => d.code === 'class-ref/missing-class') ? true : undefined,
  );
  rmSync(later);
  await conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 3 }] });
  await waitFor('the deleted file cleared', () => (latest(uri)?.diagnostics.length === 0 ? true : undefined));
});
