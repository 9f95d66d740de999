// Why a run failed: a corpus of failure logs made from the real messages (test/gen/failures.ts names
// each message's source), each classified with its code and evidence line; logs without a failure get
// no cause. AgentJet's own gates are read from its source (upstream trees), bounded reads of huge
// and binary files, and properties: a signature line anywhere is found at its line, noise never is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, openSync, writeSync, closeSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyText, classifyFile, gatesFromSource, BUNDLED_GATES, verlAllowed, SIGNATURES, CAUSE_CODES } from '../../core/diagnose';
import { reexplain } from '../../core/diagnose/classify';
import { syncNodeFs, nodeFs } from '../../core/fs/seam';
import { FAILURE_CASES, CLEAN_LOGS } from '../gen/failures';
import { withUpstream } from '../util/upstream';
import { checkProperty, fc } from '../util/prop';
import { setLocale } from '../../core/l10n';

for (const c of FAILURE_CASES) {
  test(`corpus: ${c.name} -> ${c.code} at line ${c.line} (${c.origin})`, () => {
    const causes = classifyText(c.log);
    assert.equal(causes.length, 1, JSON.stringify(causes, null, 1));
    const k = causes[0]!;
    assert.equal(k.code, c.code);
    assert.equal(k.line, c.line, 'the evidence line');
    const lines = c.log.split('\n');
    // The first evidence line is the log's line `line`, cleaned (colour codes and Ray prefixes gone).
    assert.ok(lines[k.line - 1]!.includes(k.evidence[0]!.slice(0, 60).replace(/…$/, '')), `${k.evidence[0]} is on line ${k.line}`);
    assert.ok(k.message.length > 10 && k.fix.length > 10);
    if (c.says) assert.match(`${k.message} ${k.fix}`, c.says);
    if (c.action?.configKey) {
      const edit = k.action?.config?.find((e) => e.key === c.action!.configKey);
      assert.ok(edit, `the fix edits ${c.action.configKey}: ${JSON.stringify(k.action)}`);
      if (c.action.configValue !== undefined && typeof edit.value !== 'number') assert.equal(edit.value, c.action.configValue);
      else if (c.action.configValue !== undefined) assert.equal(edit.value, c.action.configValue);
    }
    if (c.action?.env) assert.equal(k.action?.env?.name, c.action.env);
    if (c.action?.command) assert.match(k.action?.command ?? '', c.action.command);
  });
}

test('corpus: every cause code the issue names has a case, and every signature a named origin', () => {
  for (const code of CAUSE_CODES)
    assert.ok(
      FAILURE_CASES.some((c) => c.code === code),
      `a case for ${code}`,
    );
  for (const s of SIGNATURES) assert.match(s.origin, /\S+ \S+/, `${s.needle}: origin names repository and file`);
});

for (const c of CLEAN_LOGS)
  test(`corpus: no cause in "${c.name}"`, () => {
    assert.deepEqual(classifyText(c.log), []);
  });

test('zh-CN: causes speak Chinese under --lang zh-cn', () => {
  setLocale('zh-cn');
  try {
    const k = classifyText(FAILURE_CASES.find((c) => c.code === 'cuda-oom')!.log)[0]!;
    assert.match(k.message, /显存/);
  } finally {
    setLocale('en');
  }
});

test('a traceback explained by a signature is not also a workflow exception; a user frame alone is', () => {
  const wf = FAILURE_CASES.find((c) => c.code === 'workflow-exception')!;
  const oom = FAILURE_CASES.find((c) => c.code === 'host-oom')!;
  const both = classifyText(wf.log + oom.log);
  assert.deepEqual(
    both.map((c) => c.code),
    ['host-oom'],
  );
  assert.equal(classifyText(wf.log)[0]!.frame?.file, '/home/me/proj/math_workflow.py');
});

test(
  "gates: read from AgentJet's own launch_utils.py (c68c154 accepts 0.7.1, d20cce0 does not; debugpy 1.8.0 in launcher.py)",
  withUpstream('agentjet-c68c154', (dir) => {
    const g = gatesFromSource([{ path: 'launch_utils.py', text: readFileSync(join(dir, 'ajet/utils/launch_utils.py'), 'utf8') }]);
    assert.ok(g);
    assert.deepEqual(g.verlAccepted, BUNDLED_GATES.verlAccepted);
    assert.deepEqual(g.trinityRefused, ['0.5.0.post', '0.7.0.post']);
    assert.equal(g.debugpyMin, '1.8.0');
    assert.equal(g.swanlabKey, true);
    assert.equal(verlAllowed(g, '0.7.1', 'verl'), true);
    assert.equal(verlAllowed(g, '0.4.1', 'verl'), false);
    assert.equal(verlAllowed(g, '0.5.0.post1', 'trinity'), false);
  }),
);

test(
  'gates: the older AgentJet (d20cce0) refuses verl 0.7.1, and the cause says what it accepts',
  withUpstream('agentjet-d20cce0', (dir) => {
    const g = gatesFromSource([
      { path: 'launch_utils.py', text: readFileSync(join(dir, 'ajet/utils/launch_utils.py'), 'utf8') },
      { path: 'launcher.py', text: readFileSync(join(dir, 'ajet/launcher.py'), 'utf8') },
    ]);
    assert.ok(g);
    assert.deepEqual(g.verlAccepted, ['0.5.0.post', '0.5.0.dev', '0.7.0.post']);
    assert.equal(g.debugpyMin, '1.8.0');
    assert.equal(verlAllowed(g, '0.7.1', 'verl'), false);
    const k = classifyText(FAILURE_CASES.find((c) => c.code === 'env-verl-version')!.log)[0]!;
    assert.match(reexplain(k, g).message, /0\.7\.0\.post/);
    assert.doesNotMatch(reexplain(k, g).message, /0\.7\.1/);
  }),
);

const tmp = () => mkdtempSync(join(tmpdir(), 'agentjet-diagnose-'));

test('bounds: a 48 MB log is read from its tail, with the line numbers of the whole file', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'big.log');
    const fd = openSync(p, 'w');
    const line = '(TaskRunner pid=1) step:1 - critic/score/mean:0.5 - ' + 'x'.repeat(60) + '\n';
    const chunk = line.repeat(8192);
    let lines = 0;
    for (let i = 0; i < 80; i++) {
      writeSync(fd, chunk);
      lines += 8192;
    }
    writeSync(fd, 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.\n');
    closeSync(fd);
    const fs = nodeFs();
    const r = await classifyFile(fs, p, 'file', { maxBytes: 1024 * 1024 });
    assert.equal(r.causes.length, 1);
    assert.equal(r.causes[0]!.line, lines + 1);
    assert.ok(r.bytes <= 1024 * 1024, `read ${r.bytes} bytes of ${r.size}`);
    assert.equal(r.causes[0]!.lineBase, undefined, 'counted from the file start');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bounds: binary input, NULs and a 20 MB line without a newline: no crash, no cause, bounded read', async () => {
  const dir = tmp();
  try {
    const bin = join(dir, 'bin.log');
    const buf = Buffer.alloc(6 * 1024 * 1024);
    for (let i = 0; i < buf.length; i++) buf[i] = (i * 2654435761) >>> 24;
    writeFileSync(bin, buf);
    const long = join(dir, 'long.log');
    writeFileSync(long, 'a'.repeat(20 * 1024 * 1024));
    const fs = syncNodeFs();
    for (const p of [bin, long]) {
      const r = await classifyFile(fs, p, 'file', { maxBytes: 2 * 1024 * 1024 });
      assert.ok(r.bytes <= 2 * 1024 * 1024);
      assert.deepEqual(r.causes, []);
    }
    // A FIFO or folder is refused with a reason, not read.
    await assert.rejects(classifyFile(fs, dir, 'file'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('property: a failure line put anywhere among noise is found at its line; noise alone gives nothing', async () => {
  const noise = fc.oneof(
    fc.string({ maxLength: 80 }).map((s) => s.replace(/\n/g, ' ')),
    fc.constantFrom(...CLEAN_LOGS.flatMap((c) => c.log.split('\n'))),
  );
  const failures = FAILURE_CASES.filter((c) => c.code !== 'workflow-exception').map((c) => ({
    code: c.code,
    line: c.log.split('\n')[c.line - 1]!,
  }));
  await checkProperty(
    fc.property(fc.array(noise, { maxLength: 60 }), fc.nat(), fc.constantFrom(...failures), (lines, pos, f) => {
      assert.deepEqual(classifyText(lines.join('\n')), []);
      const i = pos % (lines.length + 1);
      const withIt = [...lines.slice(0, i), f.line, ...lines.slice(i)];
      const causes = classifyText(withIt.join('\n'));
      assert.equal(causes.length, 1);
      assert.equal(causes[0]!.code, f.code);
      assert.equal(causes[0]!.line, i + 1);
    }),
    200,
  );
});
