// Issue 22 item 11: class references into Python files over the 4 MB read limit. Never a false "not
// defined": a streamed scan finds the class header, or the reference is reported as not checked.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lintText } from '../../core/config/lint';
import { parseConfig } from '../../core/config/parse';
import { definition } from '../../core/config/hover';
import { ClassResolver } from '../../core/config/classref';
import { CachedFs, scanLines } from '../../core/config/fs';
import { check, fc } from '../util/fc';

const dir = mkdtempSync(join(tmpdir(), 'ajet-largepy-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A Python module of about `mb` MB whose filler comes first and `tail` last. */
function bigModule(name: string, mb: number, tail: string): string {
  const line = 'VALUE_' + 'x'.repeat(60) + ' = "' + 'y'.repeat(40) + '"\n';
  const body = line.repeat(Math.ceil((mb * 1048576) / line.length));
  const file = join(dir, 'pkg', `${name}.py`);
  mkdirSync(join(dir, 'pkg'), { recursive: true });
  writeFileSync(join(dir, 'pkg', '__init__.py'), '');
  writeFileSync(file, '# generated\n' + body + tail);
  return file;
}

const config = (ref: string) =>
  `ajet:\n  model:\n    path: Qwen/Qwen2.5-7B\n  task_reader:\n    type: env_service\n  rollout:\n    user_workflow: ${ref}\n`;

// Checked: without the fix this gives `class-ref/missing-class` (error) for a class that exists.
test('issue 22 #11: a class at the end of a 5 MB module resolves (streamed scan), with go to definition', () => {
  bigModule('huge', 5, 'class BigWorkflow(Workflow):\n    pass\n');
  const text = config('pkg.huge->BigWorkflow');
  const d = lintText(text, { root: dir }).diagnostics.filter((x) => x.code.startsWith('class-ref'));
  assert.deepEqual(d, []);
  const p = parseConfig(text);
  const off = text.indexOf('BigWorkflow') + 2;
  const def = definition(p, off, { root: dir, resolver: new ClassResolver(new CachedFs()) });
  assert.ok(def && 'file' in def, JSON.stringify(def));
  assert.equal(def.character, 0);
  assert.ok(def.line > 10_000);
});

test('issue 22 #11: a 5 MB module without the class header: information that it was not checked, never an error', () => {
  bigModule('reexp', 5, 'from .other import Imported\n');
  const d = lintText(config('pkg.reexp->Imported'), { root: dir }).diagnostics.filter((x) => x.code.startsWith('class-ref'));
  assert.deepEqual(
    d.map((x) => [x.code, x.severity]),
    [['class-ref/unchecked', 'information']],
  );
  assert.match(d[0]?.message ?? '', /too large to read whole/);
});

test('issue 22 #11: a small module still gets the real "not defined" error', () => {
  writeFileSync(join(dir, 'pkg', 'small.py'), 'class Other:\n    pass\n');
  const d = lintText(config('pkg.small->Missing'), { root: dir }).diagnostics.filter((x) => x.code.startsWith('class-ref'));
  assert.deepEqual(
    d.map((x) => x.code),
    ['class-ref/missing-class'],
  );
});

test('property: the streamed line scan finds what a whole-text search finds, across any chunk boundary', () => {
  const file = join(dir, 'scan.txt');
  const piece = fc.constantFrom('class A', 'class B:', 'x = 1', 'é', '中文', '😀', '\r', '', ' ', 'classB', '\tclass A');
  check(
    fc.property(fc.array(fc.array(piece, { maxLength: 4 }), { maxLength: 30 }), fc.integer({ min: 1, max: 64 }), (lines, chunk) => {
      const text = lines.map((l) => l.join('')).join('\n');
      writeFileSync(file, text);
      const re = /^class\s+A\b/;
      const want = (() => {
        const ls = text.split('\n');
        for (let i = 0; i < ls.length; i++) {
          const l = (ls[i] as string).replace(/\r$/, '');
          const m = re.exec(l);
          if (m) return { line: i, character: m.index };
        }
        return null;
      })();
      assert.deepEqual(scanLines(file, re, 1 << 20, chunk), want);
    }),
    300,
  );
  assert.equal(scanLines(join(dir, 'nope.txt'), /x/), undefined);
  assert.equal(scanLines(dir, /x/), undefined, 'a folder is not scanned');
});
