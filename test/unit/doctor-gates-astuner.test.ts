// The launch preflight and Check Environment judge ASTuner and ASTune projects by their own code,
// as AgentJet's are (doctor-gates.test.ts): each version's launcher and launch_utils.py say what
// stops a launch. ASTuner f9fab4f: verify_python_env (imports verl for every launch, accepts only
// verl `startswith("0.5.0.post")` for --backbone verl, refuses it for trinity), debugpy >= 1.8.0 in
// `if __name__ == "__main__":` of astuner/cli/launcher.py. ASTuner 61e9359: no verify_python_env
// (no verl gate), the same debugpy gate. ASTune: debugpy in its root launcher.py, backbone modules
// chosen in main(). Every version: the backbone's module imports verl or trinity at its top.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { blockingForLaunch, evaluate, type DoctorInput, type LaunchContext, type PackageFacts } from '../../core/doctor/checks';
import { gatesOfProbe } from '../../core/doctor/gates';
import { withUpstream } from '../util/upstream';
import { ensureTestPython } from '../harness/python';

type Fw = 'astuner' | 'astune';

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

function probe(fw: Fw, tree: string, over: Record<string, PackageFacts | undefined> = {}): DoctorInput['probe'] {
  const launcher = fw === 'astuner' ? 'astuner.cli.launcher' : 'launcher';
  const file = fw === 'astuner' ? join(tree, 'astuner', 'cli', 'launcher.py') : join(tree, 'launcher.py');
  return {
    ok: true,
    facts: {
      python: '/venv/bin/python',
      version: '3.11.7',
      venv: true,
      packages: {
        ajet: pkg('ajet', null),
        [fw]: pkg(fw, '0.1.0', join(tree, fw, '__init__.py')),
        debugpy: pkg('debugpy', '1.8.11'),
        vllm: pkg('vllm', '0.8.5'),
        verl: pkg('verl', '0.5.0.post1'),
        trinity: pkg('trinity', '0.3.0'),
        ray: pkg('ray', '2.40.0'),
        ...over,
      },
      launchers: { [launcher]: { file, error: null } },
      port: { port: 0, inUse: false },
    },
  };
}

const launch = (fw: Fw, over: Partial<LaunchContext> = {}): LaunchContext => ({
  candidates: [fw === 'astuner' ? 'astuner.cli.launcher' : 'launcher'],
  companionPgids: [],
  portKey: `${fw}.debug.debug_vllm_port`,
  backbone: 'verl',
  swanlabKey: false,
  config: { path: '/w/c.yaml', root: fw },
  ...over,
});

async function judge(p: DoctorInput['probe'], l?: LaunchContext) {
  const gates = await gatesOfProbe(p, l?.config?.root);
  const checks = evaluate({
    python: '/venv/bin/python',
    probe: p,
    gpu: { available: false, gpus: [], error: null },
    ...(gates ? { gates } : {}),
    ...(l ? { launch: l } : {}),
  });
  return {
    gates,
    checks,
    blocking: blockingForLaunch(checks, false).map((c) => c.id),
    detail: (id: string) => checks.find((c) => c.id === id)?.detail ?? '',
  };
}

test(
  'ASTuner f9fab4f: verl must start with 0.5.0.post for --backbone verl and must not for trinity; every launch imports verl',
  withUpstream('astuner-f9fab4f', async (dir) => {
    const j = (over: Record<string, PackageFacts | undefined>, l = launch('astuner')) => judge(probe('astuner', dir, over), l);
    const ok = await j({});
    assert.match(ok.gates!.from, /astuner[\\/]utils[\\/]launch_utils\.py$/);
    assert.deepEqual([ok.gates!.verlAccepted, ok.gates!.trinityRefused, ok.gates!.verlMatch], [['0.5.0.post'], ['0.5.0.post'], 'prefix']);
    assert.deepEqual(ok.blocking, []);
    // AgentJet's own list accepts 0.7.1; this ASTuner does not.
    const newer = await j({ verl: pkg('verl', '0.7.1') });
    assert.deepEqual(newer.blocking, ['verl']);
    assert.match(
      newer.detail('verl'),
      /ASTuner accepts for --backbone verl \(verify_python_env in \S+launch_utils\.py accepts only versions starting with 0\.5\.0\.post/,
    );
    // A prefix, not a substring: "1.0.5.0.post" contains it but does not start with it.
    assert.deepEqual((await j({ verl: pkg('verl', '1.0.5.0.post1') })).blocking, ['verl']);
    const env = await judge(probe('astuner', dir, { verl: pkg('verl', '0.7.1') }));
    assert.equal(env.checks.find((c) => c.id === 'verl')!.status, 'warning');
    assert.deepEqual((await j({}, launch('astuner', { backbone: 'trinity' }))).blocking, ['verl']);
    assert.deepEqual((await j({ verl: pkg('verl', '0.4.1') }, launch('astuner', { backbone: 'trinity' }))).blocking, []);
    // verify_python_env imports verl before any backbone starts, debug too.
    const noVerl = await j({ verl: pkg('verl', null) }, launch('astuner', { backbone: 'debug' }));
    assert.deepEqual(noVerl.blocking, ['verl']);
    assert.match(noVerl.detail('verl'), /verify_python_env in \S+launch_utils\.py/);
    // --backbone trinity: astuner/backbone/main_trinity.py imports trinity.
    const noTrinity = await j({ verl: pkg('verl', '0.4.1'), trinity: pkg('trinity', null) }, launch('astuner', { backbone: 'trinity' }));
    assert.deepEqual(noTrinity.blocking, ['trinity']);
    assert.match(noTrinity.detail('trinity'), /astuner[\\/]backbone[\\/]main_trinity\.py/);
    // No SWANLAB_API_KEY check in this version.
    assert.deepEqual((await j({}, launch('astuner', { logger: 'swanlab' }))).blocking, []);
  }),
);

test(
  'ASTuner f9fab4f: debugpy < 1.8.0 stops `python -m astuner.cli.launcher` (its __main__ checks it), not the `astuner` console script',
  withUpstream('astuner-f9fab4f', async (dir) => {
    const old = probe('astuner', dir, { debugpy: pkg('debugpy', '1.6.7') });
    const r = await judge(old, launch('astuner', { backbone: 'debug' }));
    assert.deepEqual(r.blocking, ['debugpy']);
    assert.match(r.detail('debugpy'), /check_debugpy_version in \S+astuner[\\/]cli[\\/]launcher\.py/);
    assert.deepEqual(r.gates!.debugpyAsMainOnly, true);
    const script = await judge(old, launch('astuner', { backbone: 'debug', consoleScript: '/venv/bin/astuner' }));
    assert.deepEqual(script.blocking, []);
    assert.deepEqual((await judge(probe('astuner', dir, { debugpy: pkg('debugpy', null) }), launch('astuner'))).blocking, ['debugpy']);
  }),
);

test(
  'ASTuner 61e9359: no verify_python_env, so no verl version is refused and debug needs no verl; its backbone modules still import theirs',
  withUpstream('astuner-61e9359', async (dir) => {
    const j = (over: Record<string, PackageFacts | undefined>, l = launch('astuner')) => judge(probe('astuner', dir, over), l);
    const r = await j({ verl: pkg('verl', '0.7.1') });
    assert.equal(r.gates!.verlCheck, false);
    assert.deepEqual(r.blocking, []);
    assert.deepEqual((await j({ verl: pkg('verl', null) }, launch('astuner', { backbone: 'debug' }))).blocking, []);
    const noVerl = await j({ verl: pkg('verl', null) });
    assert.deepEqual(noVerl.blocking, ['verl']);
    assert.match(noVerl.detail('verl'), /astuner[\\/]main_verl\.py/);
    const old = await j({ debugpy: pkg('debugpy', '1.7.0') }, launch('astuner', { backbone: 'debug' }));
    assert.deepEqual(old.blocking, ['debugpy']);
    assert.match(old.detail('debugpy'), /cli[\\/]launcher\.py/);
  }),
);

test(
  "ASTune: debugpy is checked by the checkout's launcher.py; main() picks astune/main_<backbone>.py, which imports its backbone",
  withUpstream('astune-ba24412p', async (dir) => {
    const j = (over: Record<string, PackageFacts | undefined>, l = launch('astune')) => judge(probe('astune', dir, over), l);
    const r = await j({ verl: pkg('verl', '0.7.1') });
    assert.equal(r.gates!.verlCheck, false);
    assert.deepEqual(r.blocking, []);
    assert.deepEqual(Object.keys(r.gates!.backboneImports).sort(), ['debug', 'trinity', 'verl']);
    const noVerl = await j({ verl: pkg('verl', null) });
    assert.deepEqual(noVerl.blocking, ['verl']);
    assert.match(noVerl.detail('verl'), /astune[\\/]main_verl\.py/);
    assert.deepEqual((await j({ verl: pkg('verl', null) }, launch('astune', { backbone: 'debug' }))).blocking, []);
    const old = await j({ debugpy: pkg('debugpy', '1.6.0') }, launch('astune', { backbone: 'debug' }));
    assert.deepEqual(old.blocking, ['debugpy']);
    assert.match(old.detail('debugpy'), /^ASTune's launcher stops without debugpy >= 1\.8\.0/);
    assert.match(old.detail('debugpy'), new RegExp(`${dir.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}[\\\\/]launcher\\.py`));
  }),
);

// The whole preflight with a real interpreter: the probe finds the real ASTuner tree on PYTHONPATH
// and a stand-in verl whose metadata says its version; the real import of verl succeeds.
const root = mkdtempSync(join(tmpdir(), 'aj-astuner-gates-'));
after(() => rmSync(root, { recursive: true, force: true }));

test(
  'the launch preflight of an ASTuner config refuses the verl its ASTuner refuses, and starts with one it accepts',
  withUpstream('astuner-f9fab4f', async (dir) => {
    const { checkForLaunch } = await import('../../core/doctor/preflight');
    const python = ensureTestPython().python;
    const verlOf = (version: string) => {
      const site = join(root, version);
      mkdirSync(join(site, 'verl'), { recursive: true });
      writeFileSync(join(site, 'verl', '__init__.py'), `__version__ = '${version}'\n`);
      mkdirSync(join(site, `verl-${version}.dist-info`));
      writeFileSync(join(site, `verl-${version}.dist-info`, 'METADATA'), `Metadata-Version: 2.1\nName: verl\nVersion: ${version}\n`);
      return site;
    };
    const run = (version: string) =>
      checkForLaunch({
        python,
        cwd: root,
        env: { ...process.env, PYTHONPATH: [verlOf(version), dir].join(delimiter) },
        port: 0,
        wantDebugpy: false,
        trusted: true,
        launch: launch('astuner', { candidates: ['astuner.cli.launcher'] }),
      });
    const refused = await run('0.7.1');
    assert.ok(refused.probe.ok, 'probe ran');
    assert.ok(
      refused.blocking.some((c) => c.id === 'verl' && /0\.5\.0\.post/.test(c.detail)),
      refused.blocking.map((c) => c.detail).join('\n'),
    );
    const accepted = await run('0.5.0.post1');
    assert.ok(!accepted.blocking.some((c) => c.id === 'verl'), accepted.blocking.map((c) => c.detail).join('\n'));
  }),
);

test(
  "AgentJet c68c154 too calls check_debugpy_version only in launcher.py's __main__: the `ajet` console script is not stopped by it",
  withUpstream('agentjet-c68c154', async (dir) => {
    const p: DoctorInput['probe'] = probe('astuner', dir, {
      astuner: pkg('astuner', null),
      ajet: pkg('ajet', '0.0.5', join(dir, 'ajet', '__init__.py')),
      debugpy: pkg('debugpy', '1.6.7'),
      verl: pkg('verl', '0.7.1'),
    });
    const l = (consoleScript?: string) =>
      launch('astuner', { candidates: ['ajet.launcher'], config: { path: '/w/c.yaml', root: 'ajet' }, backbone: 'debug', consoleScript });
    if (p.ok) p.facts.launchers = { 'ajet.launcher': { file: join(dir, 'ajet', 'launcher.py'), error: null } };
    const gates = await gatesOfProbe(p, 'ajet');
    assert.equal(gates!.debugpyAsMainOnly, true);
    assert.match(gates!.debugpyFrom!, /ajet[\\/]utils[\\/]launch_utils\.py$/);
    const blocking = (cs?: string) =>
      blockingForLaunch(
        evaluate({ python: '/venv/bin/python', probe: p, gpu: { available: false, gpus: [], error: null }, gates: gates!, launch: l(cs) }),
        false,
      ).map((c) => c.id);
    assert.deepEqual(blocking(), ['debugpy']);
    assert.deepEqual(blocking('/venv/bin/ajet'), []);
    // Check Environment (no launch): a warning that names the start that stops, not an error for every launch.
    const env = evaluate({ python: '/venv/bin/python', probe: p, gpu: { available: false, gpus: [], error: null }, gates: gates! });
    const dbg = env.find((c) => c.id === 'debugpy')!;
    assert.equal(dbg.status, 'warning');
    assert.match(dbg.detail, /python -m/);
    assert.match(dbg.detail, /console command does not check it/);
  }),
);

test(
  "an ASTuner or ASTune environment's backbone fixes come from its own checkout (its extra, else its requirements file), never AgentJet's install",
  withUpstream('astuner-f9fab4f', (astuner, t) =>
    withUpstream('astune-ba24412p', (astune) => {
      const fixOf = (fw: Fw, tree: string, over: Record<string, PackageFacts | undefined>, id: string) =>
        evaluate({ python: '/venv/bin/python', probe: probe(fw, tree, over), gpu: { available: false, gpus: [], error: null } }).find(
          (c) => c.id === id,
        )?.fix?.value ?? '';
      // December's ASTuner declares `verl` and `trinity` extras.
      assert.match(
        fixOf('astuner', astuner, { verl: pkg('verl', null) }, 'verl'),
        /^cd .*astuner-f9fab4f.* -m pip install -e "\.\[verl\]"$/,
      );
      assert.match(fixOf('astuner', astuner, { trinity: pkg('trinity', null) }, 'trinity'), /-e "\.\[trinity\]"$/);
      // ASTune has none: its scripts/requirements_verl.txt.
      assert.match(
        fixOf('astune', astune, { vllm: pkg('vllm', null) }, 'vllm'),
        /^cd .*astune-ba24412p.* -m pip install -r scripts[\\/]requirements_verl\.txt$/,
      );
      // Installed from site-packages (no checkout): the package itself.
      const site = { astuner: pkg('astuner', '0.1.0', '/venv/lib/python3.11/site-packages/astuner/__init__.py'), verl: pkg('verl', null) };
      assert.match(fixOf('astuner', astuner, site, 'verl'), /-m pip install verl$/);
      for (const v of [fixOf('astuner', astuner, { verl: pkg('verl', null) }, 'verl'), fixOf('astuner', astuner, site, 'verl')])
        assert.doesNotMatch(v, /AgentJet/);
    })(t),
  ),
);
