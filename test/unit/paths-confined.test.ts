// Issue 39 item 3 and R4-R7, R9: every file an agent's tool opens is checked against the roots
// where it is opened (core/fs/inside.ts openInside), so a rotated sibling or a log that links out
// of the root is not read, a link swapped in after the first check never leaks outside content,
// a FIFO is refused without blocking, and experiments reached through links out are not listed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callTool, type AgentToolEnv } from '../../core/agents/tools';
import { isInside, openInside, openInsideSync, RefusedPathError } from '../../core/fs/inside';
import { syncNodeFs } from '../../core/fs/seam';
import { payload, rec } from '../util/smalllogs';
import { writeRun } from '../util/runtree';
import { closeSync } from 'node:fs';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'aj-confined-')));
process.on('exit', () => rmSync(base, { recursive: true, force: true }));

const mkfifo = (p: string): boolean => spawnSync('mkfifo', [p]).status === 0;

/** A root and, beside it, an outside folder whose files say SECRET. */
function layout(name: string): { ws: string; outside: string; env: AgentToolEnv } {
  const ws = join(base, name, 'ws');
  const outside = join(base, name, 'outside');
  mkdirSync(ws, { recursive: true });
  mkdirSync(outside, { recursive: true });
  return { ws, outside, env: { roots: [ws], mayRunPython: false, logCacheDir: join(base, name, 'cache'), workers: 1 } };
}

const record = (task: string, word: string) => rec(payload(1, task, 1, [{ text: ['<|im_start|>', word, ' end'] }]));

test('openInside: a regular file inside opens; a link out, a path through .. out and a FIFO are refused at once', async () => {
  const { ws, outside } = layout('unit');
  writeFileSync(join(ws, 'a.txt'), 'in');
  writeFileSync(join(outside, 'b.txt'), 'SECRET');
  symlinkSync(join(outside, 'b.txt'), join(ws, 'link.txt'));
  const opened = await openInside(join(ws, 'a.txt'), [ws]);
  assert.equal(opened.real, join(ws, 'a.txt'));
  await opened.handle.close();
  await assert.rejects(openInside(join(ws, 'link.txt'), [ws]), (e: unknown) => e instanceof RefusedPathError && e.code === 'EOUTSIDE');
  await assert.rejects(openInside(join(ws, '..', 'outside', 'b.txt'), [ws]), RefusedPathError);
  assert.throws(() => openInsideSync(join(ws, 'link.txt'), [ws]), RefusedPathError);
  // `ws` does not admit `ws-other` (segments, not string prefixes).
  assert.equal(isInside(ws, `${ws}-other/x`), false);
  if (mkfifo(join(ws, 'pipe.txt'))) {
    const t0 = Date.now();
    await assert.rejects(openInside(join(ws, 'pipe.txt'), [ws]), (e: unknown) => e instanceof RefusedPathError && e.code === 'ENOTREG');
    assert.throws(() => openInsideSync(join(ws, 'pipe.txt'), [ws]), RefusedPathError);
    assert.ok(Date.now() - t0 < 2000);
  }
  // Without roots (a path a person typed): any regular file, still never a FIFO.
  const any = openInsideSync(join(ws, 'link.txt'), undefined);
  closeSync(any.handle);
});

test('R6: a rotated sibling (rollout.json.2026-11-01.log) that links out of the root is neither searched nor counted', async () => {
  const { ws, outside, env } = layout('sibling');
  const dir = join(ws, 'run', 'gpu-0', 'rollout');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'rollout.json.log'), record('inside', ' inside'));
  writeFileSync(join(outside, 'other.json.log'), record('secret', ' SECRET') + record('secret2', ' SECRET'));
  symlinkSync(join(outside, 'other.json.log'), join(dir, 'rollout.json.2026-11-01.log'));
  for (const path of [join(dir, 'rollout.json.log'), 'run']) {
    const search = await callTool('agentjet_log_search', { path, query: 'SECRET' }, env);
    assert.equal(search.isError, false, search.text);
    const s = JSON.parse(search.text) as { recordsSearched: number; recordsMatching: number };
    assert.equal(s.recordsMatching, 0, search.text);
    assert.equal(s.recordsSearched, 1, search.text);
    const stats = await callTool('agentjet_log_stats', { path }, env);
    assert.equal(stats.isError, false, stats.text);
    const st = JSON.parse(stats.text) as { records: number; files: string[] };
    assert.equal(st.records, 1, stats.text);
    assert.ok(!st.files.some((f) => f.includes('2026-11-01')), stats.text);
  }
  // The log itself linking out: refused by the first check, named.
  symlinkSync(join(outside, 'other.json.log'), join(ws, 'direct.json.log'));
  const direct = await callTool('agentjet_log_record', { path: 'direct.json.log', index: 0 }, env);
  assert.equal(direct.isError, true);
  assert.doesNotMatch(direct.text, /SECRET/);
});

test('R7: a link swapped in after the first check never leaks outside content (300 calls while a process swaps)', async () => {
  const { ws, outside, env } = layout('swap');
  const dir = join(ws, 'rollout');
  mkdirSync(dir, { recursive: true });
  const main = join(dir, 'rollout.json.log');
  const sibling = join(dir, 'rollout.json.2026-11-01.log');
  // An outside record of the same length as the inside one, so an index built from one lines up with the other.
  const secret = record('inside', ' leaked');
  const inside = record('inside', ' inside');
  assert.equal(secret.length, inside.length);
  writeFileSync(main, inside);
  writeFileSync(sibling, inside);
  writeFileSync(join(outside, 'secret.json.log'), secret);
  // The swapper: atomic renames turn each name into a link out and back into a regular file, without end.
  const script = `
    const fs = require('node:fs');
    const [main, sibling, out, text] = process.argv.slice(1);
    process.stdout.write('go\\n');
    for (let i = 0; ; i++) {
      for (const p of [main, sibling]) {
        const tmp = p + '.tmp' + (i % 2);
        try { fs.rmSync(tmp, { force: true }); if (i % 2) fs.symlinkSync(out, tmp); else fs.writeFileSync(tmp, text); fs.renameSync(tmp, p); } catch {}
      }
    }`;
  const swapper = spawn(process.execPath, ['-e', script, main, sibling, join(outside, 'secret.json.log'), inside], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((r) => swapper.stdout.once('data', () => r()));
  const t0 = Date.now();
  let answered = 0;
  try {
    for (let i = 0; i < 300; i++) {
      const tool = ['agentjet_log_search', 'agentjet_log_record', 'agentjet_log_stats'][i % 3]!;
      const args =
        tool === 'agentjet_log_search'
          ? { path: 'rollout', query: 'leaked' }
          : tool === 'agentjet_log_record'
            ? { path: 'rollout/rollout.json.log', index: 0 }
            : { path: 'rollout' };
      const r = await callTool(tool, args, env);
      assert.doesNotMatch(r.text, /leaked|"recordsMatching": [1-9]/, `${tool} call ${i}: ${r.text.slice(0, 400)}`);
      if (!r.isError) answered++;
    }
  } finally {
    swapper.kill('SIGKILL');
  }
  // Most calls still answer (the swap only makes some of them see a vanished or refused file).
  assert.ok(answered > 30, `answered ${answered} of 300`);
  console.log(`swap: 300 calls in ${Date.now() - t0} ms, ${answered} answered, none leaked`);
});

test('R9: agentjet_runs lists no experiment reached through a link out of the root; lint does not count its configs', async () => {
  const { ws, outside, env } = layout('runs');
  const saved = join(ws, 'saved_experiments');
  mkdirSync(saved, { recursive: true });
  writeRun(saved, { name: 'mine', hosts: [{ rollout: [[1, 0.5]] }] });
  writeRun(join(outside, 'saved'), { name: 'theirs', hosts: [{ rollout: [[1, 0.5]] }] });
  symlinkSync(join(outside, 'saved', 'theirs'), join(saved, 'theirs'));
  // A second project whose saved_experiments itself is a link out.
  mkdirSync(join(ws, 'proj2'));
  symlinkSync(join(outside, 'saved'), join(ws, 'proj2', 'saved_experiments'));
  const runs = await callTool('agentjet_runs', {}, env);
  assert.equal(runs.isError, false, runs.text);
  assert.deepEqual(
    (JSON.parse(runs.text) as { runs: { experiment: string }[] }).runs.map((r) => r.experiment),
    ['mine'],
  );
  const proj2 = await callTool('agentjet_runs', { root: 'proj2' }, env);
  assert.deepEqual((JSON.parse(proj2.text) as { runs: unknown[] }).runs, [], proj2.text);
  // The seam itself: a link out reads as dangling, a read through it is refused.
  const fs = syncNodeFs({ within: [ws] });
  const listed = await fs.readdir(saved);
  assert.equal(listed.find((e) => e.name === 'theirs')?.kind, undefined);
  await assert.rejects(fs.readFile(join(saved, 'theirs', 'yaml_backup.yaml')), RefusedPathError);

  // Lint: configs reached through a link out are neither read nor counted.
  writeFileSync(join(ws, 'mine.yaml'), 'ajet:\n  project_name: p\n  no_such_key_here: 1\n');
  mkdirSync(join(outside, 'cfg'));
  writeFileSync(join(outside, 'cfg', 'theirs.yaml'), 'ajet:\n  project_name: p\n  another_bad_key: 1\n');
  symlinkSync(join(outside, 'cfg'), join(ws, 'cfglink'));
  symlinkSync(join(outside, 'cfg', 'theirs.yaml'), join(ws, 'filelink.yaml'));
  const lint = await callTool('agentjet_lint', { path: '.' }, env);
  assert.equal(lint.isError, false, lint.text);
  const l = JSON.parse(lint.text) as { configsChecked: number; errors: number; warnings: number; diagnostics: { file: string }[] };
  // mine.yaml and the snapshot of the run inside (saved_experiments/mine/yaml_backup.yaml).
  assert.equal(l.configsChecked, 2, lint.text);
  assert.ok(
    l.diagnostics.every((d) => d.file === 'mine.yaml'),
    lint.text,
  );
  assert.doesNotMatch(lint.text, /another_bad_key|theirs/);
});
