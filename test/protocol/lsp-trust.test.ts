// The config server honours workspace trust (core/protocol/config.ts): initialized without any trust
// answer (a client that says nothing is not trusted; VS Code sends false in Restricted Mode), with a
// folder whose .venv/bin/python leaves a marker, it checks the folder (workspace pass, an opened
// config, hover, completion, code actions) and runs nothing; the reference that needs installed
// packages is information with a Trust action. After the grant notification the probe runs and
// the reference resolves against the installed package, without a restart.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { URI } from 'vscode-uri';
import { LspClient, type Diag } from '../util/lspClient';
import { WORKSPACE_TRUST_NOTIFICATION } from '../../core/protocol/config';
import { waitFor } from '../util/poll';

let dir: string;
let ws: string;
let marker: string;
let lsp: LspClient;
let conn: MessageConnection;
const logs: string[] = [];

const CONFIG = `ajet:
  project_name: trust
  task_judge:
    judge_protocol: ajet.task_judge.env_service_as_judge->EnvServiceJudge
  rollout:
    user_workflow: my_workflow->MyWorkflow
`;
const ran = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentjet-lsp-trust-'));
  ws = join(dir, 'ws');
  const site = join(dir, 'site');
  mkdirSync(join(ws, '.venv', 'bin'), { recursive: true });
  mkdirSync(join(site, 'ajet', 'task_judge'), { recursive: true });
  writeFileSync(join(site, 'ajet', '__init__.py'), '');
  writeFileSync(join(site, 'ajet', 'task_judge', '__init__.py'), '');
  writeFileSync(join(site, 'ajet', 'task_judge', 'env_service_as_judge.py'), 'class EnvServiceJudge:\n    pass\n');
  marker = join(dir, 'ran.log');
  const python = join(ws, '.venv', 'bin', 'python');
  // Says when it starts and when it ends, so the test can wait for every run to be over.
  writeFileSync(
    python,
    `#!/bin/sh\nprintf 'start %s\\n' "$*" >> '${marker}'\nPYTHONPATH='${site}' python3 "$@"\nrc=$?\nprintf 'end\\n' >> '${marker}'\nexit $rc\n`,
  );
  chmodSync(python, 0o755);
  writeFileSync(join(ws, 'my_workflow.py'), 'class MyWorkflow:\n    pass\n');
  writeFileSync(join(ws, 'exp.yaml'), CONFIG);
  writeFileSync(join(ws, 'other.yaml'), CONFIG);
  lsp = new LspClient();
  conn = lsp.conn;
  conn.onNotification('window/logMessage', (p: { message: string }) => {
    logs.push(p.message);
    lsp.changed();
  });
  // VS Code's answer in Restricted Mode: no interpreter (the client asks no one), problems of the whole workspace.
  conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
    p.items.map((i) => (i.section === 'agentjet' ? { pythonPath: '', problems: 'workspace' } : null)),
  );
  conn.onRequest('workspace/workspaceFolders', () => [{ uri: URI.file(ws).toString(), name: 'ws' }]);
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: URI.file(ws).toString(),
    workspaceFolders: [{ uri: URI.file(ws).toString(), name: 'ws' }],
    capabilities: { workspace: { configuration: true, workspaceFolders: true } },
    // No `trusted` at all: a missing answer must mean "not trusted" (issue 39).
    initializationOptions: { reportSyntaxErrors: true, factsCacheDir: '' },
  });
  await conn.sendNotification('initialized', {});
});

after(async () => {
  await lsp.stop();
  rmSync(dir, { recursive: true, force: true });
});

const refDiag = (ds: Diag[]) => ds.find((d) => d.code.startsWith('class-ref/'));

test('untrusted: the server checks the folder and runs nothing of it; after the grant the probe runs and the reference resolves', async () => {
  const other = URI.file(join(ws, 'other.yaml')).toString();
  // The workspace pass (a file nobody opened) is checked without running the folder's interpreter.
  const passed = await lsp.nextDiagnostics(other, (p) => !!refDiag(p.diagnostics), 30_000);
  const waits = refDiag(passed.diagnostics)!;
  assert.equal(waits.code, 'class-ref/waits-for-trust');
  assert.equal(waits.severity, 3, 'information');
  assert.ok(!passed.diagnostics.some((d) => d.severity === 1), JSON.stringify(passed.diagnostics));

  const uri = URI.file(join(ws, 'exp.yaml')).toString();
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text: CONFIG } });
  const opened = await lsp.nextDiagnostics(uri, (p) => !!refDiag(p.diagnostics), 30_000);
  const d = refDiag(opened.diagnostics)!;
  const h = (await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 3, character: 24 } })) as {
    contents: { value: string };
  } | null;
  assert.match(h?.contents.value ?? '', /installed packages are checked once you trust this folder/);
  const items = (await conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line: 5, character: 20 } })) as {
    label: string;
  }[];
  assert.ok(items.length > 0);
  const actions = (await conn.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: d.range,
    context: { diagnostics: [d] },
  })) as { title: string; command?: { command: string } }[];
  const trust = actions.find((a) => a.command?.command === 'workbench.trust.manage');
  assert.ok(trust, JSON.stringify(actions));
  assert.equal(trust.title, 'Trust this folder…');
  assert.ok(
    logs.some((l) => l.includes('Restricted Mode')),
    logs.join('\n'),
  );
  // Everything above has been answered: had anything run the folder's python, the marker would say so.
  assert.equal(ran(), '', `the untrusted folder's python ran:\n${ran()}`);

  await conn.sendNotification(WORKSPACE_TRUST_NOTIFICATION, { trusted: true });
  await lsp.until(
    'the reference resolved against the installed package',
    () => {
      const l = lsp.latest(uri);
      return l && !refDiag(l.diagnostics) && ran() ? l : undefined;
    },
    60_000,
  );
  await lsp.until(
    'the workspace pass checked again',
    () => {
      const l = lsp.latest(other);
      return l && !refDiag(l.diagnostics) ? l : undefined;
    },
    60_000,
  );
  assert.match(ran(), /^start -c/m);
  // Both probes (packages for the reference, the installed AgentJet for the facts) ran, and ended.
  await waitFor(
    () => {
      const starts = ran().match(/^start /gm)?.length ?? 0;
      return starts >= 2 && starts === (ran().match(/^end$/gm)?.length ?? 0);
    },
    () => `both probes of the trusted .venv over:\n${ran()}`,
    60_000,
    100,
  );
});
