// Item 4 of issue 41: Check Environment and the launch preflight catch what the user's AgentJet
// refuses before it starts, judged by its own code (verify_python_env, check_debugpy_version):
// a verl it refuses for the launch's backbone, debugpy < 1.8 for any backbone (not only when
// debugging), `logger: swanlab` without SWANLAB_API_KEY. A stand-in AgentJet without those
// functions gates nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  blockingForLaunch,
  evaluate,
  type DoctorInput,
  type LaunchContext,
  type PackageFacts,
  type ProbeFacts,
} from '../../core/doctor/checks';
import { gatesOfProbe } from '../../core/doctor/gates';
import { readConfigFacts } from '../../core/launch/plan';
import { withUpstream } from '../util/upstream';
import { repoRoot } from '../util/paths';

function pkg(module: string, version: string | null, location?: string): PackageFacts {
  return {
    module,
    found: version !== null,
    version,
    location: version ? (location ?? `/site/${module}/__init__.py`) : null,
    launcher: null,
    error: null,
  };
}

function probe(over: Record<string, PackageFacts>, ajetDir: string): DoctorInput['probe'] {
  const facts: ProbeFacts = {
    python: '/venv/bin/python',
    version: '3.11.7',
    venv: true,
    packages: {
      ajet: pkg('ajet', '0.0.5', join(ajetDir, '__init__.py')),
      debugpy: pkg('debugpy', '1.8.11'),
      vllm: pkg('vllm', '0.8.5'),
      verl: pkg('verl', '0.7.0.post1'),
      ray: pkg('ray', '2.40.0'),
      ...over,
    },
    launchers: { 'ajet.launcher': { file: join(ajetDir, 'launcher.py'), error: null } },
    port: { port: 0, inUse: false },
  };
  return { ok: true, facts };
}

const launch = (over: Partial<LaunchContext> = {}): LaunchContext => ({
  candidates: ['ajet.launcher'],
  companionPgids: [],
  portKey: 'ajet.debug.debug_vllm_port',
  backbone: 'verl',
  swanlabKey: false,
  ...over,
});

async function judge(p: DoctorInput['probe'], l?: LaunchContext, wantDebugpy = false) {
  const gates = await gatesOfProbe(p);
  const checks = evaluate({
    python: '/venv/bin/python',
    probe: p,
    gpu: { available: false, gpus: [], error: null },
    ...(gates ? { gates } : {}),
    ...(l ? { launch: l } : {}),
  });
  return { gates, checks, blocking: blockingForLaunch(checks, wantDebugpy).map((c) => c.id) };
}

test(
  'verl: AgentJet d20cce0 refuses verl 0.7.1 for --backbone verl (a launch stops, Check Environment warns); c68c154 accepts it',
  withUpstream('agentjet-d20cce0', async (dir) => {
    const p = probe({ verl: pkg('verl', '0.7.1') }, join(dir, 'ajet'));
    const r = await judge(p, launch());
    assert.match(r.gates!.from, /launch_utils\.py$/);
    assert.deepEqual(r.blocking, ['verl']);
    assert.match(r.checks.find((c) => c.id === 'verl')!.detail, /0\.7\.0\.post/);
    assert.match(r.checks.find((c) => c.id === 'verl')!.fix!.value, /\[verl\]/);
    const env = await judge(p);
    assert.equal(env.checks.find((c) => c.id === 'verl')!.status, 'warning');
    // The debug backbone does not judge the version; an accepted one passes.
    assert.deepEqual((await judge(p, launch({ backbone: 'debug' }))).blocking, []);
    assert.deepEqual((await judge(probe({}, join(dir, 'ajet')), launch())).blocking, []);
  }),
);

test(
  'verl: AgentJet c68c154 accepts 0.7.1; verl missing is not refused here (the optional check says so)',
  withUpstream('agentjet-c68c154', async (dir) => {
    assert.deepEqual((await judge(probe({ verl: pkg('verl', '0.7.1') }, join(dir, 'ajet')), launch())).blocking, []);
    assert.deepEqual((await judge(probe({ verl: pkg('verl', null) }, join(dir, 'ajet')), launch({ backbone: 'debug' }))).blocking, []);
  }),
);

test(
  'debugpy < 1.8 stops a launch without debugging too (check_debugpy_version runs for every backbone)',
  withUpstream('agentjet-c68c154', async (dir) => {
    const old = probe({ debugpy: pkg('debugpy', '1.6.7') }, join(dir, 'ajet'));
    const r = await judge(old, launch({ backbone: 'debug' }), false);
    assert.deepEqual(r.blocking, ['debugpy']);
    assert.match(r.checks.find((c) => c.id === 'debugpy')!.detail, /check_debugpy_version/);
    assert.deepEqual((await judge(probe({ debugpy: pkg('debugpy', null) }, join(dir, 'ajet')), launch(), false)).blocking, ['debugpy']);
  }),
);

test(
  '`logger: swanlab` without SWANLAB_API_KEY stops the launch; with the key, or logger tensorboard, it goes',
  withUpstream('agentjet-c68c154', async (dir) => {
    const logger = readConfigFacts('ajet:\n  trainer_common:\n    logger: swanlab\n').logger;
    assert.equal(logger, 'swanlab');
    const p = probe({}, join(dir, 'ajet'));
    assert.deepEqual((await judge(p, launch({ logger }))).blocking, ['swanlab']);
    assert.deepEqual((await judge(p, launch({ logger, swanlabKey: true }))).blocking, []);
    assert.deepEqual((await judge(p, launch({ logger: 'tensorboard' }))).blocking, []);
  }),
);

test('a stand-in AgentJet without verify_python_env or check_debugpy_version gates nothing', async () => {
  const standin = join(repoRoot, 'test', 'fixtures', 'backbone', 'ajet');
  const p = probe({ verl: pkg('verl', '0.1.0'), debugpy: pkg('debugpy', '1.6.7') }, standin);
  const r = await judge(p, launch({ logger: 'swanlab' }));
  assert.equal(r.gates!.verlCheck, false);
  assert.deepEqual(r.blocking, []);
});
