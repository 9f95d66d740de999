// The real import of the backbone packages before a launch (core/doctor/importProbe.ts), with real
// stand-in packages on PYTHONPATH: one whose __init__ raises ImportError (a broken dependency), one
// that imports fine, one that does not finish before the deadline.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseImportOutput, probeImports } from '../../core/doctor/importProbe';
import { brokenBackbonePackage } from '../../core/doctor/gateChecks';
import type { Check, DoctorInput, ProbeFacts } from '../../core/doctor/facts';
import type { AgentJetGates } from '../../core/diagnose/gates';
import { ensureTestPython } from '../harness/python';

const python = ensureTestPython().python;
const root = mkdtempSync(join(tmpdir(), 'aj-import-'));
after(() => rmSync(root, { recursive: true, force: true }));
const pkg = (name: string, init: string) => {
  mkdirSync(join(root, name));
  writeFileSync(join(root, name, '__init__.py'), init);
};
pkg('aj_broken', 'import aj_missing_dependency_xyz  # a dependency that is not installed\n');
pkg('aj_fine', 'VALUE = 1\n');
// Waits on a pipe nobody writes to: it ends only when the deadline stops it.
pkg('aj_slow', 'import os\nr, w = os.pipe()\nos.read(r, 1)\n');
const env = { ...process.env, PYTHONPATH: root };

test('a package whose __init__ raises ImportError: the exception line is the cause; a sound one imports', async () => {
  const { outcomes } = await probeImports(python, ['aj_broken', 'aj_fine'], { cwd: root, env });
  assert.equal(outcomes.aj_broken?.ok, false);
  assert.equal(outcomes.aj_broken?.error, "ModuleNotFoundError: No module named 'aj_missing_dependency_xyz'");
  assert.equal(outcomes.aj_fine?.ok, true);
});

test('a package that does not finish importing is ended by the deadline and reported as slow', async () => {
  const { outcomes, deadlineMs } = await probeImports(python, ['aj_fine', 'aj_slow'], { cwd: root, env, timeoutMs: 1500 });
  assert.equal(deadlineMs, 1500);
  assert.equal(outcomes.aj_fine?.ok, true, 'what finished before the deadline is kept');
  assert.equal(outcomes.aj_slow?.timedOut, true);
});

test('an interpreter that does not exist gives no outcome, and output a package prints is ignored', async () => {
  const r = await probeImports(join(root, 'no-python'), ['aj_fine'], { cwd: root, env });
  assert.deepEqual(r.outcomes, {});
  assert.deepEqual(parseImportOutput('AGENTJET_IMPORT {not json\nhello\n', false), {});
});

const facts: ProbeFacts = {
  python,
  version: '3.11.0',
  venv: true,
  packages: {
    ajet: { module: 'ajet', found: true, version: '1', location: '/x/ajet/__init__.py', launcher: null, error: null },
    verl: { module: 'verl', found: true, version: '0.7.0', location: '/x/verl/__init__.py', launcher: null, error: null },
  },
  port: { port: 0, inUse: false },
};
const gates = {
  verlCheck: true,
  importsVerl: true,
  backboneImports: {},
  from: '/x/ajet/utils/launch_utils.py',
} as unknown as AgentJetGates;
const check: Check = { id: 'verl', title: 'verl', status: 'ok', detail: 'verl 0.7.0' };
const input = (outcome: DoctorInput['imports']): DoctorInput => ({
  python,
  probe: { ok: true, facts },
  gpu: { available: false, gpus: [], error: null },
  gates,
  launch: { candidates: [], companionPgids: [], portKey: 'ajet.debug.debug_vllm_port', backbone: 'debug' },
  ...(outcome ? { imports: outcome } : {}),
});

test('the check: a broken import is an error naming the exception and a fix; a slow one a warning the launch goes on with', () => {
  const broken = brokenBackbonePackage(
    input({
      outcomes: { verl: { module: 'verl', ok: false, error: "ImportError: cannot import name 'x' from 'tensordict'" } },
      deadlineMs: 30000,
    }),
    facts,
    python,
    check,
    'verl',
    undefined,
  );
  assert.equal(broken?.status, 'error');
  assert.match(broken?.detail ?? '', /importing it fails: ImportError: cannot import name 'x' from 'tensordict'/);
  assert.match(broken?.detail ?? '', /launch_utils\.py/);
  assert.ok(broken?.fix, 'a fix is offered');
  const slow = brokenBackbonePackage(
    input({ outcomes: { verl: { module: 'verl', ok: false, timedOut: true } }, deadlineMs: 30000 }),
    facts,
    python,
    check,
    'verl',
    undefined,
  );
  assert.equal(slow?.status, 'warning');
  assert.equal(slow?.launchWarning, true);
  assert.match(slow?.detail ?? '', /did not finish within 30 s/);
  assert.equal(
    brokenBackbonePackage(
      input({ outcomes: { verl: { module: 'verl', ok: true } }, deadlineMs: 1 }),
      facts,
      python,
      check,
      'verl',
      undefined,
    ),
    undefined,
  );
  assert.equal(brokenBackbonePackage(input(undefined), facts, python, check, 'verl', undefined), undefined);
});

test('the launch preflight imports a sound backbone once per interpreter and folder, a broken one at every launch', async () => {
  const { checkForLaunch } = await import('../../core/doctor/preflight');
  const { probeScript } = await import('../../core/doctor/probeText');
  const probeText = await probeScript();
  // Two folders, each a stand-in `verl` that counts its imports in a file beside it.
  const standIn = (name: string, broken: boolean) => {
    const dir = join(root, name);
    mkdirSync(join(dir, 'verl'), { recursive: true });
    const count = join(dir, 'imports.txt');
    writeFileSync(
      join(dir, 'verl', '__init__.py'),
      `open(${JSON.stringify(count)}, 'a').write('x')\n__version__ = '0.7.0.post1'\n` +
        (broken ? 'import aj_missing_dependency_xyz\n' : ''),
    );
    return { dir, imports: () => (existsSync(count) ? readFileSync(count, 'utf8').length : 0) };
  };
  const launch = { candidates: [], companionPgids: [], portKey: 'ajet.debug.debug_vllm_port', backbone: 'debug' } as const;
  for (const [name, broken, expected] of [
    ['sound', false, 1],
    ['broken', true, 2],
  ] as const) {
    const s = standIn(name, broken);
    const o = {
      python,
      script: probeText,
      cwd: s.dir,
      port: 0,
      wantDebugpy: false,
      trusted: true,
      env: { ...process.env, PYTHONPATH: s.dir },
      launch,
    };
    await checkForLaunch(o);
    await checkForLaunch(o);
    assert.equal(s.imports(), expected, `${name}: imports over two launches`);
  }
});

test('without a launch (Check Environment, agentjet doctor): an error when every launch imports it, else a warning naming the backbone', () => {
  const failing: DoctorInput['imports'] = {
    outcomes: {
      verl: { module: 'verl', ok: false, error: 'ImportError: no tensordict' },
      trinity: { module: 'trinity', ok: false, error: 'ImportError: no vllm' },
    },
    deadlineMs: 30000,
  };
  const { launch: _launch, ...noLaunch } = input(failing);
  const withTrinity: ProbeFacts = {
    ...facts,
    packages: {
      ...facts.packages,
      trinity: { module: 'trinity', found: true, version: '0.3', location: '/x/trinity/__init__.py', launcher: null, error: null },
    },
  };
  const every = brokenBackbonePackage(noLaunch, withTrinity, python, check, 'verl', undefined);
  assert.equal(every?.status, 'error');
  assert.match(every?.detail ?? '', /launch_utils\.py/);
  const byEntry = {
    ...noLaunch,
    gates: {
      ...gates,
      importsVerl: false,
      backboneImports: { trinity: { packages: ['trinity'], file: '/x/ajet/backbone/main_trinity.py' } },
    } as AgentJetGates,
  };
  const trinity = brokenBackbonePackage(byEntry, withTrinity, python, check, 'trinity', undefined);
  assert.equal(trinity?.status, 'warning');
  assert.match(trinity?.detail ?? '', /--backbone trinity imports it first \(\/x\/ajet\/backbone\/main_trinity\.py\)/);
  assert.match(trinity?.detail ?? '', /ImportError: no vllm/);
  assert.ok(trinity?.fix);
  // verl is imported by no entry and not by verify_python_env here: nothing to say.
  assert.equal(brokenBackbonePackage(byEntry, withTrinity, python, check, 'verl', undefined), undefined);
});

test('gather with imports: what the probe found is imported for real from the folder; untrusted, nothing is', async () => {
  const { gather } = await import('../../core/doctor/run');
  const { probeScript } = await import('../../core/doctor/probeText');
  const dir = join(root, 'doctor-folder');
  mkdirSync(join(dir, 'verl'), { recursive: true });
  writeFileSync(join(dir, 'verl', '__init__.py'), 'import aj_missing_dependency_xyz\n');
  const base = { python, script: await probeScript(), cwd: dir, port: 0, env: { ...process.env, PYTHONPATH: '' } };
  const got = await gather({ ...base, imports: true });
  assert.equal(got.imports?.outcomes.verl?.ok, false);
  assert.match(got.imports?.outcomes.verl?.error ?? '', /aj_missing_dependency_xyz/);
  assert.equal(got.imports?.outcomes.trinity, undefined, 'not installed: not imported');
  assert.equal((await gather({ ...base, imports: true, trusted: false })).imports, undefined);
  assert.equal((await gather(base)).imports, undefined);
});
