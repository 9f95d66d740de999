// Item 4 of issue 41: Check Environment and the launch preflight catch what the user's AgentJet
// refuses before it starts, judged by its own code (verify_python_env, check_debugpy_version):
// a verl it refuses for the launch's backbone, debugpy < 1.8 for any backbone (not only when
// debugging), `logger: swanlab` without SWANLAB_API_KEY. A stand-in AgentJet without those
// functions gates nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { effectiveLogger } from '../../core/doctor/effectiveLogger';
import { nodeFs } from '../../core/fs/seam';
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
  'verl: AgentJet c68c154 accepts 0.7.1; without verl every launch stops, --backbone debug too (verify_python_env imports it)',
  withUpstream('agentjet-c68c154', async (dir) => {
    assert.deepEqual((await judge(probe({ verl: pkg('verl', '0.7.1') }, join(dir, 'ajet')), launch())).blocking, []);
    const noVerl = probe({ verl: pkg('verl', null) }, join(dir, 'ajet'));
    const debug = await judge(noVerl, launch({ backbone: 'debug' }));
    assert.deepEqual(debug.blocking, ['verl']);
    assert.match(debug.checks.find((c) => c.id === 'verl')!.detail, /verify_python_env in \S+launch_utils\.py/);
    // --backbone verl: its module (get_backbone_target -> ajet.backbone.main_verl) imports verl.
    const verl = await judge(noVerl, launch({ backbone: 'verl' }));
    assert.deepEqual(verl.blocking, ['verl']);
    assert.match(verl.checks.find((c) => c.id === 'verl')!.detail, /--backbone verl \(\S+main_verl\.py\)/);
    assert.match(verl.checks.find((c) => c.id === 'verl')!.fix!.value, /\[verl\]/);
    // Check Environment (no launch) keeps it a note.
    assert.equal((await judge(noVerl)).checks.find((c) => c.id === 'verl')!.status, 'info');
  }),
);

test(
  'trinity: --backbone trinity without trinity-rft stops (ajet/backbone/main_trinity.py imports it); the other backbones do not need it',
  withUpstream('agentjet-d20cce0', async (dir) => {
    const gates = await gatesOfProbe(probe({}, join(dir, 'ajet')));
    // d20cce0 has get_backbone_target in ajet/launcher.py.
    assert.deepEqual(gates!.backboneImports.trinity?.packages, ['trinity']);
    assert.deepEqual(gates!.backboneImports.verl?.packages, ['verl']);
    assert.deepEqual(gates!.backboneImports.debug?.packages, []);
    // A verl that verify_python_env lets through for trinity (it refuses 0.5.0.post / 0.7.0.post there).
    const p = (over: Record<string, PackageFacts> = {}) => probe({ verl: pkg('verl', '0.4.1'), ...over }, join(dir, 'ajet'));
    const r = await judge(p(), launch({ backbone: 'trinity' }));
    assert.deepEqual(r.blocking, ['trinity']);
    const check = r.checks.find((c) => c.id === 'trinity')!;
    assert.match(check.detail, /main_trinity\.py/);
    assert.match(check.fix!.value, /\[trinity\]/);
    assert.deepEqual((await judge(p(), launch({ backbone: 'debug' }))).blocking, []);
    assert.deepEqual((await judge(p({ trinity: pkg('trinity', '0.3.0') }), launch({ backbone: 'trinity' }))).blocking, []);
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
  // Nor does it say what a backbone imports: no verl or trinity is asked for.
  const none = probe({ verl: pkg('verl', null) }, standin);
  assert.deepEqual((await judge(none, launch({ backbone: 'verl' }))).blocking, []);
  assert.deepEqual((await judge(none, launch({ backbone: 'trinity' }))).blocking, []);
});

// Item 3: the logger in effect is the composed config's (AgentJet's ajet_default.yaml sets
// `logger: swanlab` in both trees), not only what the config writes.
test(
  'logger: a config that does not write it inherits swanlab from ajet_default.yaml (found on its hydra.searchpath, or in the AgentJet checkout as AgentJet retries it)',
  withUpstream('agentjet-c68c154', async (dir) => {
    const cwd = mkdtempSync(join(tmpdir(), 'aj-logger-'));
    try {
      const frameworkDir = join(dir, 'ajet');
      const cfg = (body: string) => {
        const p = join(cwd, `c${Math.random().toString(36).slice(2)}.yaml`);
        writeFileSync(p, body);
        return p;
      };
      const tail = 'hydra:\n  searchpath:\n    - file://ajet/default_config\n    - file://ajet/default_config/verl\n';
      const eff = (p: string) => effectiveLogger(nodeFs(), { configPath: p, cwd, frameworkDir, root: 'ajet' });
      // cwd has no ajet/: the search path resolves in the checkout the package lies in.
      const inherited = await eff(cfg(`ajet:\n  project_name: p\n${tail}defaults:\n  - verl_default\n  - ajet_default\n  - _self_\n`));
      assert.equal(inherited?.logger, 'swanlab');
      assert.equal(inherited?.written, false);
      assert.equal(inherited?.from, join(dir, 'ajet', 'default_config', 'ajet_default.yaml'));
      const written = `ajet:\n  trainer_common:\n    logger: tensorboard\n${tail}`;
      const own = cfg(`${written}defaults:\n  - ajet_default\n  - _self_\n`);
      assert.deepEqual(await eff(own), { logger: 'tensorboard', from: own, written: true });
      // Without `_self_` Hydra puts the config last: its own value wins.
      assert.equal((await eff(cfg(`${written}defaults:\n  - ajet_default\n`)))?.logger, 'tensorboard');
      // `_self_` first: the default written after it wins.
      assert.equal((await eff(cfg(`${written}defaults:\n  - _self_\n  - ajet_default\n`)))?.logger, 'swanlab');
      // No defaults list, no value: nothing is guessed.
      assert.equal(await eff(cfg('ajet:\n  project_name: p\n')), undefined);
      assert.equal(await eff(cfg('ajet: [unclosed\n')), undefined);

      const p = probe({}, frameworkDir);
      const r = await judge(p, launch({ backbone: 'debug', logger: 'swanlab', loggerFrom: inherited!.from }));
      assert.deepEqual(r.blocking, ['swanlab']);
      assert.match(r.checks.find((c) => c.id === 'swanlab')!.detail, /does not set `ajet\.trainer_common\.logger`.*ajet_default\.yaml/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }),
);
