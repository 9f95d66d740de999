// Issue 39 R12 and R16: a skill file is read only as far as an answer needs (a 1.9 GB SKILL.md was
// read whole, 2 GB, to answer 256 KB; past 2 GB the read failed and the skill lost its name), and
// the control characters of a skill's name and description never reach a client raw.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, openSync, closeSync, ftruncateSync, writeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listSkills, printable, readSkillFile } from '../../core/agents/skills';

test('a 3 GB SKILL.md (sparse): its front matter is read and an answer carries the first 256 KB and its size', async () => {
  const pkg = mkdtempSync(join(tmpdir(), 'aj-r12-'));
  try {
    const dir = join(pkg, 'copilot', 'huge');
    mkdirSync(dir, { recursive: true });
    const fd = openSync(join(dir, 'SKILL.md'), 'w');
    writeSync(fd, '---\nname: huge-skill\ndescription: a very long one\n---\n# Huge\n');
    ftruncateSync(fd, 3 * 1024 ** 3);
    closeSync(fd);
    const before = process.memoryUsage().rss;
    const [skill] = await listSkills(pkg);
    assert.ok(skill);
    assert.equal(skill.name, 'huge-skill');
    const text = await readSkillFile(skill, 'SKILL.md');
    assert.ok(text !== undefined && text.startsWith('---\nname: huge-skill'));
    assert.match(text, /\[3221225472 bytes; cut at 262144\]$/);
    // Bounded: nowhere near the file's size was held (a generous margin over the 256 KB answer).
    assert.ok(process.memoryUsage().rss - before < 256 * 1024 ** 2, `rss grew by ${process.memoryUsage().rss - before}`);
  } finally {
    rmSync(pkg, { recursive: true, force: true });
  }
});

test('control characters of a skill name and description are escaped; the rest is kept', async () => {
  assert.equal(printable('ok name: 技能'), 'ok name: 技能');
  assert.equal(printable('a\u001b[31mred\u0007\u009b\u2028'), 'a\\u001b[31mred\\u0007\\u009b\\u2028');
  const pkg = mkdtempSync(join(tmpdir(), 'aj-r16-'));
  try {
    const dir = join(pkg, 'copilot', 'evil\u001b]0;title\u0007');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), '---\ndescription: clear\u001b[2J screen\u0008\u0008\n---\nbody\n');
    const [skill] = await listSkills(pkg);
    assert.ok(skill);
    assert.equal(skill.name, 'evil\\u001b]0;title\\u0007');
    assert.equal(skill.description, 'clear\\u001b[2J screen\\u0008\\u0008');
    assert.ok(!/[\u0000-\u001f]/.test(skill.name + skill.description));
    assert.equal(await readSkillFile(skill, 'SKILL.md'), '---\ndescription: clear\u001b[2J screen\u0008\u0008\n---\nbody\n');
  } finally {
    rmSync(pkg, { recursive: true, force: true });
  }
});
