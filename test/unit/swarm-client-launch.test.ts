// The `swarmClient` launch mode (core/launch/swarmClient.ts): attribute validation, the plan
// (python <client.py> args, cwd, .env), where the server URL comes from, and the server check
// refusing a launch when nothing answers.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSwarmServer, isSwarmClientLaunch, planSwarmClient, swarmClientCommand, swarmUrlFor } from '../../core/launch/swarmClient';

const CLIENT = [
  'from ajet.tuner_lib.experimental.swarm_client import SwarmClient',
  '# SwarmClient("http://commented:1")',
  'client = SwarmClient("http://10.0.0.5:10086/")',
  '',
].join('\n');

function workspace(): { dir: string; script: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'aj-swcl-'));
  const script = join(dir, 'client.py');
  writeFileSync(script, CLIENT);
  writeFileSync(join(dir, '.env'), 'FROM_DOTENV=1\nHOME_SET=from-file\n');
  return { dir, script, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

test('isSwarmClientLaunch: the swarmClient attribute decides the mode', () => {
  assert.equal(isSwarmClientLaunch({ swarmClient: 'c.py' }), true);
  assert.equal(isSwarmClientLaunch({ config: 'x.yaml' }), false);
  assert.equal(isSwarmClientLaunch(undefined), false);
});

test('plan: python <client.py> args in cwd, .env added without overriding the environment, URL from the script literal', () => {
  const w = workspace();
  try {
    const p = planSwarmClient(
      { swarmClient: 'client.py', cwd: w.dir, python: '/venv/bin/python', args: ['--n', '2'] },
      { HOME_SET: 'env' },
    );
    assert.ok(p.ok, p.ok ? '' : p.message);
    assert.equal(p.launch.script, w.script);
    assert.equal(p.launch.cwd, w.dir);
    assert.deepEqual(swarmClientCommand(p.launch), { command: '/venv/bin/python', args: [w.script, '--n', '2'] });
    assert.deepEqual(p.launch.envAdditions, { FROM_DOTENV: '1' });
    assert.equal(p.launch.envFile, join(w.dir, '.env'));
    assert.equal(p.launch.url, 'http://10.0.0.5:10086');
    assert.equal(p.launch.urlFrom, 'script');
    assert.equal(p.launch.justMyCode, true);
  } finally {
    w.dispose();
  }
});

test('URL: swarmUrl wins, then AJET_SWARM_URL of the launch env (launch.json env included), then the literal', () => {
  const w = workspace();
  try {
    const a = planSwarmClient({ swarmClient: w.script, swarmUrl: 'localhost:9999', env: { AJET_SWARM_URL: 'http://e:1' } }, {});
    assert.ok(a.ok);
    assert.deepEqual([a.launch.url, a.launch.urlFrom], ['http://localhost:9999', 'swarmUrl']);
    const b = planSwarmClient({ swarmClient: w.script, env: { AJET_SWARM_URL: 'http://e:1' } }, {});
    assert.ok(b.ok);
    assert.deepEqual([b.launch.url, b.launch.urlFrom], ['http://e:1', 'env']);
    assert.equal(swarmUrlFor(undefined, {}, 'client = SwarmClient(url)\n'), undefined);
    // No cwd: the script's folder (as for configs).
    assert.equal(b.launch.cwd, w.dir);
  } finally {
    w.dispose();
  }
});

test('validation: empty path, config and swarmClient together, not .py, missing file, bad swarmUrl', () => {
  const w = workspace();
  try {
    const msg = (a: Parameters<typeof planSwarmClient>[0]): string => {
      const p = planSwarmClient(a, {});
      assert.equal(p.ok, false);
      return p.ok ? '' : p.message;
    };
    assert.match(msg({ swarmClient: ' ' }), /"swarmClient" must be the path/);
    assert.match(msg({ swarmClient: w.script, config: 'a.yaml' }), /either "config" .* or "swarmClient"/);
    assert.match(msg({ swarmClient: join(w.dir, 'client.yaml') }), /not a Python script/);
    assert.match(msg({ swarmClient: join(w.dir, 'nope.py') }), /does not exist/);
    assert.match(msg({ swarmClient: w.script, swarmUrl: 'ftp://x' }), /"swarmUrl": not an http\(s\) URL/);
    assert.match(msg({ swarmClient: w.script, swarmUrl: 42 as unknown as string }), /"swarmUrl" must be a string/);
  } finally {
    w.dispose();
  }
});

test('server check: a refused port is refused within a few seconds with the URL, the reason and what to do', async () => {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  const t0 = Date.now();
  const c = await checkSwarmServer(`http://127.0.0.1:${port}`);
  assert.equal(c.ok, false);
  assert.ok(Date.now() - t0 < 4000);
  assert.match(
    c.ok ? '' : c.message,
    new RegExp(`swarm server http://127\\.0\\.0\\.1:${port} is not reachable .*connection refused.*Nothing was launched`),
  );
});
