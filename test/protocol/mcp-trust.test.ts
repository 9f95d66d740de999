// `agentjet mcp --root DIR` as a coding agent starts it (a user-scope MCP entry pointed at a fresh
// clone), through the official MCP SDK's client: the folder's `.venv/bin/python` leaves a marker
// whenever it runs. With no other flag, connecting (resources, prompts), listing and calling every
// tool runs it never; with `--python` (or `--trust-folder`) the doctor and the installed AgentJet's
// skills do run it, and the hints say so (issue 39).
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoRoot } from '../util/paths';
import { fixtures } from '../gen';
import { toolCalls } from '../util/toolCalls';
import { AGENT_TOOLS } from '../../core/agents/tools';

const CLI = join(repoRoot, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'aj-mcp-trust-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// The clone: runs and token logs, a config, and its own interpreter, which an installed AgentJet
// (with a skill) sits behind.
const ws = join(dir, 'clone');
cpSync(fixtures().workspace, ws, { recursive: true });
writeFileSync(join(ws, 'exp.yaml'), 'ajet:\n  project_name: clone\n  rollout:\n    max_env_worker: 4\n');
const site = join(dir, 'site');
mkdirSync(join(site, 'ajet', 'default_config'), { recursive: true });
mkdirSync(join(site, 'ajet', 'copilot', 'write-swarm-client'), { recursive: true });
writeFileSync(join(site, 'ajet', '__init__.py'), '');
writeFileSync(join(site, 'ajet', 'default_config', 'ajet_default.yaml'), 'ajet:\n  project_name: x\n');
writeFileSync(
  join(site, 'ajet', 'copilot', 'write-swarm-client', 'SKILL.md'),
  '---\nname: write-swarm-client\ndescription: Write a swarm client.\n---\n# Write a swarm client\n',
);
const marker = join(dir, 'ran.log');
const venvPython = join(ws, '.venv', 'bin', 'python');
mkdirSync(join(ws, '.venv', 'bin'), { recursive: true });
writeFileSync(venvPython, `#!/bin/sh\nprintf 'ran %s\\n' "$1" >> '${marker}'\nPYTHONPATH='${site}' exec python3 "$@"\n`);
chmodSync(venvPython, 0o755);
const ran = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

const ARGS = toolCalls(ws, { url: 'http://127.0.0.1:9' });

async function connect(extra: string[]): Promise<{ client: Client; stderr: () => string }> {
  assert.ok(existsSync(CLI), 'dist/cli.js is built (npm run build)');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--root', ws, ...extra],
    cwd: ws,
    env: {
      ...(process.env as Record<string, string>),
      AGENTJET_CACHE_DIR: join(dir, 'cache'),
      AGENTJET_FACTS_CACHE: join(dir, 'facts'),
    },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const client = new Client({ name: 'agentjet-trust-test', version: '0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { text: string }[])[0]?.text ?? '';

test('every tool is covered', () => {
  assert.deepEqual(Object.keys(ARGS).sort(), AGENT_TOOLS.map((x) => x.name).sort());
});

test('agentjet mcp --root DIR, no other flag: resources, prompts, every tool listed and called; the folder’s python never runs', async () => {
  rmSync(marker, { force: true });
  const { client, stderr } = await connect([]);
  try {
    // What clients send when they connect, before any tool.
    const { resources } = await client.listResources();
    assert.deepEqual(resources, [], 'no checkout here, and the installed AgentJet is not asked for');
    assert.deepEqual((await client.listPrompts()).prompts, []);
    const { tools } = await client.listTools();
    assert.ok(!tools.some((x) => x.name === 'agentjet_doctor'), 'the doctor is not offered without an interpreter');
    for (const x of tools) assert.equal(x.annotations?.readOnlyHint, true, x.name);
    for (const tool of AGENT_TOOLS) {
      const r = await client.callTool({ name: tool.name, arguments: ARGS[tool.name] });
      const shouldFail = tool.name === 'agentjet_doctor' || tool.name === 'agentjet_swarm_status';
      assert.equal(r.isError === true, shouldFail, `${tool.name}: ${text(r).slice(0, 400)}`);
      if (tool.name === 'agentjet_doctor') assert.match(text(r), /--python PATH.*--trust-folder/);
      if (tool.name === 'agentjet_lint') assert.match(text(r), /bundled facts/);
    }
    assert.equal(ran(), '', `the folder's python ran:\n${ran()}\n${stderr()}`);
  } finally {
    await client.close();
  }
});

for (const flag of ['--python', '--trust-folder'])
  test(`agentjet mcp ${flag}: the doctor runs the interpreter handed in, the skills come from its AgentJet, the hints say so`, async () => {
    rmSync(marker, { force: true });
    const { client, stderr } = await connect(flag === '--python' ? ['--python', venvPython] : ['--trust-folder']);
    try {
      const { resources } = await client.listResources();
      assert.deepEqual(
        resources.map((r) => r.name),
        ['write-swarm-client/SKILL.md'],
      );
      const { tools } = await client.listTools();
      const doctor = tools.find((x) => x.name === 'agentjet_doctor');
      assert.equal(doctor?.annotations?.readOnlyHint, false);
      assert.equal(doctor?.annotations?.destructiveHint, true);
      rmSync(marker, { force: true });
      const r = await client.callTool({ name: 'agentjet_doctor', arguments: {} });
      assert.equal(r.isError === true, false, text(r));
      assert.ok(text(r).includes(venvPython), text(r).slice(0, 400));
      assert.match(ran(), /^ran /m, `the doctor ran nothing:\n${stderr()}`);
    } finally {
      await client.close();
    }
  });

test('bad usage: --python with --trust-folder or --no-python, an empty --python, a bad --swarm-url (exit 2, a message)', () => {
  rmSync(marker, { force: true });
  for (const args of [
    ['--python', venvPython, '--trust-folder'],
    ['--python', venvPython, '--no-python'],
    ['--python', ''],
    ['--swarm-url', 'ftp://x'],
  ]) {
    const r = spawnSync(process.execPath, [CLI, 'mcp', '--root', ws, ...args], { encoding: 'utf8', input: '', timeout: 30_000 });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /agentjet mcp: /, args.join(' '));
  }
  assert.equal(ran(), '');
});
