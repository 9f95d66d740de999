// Issue 27 item 4, the language server: a configured interpreter that never answers (a `#!/bin/sh`
// wrapper whose child sleeps, as a pyenv or conda shim runs Python) costs one deadline. Requests
// are answered meanwhile, the diagnostics then say in words why installed packages were not
// checked, and nothing of the wrapper is left running.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { URI } from 'vscode-uri';
import { LspClient } from '../util/lspClient';
import { waitFor } from '../util/poll';

const ws = mkdtempSync(join(tmpdir(), 'agentjet-lsp-silent-'));
let lsp: LspClient | undefined;

after(async () => {
  await lsp?.stop();
  rmSync(ws, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test(
  'a silent interpreter: the server answers, says why, and leaves nothing of it running',
  { skip: process.platform === 'win32' },
  async () => {
    const log = join(ws, 'pids');
    const python = join(ws, 'shim', 'python');
    mkdirSync(join(ws, 'shim'));
    writeFileSync(python, `#!/bin/sh\necho "w $$" >> '${log}'\nsleep 600 &\necho "c $!" >> '${log}'\nwait\n`, { mode: 0o755 });
    const cfg = join(ws, 'main.yaml');
    writeFileSync(cfg, 'ajet:\n  model:\n    path: Qwen/Qwen2.5-1.5B-Instruct\n  rollout:\n    user_workflow: somepkg.flows->Flow\n');
    lsp = new LspClient();
    const { conn } = lsp;
    conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
      p.items.map((i) => (i.section === 'agentjet' ? { pythonPath: python } : null)),
    );
    conn.onRequest('workspace/workspaceFolders', () => [{ uri: URI.file(ws).toString(), name: 'ws' }]);
    conn.listen();
    await conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: URI.file(ws).toString(),
      workspaceFolders: [{ uri: URI.file(ws).toString(), name: 'ws' }],
      capabilities: { workspace: { configuration: true } },
      initializationOptions: { reportSyntaxErrors: true, trusted: true },
    });
    await conn.sendNotification('initialized', {});
    const uri = URI.file(cfg).toString();
    await conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'yaml', version: 1, text: readFileSync(cfg, 'utf8') },
    });
    await waitFor(() => existsSync(log), 'the server to ask the interpreter');
    // While the interpreter is silent, a request is answered.
    const h = (await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 3 } })) as {
      contents: { value: string };
    } | null;
    assert.ok(h && /ajet\.model/.test(h.contents.value));
    const why = `\`${python}\` did not answer within 8 s`;
    const p = await lsp.until('the class reference judged with the reason the interpreter was not asked', () => {
      const l = lsp!.latest(uri);
      return l?.diagnostics.find((d) => d.code === 'class-ref/missing-module' && d.message.includes(why));
    });
    assert.match(p.message, /could not be asked about installed packages/);
    const pids = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => Number(l.split(' ')[1]));
    for (const pid of pids) await waitFor(() => !alive(pid), `process ${pid} of the interpreter to end`, 10_000);
    // The remembered silence: asking again (a change to the document) starts no new wrapper.
    const starts = pids.length / 2;
    await conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: readFileSync(cfg, 'utf8').replace('somepkg.flows', 'otherpkg.flows') }],
    });
    await lsp.until('the new reference judged', () =>
      lsp!
        .latest(uri)
        ?.diagnostics.find((d) => d.code === 'class-ref/missing-module' && d.message.includes('otherpkg') && d.message.includes(why)),
    );
    const after = readFileSync(log, 'utf8').trim().split('\n').length / 2;
    assert.equal(after, starts, 'a silent interpreter was asked again');
  },
);
