// Which launcher the extension starts, against the real upstream trees installed the way a
// checkout is used (the tree on PYTHONPATH, the tests' Python): the probe finds the module each
// version really has, never an assumed one.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { withUpstream, type UpstreamName } from '../util/upstream';
import { ensureTestPython } from '../harness/python';
import { resolveAttributes } from '../../core/launch/attributes';
import { commandLine, planLaunch, preflightLaunch } from '../../core/launch/lifecycle';
import type { LayoutVersion } from '../../core/agentjet';

async function preflightIn(
  tree: string,
  root: 'ajet' | 'astuner' | 'astune',
  backbone: 'debug' | 'verl' = 'debug',
  yaml = '',
  cwd?: string,
) {
  const dir = mkdtempSync(join(tmpdir(), 'aj-entry-'));
  try {
    const config = join(dir, 'c.yaml');
    writeFileSync(config, `${root}:\n  experiment_name: entry\n${yaml}`);
    const r = resolveAttributes({ config, cwd: cwd ?? dir, backbone, python: ensureTestPython().python, env: { PYTHONPATH: tree } });
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
          env: { PYTHONPATH: dir, ISOLATED_AGENTJET_BASE_DIR: iso },
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
        env: { PYTHONPATH: dir },
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
