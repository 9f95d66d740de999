// Issue 39 item 3 for the class-reference resolver: the `.py` a reference resolves to
// (`module.path->ClassName`, `path/to/file.py->ClassName`, what it imports) is read through the
// open-time real-path check (core/fs/inside.ts). A link out of the workspace folder, or one swapped
// in after a first read, is not read: nothing of the outside file reaches a message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassResolver, parseClassRef, type ClassRef, type Resolution } from '../../core/config/classref';
import { CachedFs } from '../../core/config/fs';
import { loadPython } from '../../core/config/pyparse';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'aj-classref-inside-')));
const ws = join(base, 'ws');
const outside = join(base, 'outside');
const site = join(base, 'site');

before(async () => {
  await loadPython();
  mkdirSync(join(ws, 'pkg'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  mkdirSync(join(site, 'extpkg'), { recursive: true });
  writeFileSync(join(outside, 'secret.py'), 'class SecretOutsideClass:\n    pass\n');
  writeFileSync(join(ws, 'own.py'), 'class MyWorkflow:\n    pass\n');
  writeFileSync(join(ws, 'pkg', '__init__.py'), '');
  writeFileSync(join(ws, 'pkg', 'reexport.py'), 'from outlink import SecretOutsideClass\n');
  symlinkSync(join(outside, 'secret.py'), join(ws, 'outlink.py'));
  symlinkSync(join(ws, 'own.py'), join(ws, 'inlink.py'));
  writeFileSync(join(site, 'extpkg', '__init__.py'), 'class Installed:\n    pass\n');
});

after(() => rmSync(base, { recursive: true, force: true }));

const ref = (s: string) => parseClassRef(s) as ClassRef;
const resolver = () => new ClassResolver(new CachedFs(0), { locate: (name) => (name === 'extpkg' ? site : null), configured: true });
const said = (r: Resolution) => JSON.stringify(r);

test('a module that is a link out of the folder is not read: not confirmed, and no outside class is named', () => {
  const r = resolver();
  for (const target of ['outlink->SecretOutsideClass', 'outlink->Nope', 'outlink.py->SecretOutsideClass', '../outside/secret.py->Nope']) {
    const res = r.resolve(ref(target), ws);
    assert.notEqual(res.ok, true, `${target}: ${said(res)}`);
    assert.doesNotMatch(said(res), /SecretOutsideClass.*classes|classes: SecretOutsideClass/, target);
    assert.equal(res.ok, 'unchecked', `${target}: ${said(res)}`);
    assert.match(said(res), /outside the workspace folder/);
  }
  assert.equal(r.module(join(ws, 'outlink.py'), ws), undefined);
});

test('an import that leads out through a link is not followed; links inside and installed packages still are', () => {
  const r = resolver();
  const re = r.resolve(ref('pkg.reexport->SecretOutsideClass'), ws);
  // The name is imported there: the import line is pointed at, the outside file never read.
  assert.equal(re.ok, true, said(re));
  assert.equal(re.ok === true && re.file, join(ws, 'pkg', 'reexport.py'));
  const inside = r.resolve(ref('inlink->MyWorkflow'), ws);
  assert.equal(inside.ok, true, said(inside));
  const installed = r.resolve(ref('extpkg->Installed'), ws);
  assert.equal(installed.ok, true, said(installed));
});

test('a file read once and then swapped for a link out is not read again', () => {
  const r = resolver();
  const f = join(ws, 'swapped.py');
  writeFileSync(f, 'class Before:\n    pass\n');
  assert.equal(r.resolve(ref('swapped->Before'), ws).ok, true);
  unlinkSync(f);
  symlinkSync(join(outside, 'secret.py'), f);
  const res = r.resolve(ref('swapped->SecretOutsideClass'), ws);
  assert.notEqual(res.ok, true, said(res));
  assert.doesNotMatch(said(res), /classes: /);
});
