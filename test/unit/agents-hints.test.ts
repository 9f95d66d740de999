// The agent tools' hints cannot drift from what they do (issue 39): every tool is called with a
// recording environment (an interpreter that leaves a marker, a swarm service that counts calls),
// once without an interpreter handed in and once with one; what it really ran and reached gives
// the hints, which must equal the declared ones (runsWorkspaceCode, network -> toolHints, the MCP
// annotations). Also: no core module picks an interpreter by itself.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  symlinkSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { repoRoot } from '../util/paths';
import { fixtures } from '../gen';
import { toolCalls } from '../util/toolCalls';
import { AGENT_TOOLS, callTool, toolHints, type AgentToolEnv, type ToolHints } from '../../core/agents/tools';
import type { SwarmStatus } from '../../core/swarm/api';

// The doctor's probe is bundled as text by esbuild (core/doctor/script.ts); tsx loads it here the same way.
const loaders = (Module as unknown as { _extensions: Record<string, (m: { exports: unknown }, file: string) => void> })._extensions;
loaders['.py'] ??= (m, file) => {
  m.exports = { __esModule: true, default: readFileSync(file, 'utf8') };
};

const dir = mkdtempSync(join(tmpdir(), 'aj-hints-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const ws = join(dir, 'ws');
cpSync(fixtures().workspace, ws, { recursive: true });
writeFileSync(join(ws, 'exp.yaml'), 'ajet:\n  project_name: hints\n  rollout:\n    max_env_worker: 4\n');
const marker = join(dir, 'ran.log');
const python = join(dir, 'python');
writeFileSync(python, `#!/bin/sh\nprintf 'ran %s\\n' "$1" >> '${marker}'\nexec python3 "$@"\n`);
chmodSync(python, 0o755);
const ran = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

const ARGS = toolCalls(ws);

const FAKE_STATUS: SwarmStatus = {
  url: 'http://localhost:10086',
  engine_status: 'ENGINE.ROLLING',
  engine_status_detail: null,
  global_step: 3,
  server_experiment_dir: null,
  training_model_path: null,
  pool: {
    sample_collection_method: '',
    completed_episodes: 0,
    completed_episode_target: 0,
    completed_tasks: 0,
    completed_task_target: 0,
    completed_non_dummy_tasks: 0,
    completed_non_dummy_task_target: 0,
    task_expected_num_repeat: 0,
    completed_tasks_details: {},
    completed_tasks_rewards: {},
    completed_tasks_client_uuids: {},
    engine_status: 'ENGINE.ROLLING',
    global_step: 3,
    booting_start_time: null,
    training_model_path: null,
    swarm_client_instruction: { active_clients: [] },
  },
};

interface Observed {
  ran: boolean;
  network: boolean;
  askedForPython: boolean;
  answer: { isError: boolean; text: string };
}

async function observe(name: string, given: boolean): Promise<Observed> {
  rmSync(marker, { force: true });
  let network = 0;
  let asked = 0;
  const env: AgentToolEnv = {
    roots: [ws],
    mayRunPython: given,
    python: () => {
      asked++;
      return Promise.resolve(given ? python : undefined);
    },
    swarm: {
      known: () => Promise.resolve([]),
      anyUrl: false,
      allowHow: 'the test',
      status: (url) => {
        network++;
        return Promise.resolve({ ...FAKE_STATUS, url });
      },
    },
    factsCacheDir: join(dir, 'facts'),
    logCacheDir: join(dir, 'logs'),
  };
  const answer = await callTool(name, ARGS[name], env);
  return { ran: ran() !== '', network: network > 0, askedForPython: asked > 0, answer };
}

/** The hints what a call did calls for: running the folder's interpreter is neither read-only nor closed-world. */
const hintsOf = (o: Observed): ToolHints => ({
  readOnlyHint: !o.ran,
  destructiveHint: o.ran,
  idempotentHint: !o.ran,
  openWorldHint: o.ran || o.network,
});

test('every tool has a call here', () => {
  assert.deepEqual(Object.keys(ARGS).sort(), AGENT_TOOLS.map((x) => x.name).sort());
});

for (const tool of AGENT_TOOLS)
  test(`${tool.name}: the declared hints are what it runs and reaches, with and without an interpreter`, async () => {
    for (const given of [false, true]) {
      const o = await observe(tool.name, given);
      const why = `${tool.name} (interpreter ${given ? 'given' : 'not given'}): ${o.answer.text.slice(0, 400)}\n${ran()}`;
      if (!given) assert.equal(o.ran, false, `nothing runs without an interpreter handed in: ${why}`);
      if (tool.runsWorkspaceCode === 'always' && !given) {
        // Refused (and not offered by the MCP server): its hints are those of the call it would make.
        assert.equal(o.answer.isError, true, why);
        assert.match(o.answer.text, /--python PATH/, why);
        continue;
      }
      assert.equal(o.answer.isError, false, why);
      assert.deepEqual(toolHints(tool, given), hintsOf(o), why);
      // Only the tools that may run it ask for the interpreter at all.
      if (tool.runsWorkspaceCode === 'never') assert.equal(o.askedForPython, false, why);
      assert.equal(tool.network, o.network, why);
    }
    // The tool was really called with an interpreter (the check above can fail).
    if (tool.runsWorkspaceCode !== 'never') assert.match(ran(), /^ran /m, tool.name);
  });

test('no core module looks for an interpreter itself: only the shells (cli/, extension/, language-server/) do', () => {
  const offenders: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && /\bresolveInterpreter\s*\(/.test(readFileSync(p, 'utf8'))) offenders.push(relative(repoRoot, p));
    }
  };
  walk(join(repoRoot, 'core'));
  assert.deepEqual(offenders, ['core/process/resolveInterpreter.ts']);
  // The definition itself is found: the scan sees a call (a test that cannot fail is a defect).
});

test('swarm status: loopback, configured and workspace-named servers only; another URL refused naming the setting', async () => {
  const asked: string[] = [];
  const envWith = (known: string[], anyUrl: boolean): AgentToolEnv => ({
    roots: [ws],
    mayRunPython: false,
    swarm: {
      known: () => Promise.resolve(known),
      anyUrl,
      allowHow: 'the setting agentjet.agents.swarmAnyUrl',
      status: (url) => {
        asked.push(url);
        return Promise.resolve({ ...FAKE_STATUS, url });
      },
    },
  });
  const call = (url: string, env: AgentToolEnv) => callTool('agentjet_swarm_status', { url }, env);
  const env = envWith(['http://gpu-1:10086'], false);
  for (const ok of ['http://localhost:10086', 'http://127.0.0.1:9', 'http://[::1]:10086', 'gpu-1:10086', 'http://gpu-1:10086/'])
    assert.equal((await call(ok, env)).isError, false, ok);
  for (const bad of [
    'http://gpu-1:10087',
    'http://localhost.evil.example:10086',
    'http://169.254.169.254/latest',
    'https://gpu-1:10086',
    'http://0.0.0.0:10086',
    'http://localhost@evil.example:10086',
  ]) {
    const r = await call(bad, env);
    assert.equal(r.isError, true, bad);
    assert.match(r.text, /agentjet\.agents\.swarmAnyUrl/, bad);
  }
  // Nothing refused was asked.
  assert.equal(asked.length, 5);
  assert.ok(!asked.some((u) => /evil|169\.254|10087|https|0\.0\.0\.0/.test(u)), asked.join(', '));
  // The user's setting lets any URL through; without an access object only loopback is asked.
  assert.equal((await call('http://169.254.169.254', envWith([], true))).isError, false);
  const bare = await callTool('agentjet_swarm_status', { url: 'http://203.0.113.7:10086' }, { roots: [ws], mayRunPython: false });
  assert.equal(bare.isError, true);
  assert.match(bare.text, /agentjet\.agents\.swarmAnyUrl/);
});

test('swarm status: the servers a folder names in SwarmClient("…") are found by a bounded scan that follows no link', async () => {
  const { workspaceSwarmUrls } = await import('../../core/agents/swarmAccess');
  const root = join(dir, 'swarm-ws');
  const outside = join(dir, 'swarm-outside');
  mkdirSync(join(root, 'pkg'), { recursive: true });
  mkdirSync(join(root, '.venv'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(root, 'pkg', 'client.py'), 'from ajet import SwarmClient\nc = SwarmClient("http://trainer-7:10086")\n');
  writeFileSync(join(root, '.venv', 'x.py'), 'SwarmClient("http://venv-host:1")\n');
  writeFileSync(join(outside, 'y.py'), 'SwarmClient("http://outside-host:1")\n');
  symlinkSync(outside, join(root, 'out'));
  execFileSync('mkfifo', [join(root, 'pipe.py')]);
  assert.deepEqual(await workspaceSwarmUrls(root), ['http://trainer-7:10086']);
});
