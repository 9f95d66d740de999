// Which launcher the extension starts, against the real upstream trees installed the way a
// checkout is used (the tree on PYTHONPATH, the tests' Python): the probe finds the module each
// version really has, never an assumed one.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { withUpstream, type UpstreamName } from '../util/upstream';
import { ensureTestPython } from '../harness/python';
import { resolveAttributes } from '../../core/launch/attributes';
import { commandLine, planLaunch, preflightLaunch } from '../../core/launch/lifecycle';
import type { LayoutVersion } from '../../core/agentjet';

// The tests' Python has no verl, and AgentJet's verify_python_env imports it before every launch
// (ajet/utils/launch_utils.py, both trees): the preflight refuses a launch without it. A stand-in
// verl package with a version both trees accept for --backbone verl (their lists name
// "0.7.0.post") is put on PYTHONPATH, as an installed verl would be; its dist-info gives the version
// the probe reads with importlib.metadata.
let verlDir: string | undefined;
function standInVerl(): string {
  if (verlDir) return verlDir;
  const dir = mkdtempSync(join(tmpdir(), 'aj-verl-'));
  mkdirSync(join(dir, 'verl'));
  writeFileSync(join(dir, 'verl', '__init__.py'), '__version__ = "0.7.0.post1"\n');
  mkdirSync(join(dir, 'verl-0.7.0.post1.dist-info'));
  writeFileSync(join(dir, 'verl-0.7.0.post1.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: verl\nVersion: 0.7.0.post1\n');
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return (verlDir = dir);
}
const withVerl = (tree: string) => [tree, standInVerl()].filter(Boolean).join(delimiter);

/** A verl that is installed (found, with its version) but whose import raises, as a broken dependency makes it. */
function brokenVerl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aj-verl-broken-'));
  mkdirSync(join(dir, 'verl'));
  writeFileSync(join(dir, 'verl', '__init__.py'), 'raise ImportError("verl needs tensordict>=0.8 (stand-in broken dependency)")\n');
  mkdirSync(join(dir, 'verl-0.7.0.post1.dist-info'));
  writeFileSync(join(dir, 'verl-0.7.0.post1.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: verl\nVersion: 0.7.0.post1\n');
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function preflightIn(
  tree: string,
  root: 'ajet' | 'astuner' | 'astune',
  backbone: 'debug' | 'verl' | 'trinity' = 'debug',
  yaml = '',
  cwd?: string,
  verl: boolean | string = true,
) {
  const dir = mkdtempSync(join(tmpdir(), 'aj-entry-'));
  try {
    const config = join(dir, 'c.yaml');
    writeFileSync(config, `${root}:\n  experiment_name: entry\n${yaml}`);
    const r = resolveAttributes({
      config,
      cwd: cwd ?? dir,
      backbone,
      python: ensureTestPython().python,
      env: { PYTHONPATH: typeof verl === 'string' ? [tree, verl].join(delimiter) : verl ? withVerl(tree) : tree },
    });
    const planned = await planLaunch(r, { lint: false });
    assert.ok(planned.ok);
    const pre = await preflightLaunch(planned.plan, false);
    return { pre, cmd: pre.ok ? commandLine(planned.plan, pre.target) : undefined };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The last column: the run layout the preflight reads from the launched package's own code.
const cases: [UpstreamName, 'ajet' | 'astuner', string, LayoutVersion | undefined][] = [
  // pyproject: ajet = "ajet.launcher:main"
  ['agentjet-d20cce0', 'ajet', 'ajet.launcher', 'agentjet'],
  // AgentJet 0.0.4: the same declaration; its warm_up.py logs under the experiment folder.
  ['agentjet-c68c154', 'ajet', 'ajet.launcher', 'agentjet-0.0.4'],
  // pyproject: astuner = "astuner.cli.launcher:main"
  ['astuner-61e9359', 'astuner', 'astuner.cli.launcher', undefined],
  // Same declaration; its .gitignore names `launcher.py`, but the file is in its git (and in the tree).
  ['astuner-f9fab4f', 'astuner', 'astuner.cli.launcher', undefined],
];

for (const [tree, root, expected, layout] of cases) {
  test(
    `${tree}: starts python -m ${expected}`,
    withUpstream(tree, async (dir) => {
      const { pre, cmd } = await preflightIn(dir, root);
      assert.ok(pre.ok, pre.ok ? '' : pre.refusal.message);
      assert.deepEqual(pre.target, { kind: 'module', module: expected });
      assert.deepEqual(cmd!.args.slice(0, 2), ['-m', expected]);
      assert.equal(pre.ok && pre.layout, layout);
    }),
  );
}

test(
  'AgentJet 0.0.4: refused before the start with an ISOLATED_AGENTJET_BASE_DIR that has no ajet/, or with --reboot (the launcher would stop at once)',
  withUpstream('agentjet-c68c154', async (dir) => {
    const empty = mkdtempSync(join(tmpdir(), 'aj-iso-'));
    try {
      const config = join(empty, 'c.yaml');
      writeFileSync(config, 'ajet:\n  experiment_name: entry\n');
      const run = async (iso: string) => {
        const r = resolveAttributes({
          config,
          cwd: empty,
          backbone: 'debug',
          python: ensureTestPython().python,
          env: { PYTHONPATH: withVerl(dir), ISOLATED_AGENTJET_BASE_DIR: iso },
        });
        const planned = await planLaunch(r, { lint: false });
        assert.ok(planned.ok);
        return preflightLaunch(planned.plan, false);
      };
      const bad = await run(empty);
      assert.ok(!bad.ok);
      assert.match(bad.refusal.message, /ISOLATED_AGENTJET_BASE_DIR is \S+, which has no ajet folder/);
      const good = await run(dir);
      assert.ok(good.ok, good.ok ? '' : good.refusal.message);
      // --reboot: January's launcher had it, 0.0.4's does not (argparse would stop the launch).
      const r = resolveAttributes({
        config,
        cwd: empty,
        backbone: 'debug',
        python: ensureTestPython().python,
        env: { PYTHONPATH: withVerl(dir) },
        args: ['--reboot'],
      });
      const planned = await planLaunch(r, { lint: false });
      assert.ok(planned.ok);
      const reboot = await preflightLaunch(planned.plan, false);
      assert.ok(!reboot.ok);
      assert.deepEqual(reboot.refusal.kinds, ['args']);
      assert.match(reboot.refusal.message, /AgentJet 0\.0\.4 has no --reboot option/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }),
);

test(
  'the vLLM port is checked for the debug backbone only (verl and trinity use none)',
  withUpstream('agentjet-d20cce0', async (dir) => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as AddressInfo).port;
    try {
      const yaml = `  debug:\n    debug_vllm_port: ${port}\n`;
      const debug = await preflightIn(dir, 'ajet', 'debug', yaml);
      assert.ok(!debug.pre.ok);
      assert.deepEqual(debug.pre.refusal.kinds, ['port']);
      assert.match(
        debug.pre.refusal.message,
        new RegExp(`port ${port} \\(ajet\\.debug\\.debug_vllm_port\\) is held by process ${process.pid}`),
      );
      const verl = await preflightIn(dir, 'ajet', 'verl', yaml);
      assert.ok(verl.pre.ok, verl.pre.ok ? '' : verl.pre.refusal.message);
      assert.equal(verl.pre.probe.port.port, 0, 'no port probed');
    } finally {
      await new Promise((r) => srv.close(r));
    }
  }),
);

// ASTune (upstream astune-ba24412p): no console script, no launcher in its package; `python
// launcher.py` at the checkout's root, which the probe finds as the module `launcher` when the
// launch runs from there (the probe puts the working directory on sys.path, as `python -m` does).
test(
  'astune-ba24412p: from the checkout root the launcher is `python -m launcher`; elsewhere a clear refusal',
  withUpstream('astune-ba24412p', async (dir) => {
    const atRoot = await preflightIn('', 'astune', 'debug', '', dir);
    assert.ok(atRoot.pre.ok, atRoot.pre.ok ? '' : atRoot.pre.refusal.message);
    assert.deepEqual(atRoot.pre.target, { kind: 'module', module: 'launcher' });
    assert.deepEqual(atRoot.cmd!.args.slice(0, 4), ['-m', 'launcher', '--backbone', 'debug']);
    const elsewhere = await preflightIn('', 'astune');
    assert.ok(!elsewhere.pre.ok, 'refused outside the checkout root');
    assert.deepEqual(elsewhere.pre.refusal.kinds, ['framework']);
    assert.match(
      elsewhere.pre.refusal.message,
      /has no AgentJet launcher: no console script beside it and it cannot import launcher \(No module named 'launcher'\)/,
    );
    assert.match(elsewhere.pre.refusal.message, /ASTune runs its launcher\.py from the root of its checkout/);
  }),
);

// What the real launcher would stop at, refused before the start: verify_python_env imports verl
// for every backbone; get_backbone_target's module for --backbone trinity (ajet/backbone/
// main_trinity.py) imports trinity. Judged from each tree's own code.
for (const tree of ['agentjet-d20cce0', 'agentjet-c68c154'] as const)
  test(
    `${tree}: without verl every launch is refused (verify_python_env imports it); without trinity-rft, --backbone trinity is`,
    withUpstream(tree, async (dir) => {
      for (const backbone of ['debug', 'verl'] as const) {
        const { pre } = await preflightIn(dir, 'ajet', backbone, '', undefined, false);
        assert.ok(!pre.ok, `--backbone ${backbone} without verl`);
        assert.deepEqual(pre.refusal.kinds, ['framework']);
        assert.match(pre.refusal.message, /verl cannot be imported by \S+/);
        assert.match(pre.refusal.installCommand ?? '', /pip install/);
      }
      const { pre } = await preflightIn(dir, 'ajet', 'trinity', '', undefined, false);
      assert.ok(!pre.ok);
      assert.match(
        pre.refusal.message,
        /trinity cannot be imported by \S+, and AgentJet imports it for --backbone trinity \(\S+main_trinity\.py\)/,
      );
    }),
  );

// A verl that is installed but fails to import: found by the probe, but verify_python_env's
// `import verl` would raise; the preflight imports it for real and names the exception.
test(
  'agentjet-d20cce0: an installed verl whose import raises is refused with the exception as the cause',
  withUpstream('agentjet-d20cce0', async (dir) => {
    const broken = brokenVerl();
    for (const backbone of ['debug', 'verl'] as const) {
      const { pre } = await preflightIn(dir, 'ajet', backbone, '', undefined, broken);
      assert.ok(!pre.ok, `--backbone ${backbone} with a broken verl`);
      assert.deepEqual(pre.refusal.kinds, ['framework']);
      assert.match(
        pre.refusal.message,
        /verl is installed in \S+ but importing it fails: ImportError: verl needs tensordict>=0\.8 \(stand-in broken dependency\)\. AgentJet imports it before the launch \(\S+launch_utils\.py\)/,
      );
      assert.match(pre.refusal.installCommand ?? '', /pip install/);
    }
  }),
);

// AgentJet's ajet_default.yaml sets `trainer_common.logger: swanlab`, and verify_python_env stops a
// launch whose composed config logs to SwanLab without SWANLAB_API_KEY: a config that inherits the
// default is refused before the start too, and goes with the key or with its own logger.
test(
  'agentjet-c68c154: a config that inherits logger: swanlab from ajet_default.yaml is refused without SWANLAB_API_KEY',
  withUpstream('agentjet-c68c154', async (dir) => {
    const cwd = mkdtempSync(join(tmpdir(), 'aj-swan-'));
    try {
      const config = join(cwd, 'c.yaml');
      const tail = 'hydra:\n  searchpath:\n    - file://ajet/default_config\ndefaults:\n  - ajet_default\n  - _self_\n';
      const run = async (body: string, key: string | null) => {
        writeFileSync(config, `ajet:\n  experiment_name: swan\n${body}${tail}`);
        const r = resolveAttributes({
          config,
          cwd,
          backbone: 'debug',
          python: ensureTestPython().python,
          env: { PYTHONPATH: withVerl(dir), SWANLAB_API_KEY: key },
        });
        const planned = await planLaunch(r, { lint: false });
        assert.ok(planned.ok);
        return preflightLaunch(planned.plan, false);
      };
      const bare = await run('', null);
      assert.ok(!bare.ok, 'refused');
      assert.deepEqual(bare.refusal.kinds, ['config']);
      assert.match(bare.refusal.message, /does not set `ajet\.trainer_common\.logger`, so it logs to SwanLab/);
      assert.match(bare.refusal.message, /ajet\/default_config\/ajet_default\.yaml/);
      const keyed = await run('', 'sk-test');
      assert.ok(keyed.ok, keyed.ok ? '' : keyed.refusal.message);
      const own = await run('  trainer_common:\n    logger: tensorboard\n', null);
      assert.ok(own.ok, own.ok ? '' : own.refusal.message);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }),
);
