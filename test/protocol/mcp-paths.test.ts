// Issue 39 R4-R6 through `agentjet mcp --root DIR` and the SDK's client: a SKILL.md linking out of
// the root is neither listed nor served, a FIFO swapped in for a skill file after the listing is
// refused at once (the server still answers), and a rotated log sibling linking out is not read.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoRoot } from '../util/paths';
import { payload, rec } from '../util/smalllogs';

const CLI = join(repoRoot, 'dist', 'cli.js');
const base = realpathSync(mkdtempSync(join(tmpdir(), 'aj-mcp-paths-')));
after(() => rmSync(base, { recursive: true, force: true }));

test('MCP: skills and log siblings that link out of the root are not listed or served; a FIFO skill file does not hang', async () => {
  assert.ok(existsSync(CLI), 'dist/cli.js is built (npm run build)');
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  const copilot = join(root, 'ajet', 'copilot');
  mkdirSync(join(root, 'ajet', 'default_config'), { recursive: true });
  writeFileSync(join(root, 'ajet', 'default_config', 'ajet_default.yaml'), 'ajet:\n  project_name: x\n');
  mkdirSync(join(copilot, 'good'), { recursive: true });
  mkdirSync(join(copilot, 'evil'));
  mkdirSync(outside);
  writeFileSync(join(copilot, 'good', 'SKILL.md'), '---\nname: good\ndescription: fine\n---\nbody\n');
  writeFileSync(join(copilot, 'good', 'more.md'), 'more\n');
  writeFileSync(join(outside, 'secret.md'), '---\nname: stolen\ndescription: SECRET\n---\nSECRET\n');
  symlinkSync(join(outside, 'secret.md'), join(copilot, 'evil', 'SKILL.md'));
  const logs = join(root, 'logs');
  mkdirSync(logs);
  writeFileSync(join(logs, 'rollout.json.log'), rec(payload(1, 'mine', 1, [{ text: ['a', ' inside'] }])));
  writeFileSync(join(outside, 'theirs.json.log'), rec(payload(1, 'theirs', 1, [{ text: ['a', ' SECRET'] }])));
  symlinkSync(join(outside, 'theirs.json.log'), join(logs, 'rollout.json.2026-11-01.log'));

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--root', root],
    env: { ...(process.env as Record<string, string>), AGENTJET_CACHE_DIR: join(base, 'cache'), AGENTJET_FACTS_CACHE: join(base, 'facts') },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'agentjet-test', version: '0' });
  await client.connect(transport);
  const fifo = join(copilot, 'good', 'more.md');
  try {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.name).sort(), ['good/SKILL.md', 'good/more.md']);
    assert.doesNotMatch(JSON.stringify(resources), /SECRET|stolen|evil/);
    await assert.rejects(client.readResource({ uri: 'agentjet-skill:///evil/SKILL.md' }));
    await assert.rejects(client.readResource({ uri: 'agentjet-skill:///stolen/SKILL.md' }));
    // After the listing: more.md becomes a FIFO, SKILL.md a link out.
    rmSync(fifo);
    const haveFifo = spawnSync('mkfifo', [fifo]).status === 0;
    rmSync(join(copilot, 'good', 'SKILL.md'));
    symlinkSync(join(outside, 'secret.md'), join(copilot, 'good', 'SKILL.md'));
    const t0 = Date.now();
    if (haveFifo) await assert.rejects(client.readResource({ uri: 'agentjet-skill:///good/more.md' }));
    await assert.rejects(client.readResource({ uri: 'agentjet-skill:///good/SKILL.md' }));
    await assert.rejects(client.getPrompt({ name: 'good' }));
    console.log(`mcp: refused in ${Date.now() - t0} ms`);
    // The server still answers, and the rotated sibling that links out is not read.
    const r = await client.callTool({ name: 'agentjet_log_search', arguments: { path: 'logs', query: 'SECRET' } });
    const text = (r.content as { text: string }[])[0]!.text;
    assert.equal(r.isError === true, false, text);
    assert.equal((JSON.parse(text) as { recordsSearched: number; recordsMatching: number }).recordsMatching, 0, text);
  } finally {
    try {
      closeSync(openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK));
    } catch {
      /* no FIFO */
    }
    await client.close();
  }
});
