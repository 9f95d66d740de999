// The lint of the agent tools in the extension host never blocks (issue 42): without `mayBlock`,
// lintPaths reads the disk and asks the interpreter asynchronously (core/config/prefetchFs.ts) and
// answers what the blocking lint of the CLI answers; a call with a silent interpreter is cancelled
// by its signal, and the interpreter it started is ended.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lintPaths } from '../../core/config/lintPaths';
import { forgetInterpreter } from '../../core/process/interpreter';
import { waitFor } from '../util/poll';

const config = (workflow: string, judge: string, dataset = 'data/train.jsonl') => `ajet:
  project_name: p
  experiment_name: e
  task_reader:
    type: jsonl_dataset_file
    jsonl_dataset_file:
      training:
        file_path: ${dataset}
  task_judge:
    judge_protocol: ${judge}
  rollout:
    user_workflow: ${workflow}
`;

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'aj-lint-nb-'));
  mkdirSync(join(ws, 'pkg', 'sub'), { recursive: true });
  mkdirSync(join(ws, 'data'));
  writeFileSync(join(ws, 'data', 'train.jsonl'), '{}\n');
  writeFileSync(join(ws, 'pkg', '__init__.py'), '');
  writeFileSync(join(ws, 'pkg', 'mod.py'), 'from .base import Base\n\nclass Flow(Base):\n    pass\n');
  writeFileSync(join(ws, 'pkg', 'base.py'), 'class Base:\n    pass\n');
  writeFileSync(join(ws, 'pkg', 'sub', '__init__.py'), 'from ..mod import Flow as Again\n');
  // Past the size the parser takes: found by a line scan.
  writeFileSync(join(ws, 'pkg', 'huge.py'), `${'# filler\n'.repeat(500_000)}class Big:\n    pass\n`);
  writeFileSync(join(ws, 'a.yaml'), config('pkg.mod->Flow', 'pkg.mod->Nope'));
  writeFileSync(join(ws, 'b.yaml'), config('pkg/mod.py->Flow', 'absent_pkg.judge->J', 'data/none.jsonl'));
  writeFileSync(join(ws, 'c.yaml'), config('pkg.huge->Big', 'pkg.sub->Again'));
  writeFileSync(join(ws, 'd.yaml'), config('pkg.huge->Small', 'pkg.base->Base'));
  return ws;
}

test('without blocking, the lint answers what the blocking lint answers (modules, files, re-exports, a huge module, missing ones)', async () => {
  const ws = workspace();
  try {
    const blocking = await lintPaths([ws], { root: ws, runPython: false, factsCacheDir: '', mayBlock: true });
    const free = await lintPaths([ws], { root: ws, runPython: false, factsCacheDir: '' });
    assert.equal(free.checked, 4);
    const shape = (r: typeof free) => r.files.map((f) => ({ file: f.file, d: f.diagnostics.map((d) => `${d.code} ${d.message}`).sort() }));
    assert.deepEqual(shape(free), shape(blocking));
    const all = free.files.flatMap((f) => f.diagnostics.map((d) => `${f.file.slice(ws.length + 1)} ${d.code}`));
    // The checks did run: what is missing is said, what exists is not.
    assert.ok(all.includes('a.yaml class-ref/missing-class'), all.join('\n'));
    assert.ok(all.includes('b.yaml class-ref/missing-module'), all.join('\n'));
    assert.ok(all.includes('d.yaml class-ref/unchecked'), all.join('\n'));
    assert.ok(!all.some((d) => d.startsWith('c.yaml class-ref')), all.join('\n'));
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test('a lint whose interpreter does not answer ends when its signal aborts, and the interpreter is ended', async () => {
  const ws = workspace();
  const marks = join(ws, 'started');
  const python = join(ws, 'silent-python');
  // Notes each start (its pid), then waits far past any deadline of the test.
  writeFileSync(python, `#!/bin/sh\necho $$ >> ${marks}\nexec sleep 600\n`);
  chmodSync(python, 0o755);
  forgetInterpreter(python);
  try {
    const ac = new AbortController();
    const linting = lintPaths([join(ws, 'b.yaml')], { root: ws, python, factsCacheDir: '', signal: ac.signal });
    // Only a lint that leaves this thread free lets the wait below see the interpreter start.
    const pid = await waitFor(() => existsSync(marks) && Number(readFileSync(marks, 'utf8').split('\n')[0]), 'the interpreter to start');
    ac.abort();
    const res = await linting;
    assert.ok(res.checked <= 1);
    // Cancelled, not run to the interpreter's deadline (a blocking probe would have).
    assert.doesNotMatch(res.interpreterProblem ?? '', /did not answer/);
    await waitFor(() => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    }, 'the silent interpreter to be ended');
  } finally {
    forgetInterpreter(python);
    rmSync(ws, { recursive: true, force: true });
  }
});
