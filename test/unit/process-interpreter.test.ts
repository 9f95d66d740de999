// core/process/interpreter.ts: one deadline per interpreter. Questions in flight to a silent
// interpreter end together with the first that runs out of time; later ones are answered from
// memory with the reason, without starting it; a forgotten interpreter is asked again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  askInterpreter,
  askInterpreterSync,
  forgetInterpreter,
  interpreterSilence,
  InterpreterSilentError,
} from '../../core/process/interpreter';

test(
  'a silent interpreter: questions in flight end with the first deadline, later ones are not asked',
  { skip: process.platform === 'win32', timeout: 30_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aj-interp-'));
    const log = join(dir, 'starts');
    const python = join(dir, 'python');
    writeFileSync(python, `#!/bin/sh\necho x >> '${log}'\nsleep 600\n`, { mode: 0o755 });
    const starts = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0);
    try {
      // A short question and a long one at once: the long one ends when the short one finds the silence.
      const results = await Promise.allSettled([
        askInterpreter(python, ['-c', 'a'], { timeoutMs: 500, killGraceMs: 200 }),
        askInterpreter(python, ['-c', 'b'], { timeoutMs: 60_000, killGraceMs: 200 }),
      ]);
      for (const r of results) {
        assert.equal(r.status, 'rejected');
        assert.ok(r.reason instanceof InterpreterSilentError, String(r.reason));
        assert.equal((r.reason as InterpreterSilentError).reason, `\`${python}\` did not answer within 0.5 s`);
      }
      const before = starts();
      assert.match(interpreterSilence(python) ?? '', /did not answer within 0\.5 s/);
      await assert.rejects(askInterpreter(python, ['-c', 'c']), InterpreterSilentError);
      assert.deepEqual(askInterpreterSync(python, ['-c', 'd']), { stdout: '', problem: `\`${python}\` did not answer within 0.5 s` });
      assert.equal(starts(), before, 'a remembered silent interpreter was started again');
      forgetInterpreter(python);
      const sync = askInterpreterSync(python, ['-c', 'e'], { timeoutMs: 300 });
      assert.equal(sync.problem, `\`${python}\` did not answer within 0.3 s`);
      assert.equal(starts(), before + 1);
    } finally {
      forgetInterpreter(python);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('an interpreter that answers is not remembered as silent; a missing one is said plainly', async () => {
  const r = await askInterpreter(process.execPath, ['-e', 'process.stdout.write("ok")']);
  assert.equal(r.stdout, 'ok');
  assert.equal(interpreterSilence(process.execPath), undefined);
  assert.equal(askInterpreterSync(process.execPath, ['-e', 'process.stdout.write("ok")']).stdout, 'ok');
  assert.equal(askInterpreterSync('/no/such/python', ['-V']).problem, '`/no/such/python` does not exist');
});
