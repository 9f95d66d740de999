// Issue 39 R4, R5: skill files are read long after they were listed (an MCP client asks when it
// likes). A FIFO swapped in for one is refused at once (it used to hang the read and, four at a
// time, Node's I/O pool); a SKILL.md or skill file that links out of the package is neither listed
// nor served, also when the link is swapped in after the listing.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listSkills, readSkillFile, skillFileBytes } from '../../core/agents/skills';
import { skipForEnvironment } from '../util/envSkip';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'aj-skills-confined-')));
process.on('exit', () => rmSync(base, { recursive: true, force: true }));

function pkgWith(name: string): { pkg: string; outside: string } {
  const pkg = join(base, name, 'ajet');
  const outside = join(base, name, 'outside');
  mkdirSync(join(pkg, 'copilot', 'good'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(pkg, 'copilot', 'good', 'SKILL.md'), '---\nname: good\ndescription: fine\n---\nbody\n');
  writeFileSync(join(pkg, 'copilot', 'good', 'more.md'), 'more\n');
  writeFileSync(join(outside, 'secret.md'), '---\nname: stolen\ndescription: SECRET\n---\nSECRET body\n');
  return { pkg, outside };
}

/** Releases whatever still waits to open `fifo` (a writer side that never writes), then removes it. */
function release(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK));
  } catch {
    /* gone already */
  }
}

test('R5: a SKILL.md that links out of the package is not listed; a skill folder of links out neither', async () => {
  const { pkg, outside } = pkgWith('listed');
  mkdirSync(join(pkg, 'copilot', 'evil'));
  symlinkSync(join(outside, 'secret.md'), join(pkg, 'copilot', 'evil', 'SKILL.md'));
  const skills = await listSkills(pkg);
  assert.deepEqual(
    skills.map((s) => s.name),
    ['good'],
  );
  assert.doesNotMatch(JSON.stringify(skills), /SECRET|stolen/);
  // The whole copilot folder linking out: no skills at all.
  const other = join(base, 'listed', 'ajet2');
  mkdirSync(other);
  symlinkSync(join(pkg, 'copilot'), join(other, 'copilot'));
  assert.deepEqual(await listSkills(other), []);
});

test('R5: a link out swapped in after the listing is not served (read, copy)', async () => {
  const { pkg, outside } = pkgWith('swapped');
  const [skill] = await listSkills(pkg);
  assert.ok(skill);
  assert.deepEqual(skill.files, ['SKILL.md', 'more.md']);
  for (const f of skill.files) {
    const p = join(pkg, 'copilot', 'good', f);
    symlinkSync(join(outside, 'secret.md'), `${p}.tmp`);
    renameSync(`${p}.tmp`, p);
    assert.equal(await readSkillFile(skill, f), undefined, f);
    assert.equal(await skillFileBytes(skill, f), undefined, f);
  }
});

test(
  'R4: a FIFO swapped in for a skill file is refused at once, many times over, and the I/O pool stays free',
  { timeout: 20_000 },
  async (t) => {
    const { pkg } = pkgWith('fifo');
    const [skill] = await listSkills(pkg);
    assert.ok(skill);
    const p = join(pkg, 'copilot', 'good', 'more.md');
    rmSync(p);
    if (skipForEnvironment(t, spawnSync('mkfifo', [p]).status !== 0 ? 'mkfifo is not available' : undefined)) return;
    const t0 = Date.now();
    try {
      // More reads at once than Node's I/O pool has threads (4): a blocking open would take them all.
      const answers = await Promise.all(Array.from({ length: 16 }, () => readSkillFile(skill, 'more.md')));
      assert.deepEqual(answers, new Array(16).fill(undefined));
      assert.equal(await skillFileBytes(skill, 'more.md'), undefined);
      // The pool still works: a plain read (it runs on the pool) answers.
      assert.match(await readFile(join(pkg, 'copilot', 'good', 'SKILL.md'), 'utf8'), /name: good/);
      const ms = Date.now() - t0;
      assert.ok(ms < 5000, `${ms} ms`);
      console.log(`fifo: 16 reads refused in ${ms} ms`);
    } finally {
      release(p);
    }
  },
);
