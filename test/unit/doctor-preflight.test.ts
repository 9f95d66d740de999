// `agentjet doctor` and the launch preflight are one set of checks: on the same environments (a
// real interpreter, fake packages on PYTHONPATH, a port held by this test) the doctor's findings
// and the launch's verdict agree, word for word.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { evaluate, type Check } from '../../core/doctor/checks';
import { gather } from '../../core/doctor/run';
import { probeScript } from '../../core/doctor/probeText';
import { resolveAttributes } from '../../core/launch/attributes';
import { planLaunch, preflightLaunch } from '../../core/launch/lifecycle';
import { ensureTestPython } from '../harness/python';

const venvPython = ensureTestPython().python;
/**
 * A Python without debugpy, whatever the machine has installed: a fresh venv (no pip, no system
 * site-packages, where Debian's python3-debugpy lives) of the interpreter the tests' venv was made from.
 */
const bareDir = mkdtempSync(join(tmpdir(), 'aj-bare-venv-'));
const base = execFileSync(venvPython, ['-c', 'import sys; print(sys.base_prefix)'], { encoding: 'utf8' }).trim() + '/bin/python3';
execFileSync(base, ['-m', 'venv', '--without-pip', bareDir], { stdio: 'ignore' });
const bare = join(bareDir, 'bin', 'python3');
after(() => rmSync(bareDir, { recursive: true, force: true }));

/** `blocking`: what refuses the launch; `alsoDoctor`: what the doctor adds (the framework package, which a launch does not need itself). */
interface Env {
  name: string;
  python: string;
  ajet: 'launcher' | 'package only' | 'none';
  port: boolean;
  blocking: Check['id'][];
  alsoDoctor?: Check['id'][];
}
const ENVS: Env[] = [
  { name: 'complete', python: venvPython, ajet: 'launcher', port: false, blocking: [] },
  { name: 'ajet without its launcher module', python: venvPython, ajet: 'package only', port: false, blocking: ['launcher'] },
  { name: 'no ajet at all', python: venvPython, ajet: 'none', port: false, blocking: ['launcher'], alsoDoctor: ['framework'] },
  { name: 'no debugpy', python: bare, ajet: 'launcher', port: false, blocking: ['debugpy'] },
  { name: 'the vLLM port held by a stranger', python: venvPython, ajet: 'launcher', port: true, blocking: ['port'] },
];

for (const e of ENVS) {
  test(`doctor and preflight agree: ${e.name}`, async () => {
    if (e.python === bare)
      assert.throws(() => execFileSync(bare, ['-c', 'import debugpy'], { stdio: 'ignore' }), 'the bare venv has no debugpy');
    const dir = mkdtempSync(join(tmpdir(), 'aj-agree-'));
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const busy = (srv.address() as AddressInfo).port;
    if (!e.port) await new Promise((r) => srv.close(r));
    try {
      const site = join(dir, 'site');
      if (e.ajet !== 'none') {
        mkdirSync(join(site, 'ajet'), { recursive: true });
        writeFileSync(join(site, 'ajet', '__init__.py'), '');
        if (e.ajet === 'launcher') writeFileSync(join(site, 'ajet', 'launcher.py'), 'raise SystemExit(0)\n');
      }
      const port = e.port ? busy : 1;
      const config = join(dir, 'c.yaml');
      writeFileSync(config, `ajet:\n  experiment_name: agree\n  debug:\n    debug_vllm_port: ${port}\n`);
      const env = { PYTHONPATH: site };
      // The doctor: every version's launcher candidates, GPUs, the port.
      const input = await gather({ python: e.python, script: await probeScript(), cwd: dir, env: { ...process.env, ...env }, port });
      const doctor = evaluate(input);
      const doctorErrors = doctor.filter((c) => c.status === 'error' || (c.id === 'port' && c.status !== 'ok'));
      assert.deepEqual(
        doctorErrors.map((c) => c.id).sort(),
        [...e.blocking, ...(e.alsoDoctor ?? [])].sort(),
        'the doctor names the same problem',
      );
      // The launch (F5 with debugging) on the same interpreter, folder and port.
      const planned = await planLaunch(resolveAttributes({ config, cwd: dir, python: e.python, env }), { lint: false });
      assert.ok(planned.ok);
      const pre = await preflightLaunch(planned.plan, true);
      if (e.blocking.length === 0) {
        assert.ok(pre.ok, pre.ok ? '' : pre.refusal.message);
        assert.deepEqual(pre.target, { kind: 'module', module: 'ajet.launcher' });
        assert.equal(doctor.find((c) => c.id === 'launcher')?.detail.startsWith('python -m ajet.launcher '), true);
      } else {
        assert.ok(!pre.ok, 'the launch is refused');
        assert.deepEqual(
          pre.refusal.kinds,
          e.blocking.map((id) => (id === 'launcher' ? 'framework' : id)),
        );
        for (const c of doctorErrors.filter((x) => e.blocking.includes(x.id)))
          assert.ok(
            pre.refusal.message.includes(c.detail),
            `the refusal says what the doctor says: ${c.detail}\n---\n${pre.refusal.message}`,
          );
        if (e.blocking.includes('debugpy'))
          assert.equal(pre.refusal.installCommand, doctor.find((c) => c.id === 'debugpy')?.fix?.value, 'the same install command');
      }
    } finally {
      if (e.port) await new Promise((r) => srv.close(r));
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
