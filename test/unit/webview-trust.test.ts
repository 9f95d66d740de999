// The webview trust boundary: hostile messages (wrong types, unknown kinds, huge or odd values) are
// refused by the per-protocol validators, and paths a webview names are checked to lie inside the
// allowed folders after realpath (sibling prefixes, `..`, symlinks out of the run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDashboardState, checkDashboardToHost, checkTrajectoryViewToHost, checkViewToHost } from '../../core/protocol/validate';
import { isInside, resolveInside } from '../../core/fs/inside';
import { DEFAULT_VIEW_STATE } from '../../core/protocol/tokenlog';

test('token log messages that fit the protocol pass, with their values intact', () => {
  const good: unknown[] = [
    { type: 'ready' },
    { type: 'ready', state: DEFAULT_VIEW_STATE },
    {
      type: 'ready',
      state: {
        ...DEFAULT_VIEW_STATE,
        selected: 3,
        filter: { stepMin: 1, stepMax: undefined, text: 'abc' },
        sort: { key: 'reward', desc: true },
      },
    },
    { type: 'query', filter: { rewardMin: 0.5, outcome: '1.0' }, sort: { key: 'task' } },
    { type: 'rows', version: 2, offset: 0, count: 60 },
    { type: 'open', index: 0 },
    { type: 'group', taskId: 'abc', step: 3 },
    { type: 'locate', index: 12 },
    { type: 'cancel' },
    { type: 'resume' },
    { type: 'openRaw' },
    { type: 'copy', text: 'hello', what: 'timeline text' },
    {
      type: 'report',
      report: {
        records: 1,
        listTotal: 1,
        listRows: 1,
        timelineTokens: 0,
        domTokens: 0,
        domText: '',
        injected: 0,
        mode: 'heat',
        follow: false,
        group: 0,
        indexing: false,
      },
    },
  ];
  for (const m of good) {
    const r = checkViewToHost(m);
    assert.ok(r.ok, `${JSON.stringify(m)}: ${r.ok ? '' : r.error}`);
    assert.deepEqual(JSON.parse(JSON.stringify(r.value)), JSON.parse(JSON.stringify(m)));
  }
});

test('hostile token log messages are refused', () => {
  const bad: unknown[] = [
    null,
    undefined,
    42,
    'ready',
    [],
    {},
    { type: 'evil' },
    { type: 'runCommand', command: 'rm -rf /' },
    { type: 'open' },
    { type: 'open', index: '3' },
    { type: 'open', index: -1 },
    { type: 'open', index: 1.5 },
    { type: 'open', index: Number.NaN },
    { type: 'open', index: Number.POSITIVE_INFINITY },
    { type: 'rows', version: 0, offset: 0, count: 1e9 },
    { type: 'query', filter: {}, sort: { key: 'constructor' } },
    { type: 'query', filter: { stepMin: 'x' }, sort: { key: 'index' } },
    { type: 'query', filter: null, sort: { key: 'index' } },
    { type: 'group', taskId: 7 },
    { type: 'copy', text: 5, what: 'x' },
    { type: 'ready', state: { ...DEFAULT_VIEW_STATE, mode: 'script' } },
    { type: 'report', report: { records: 'many' } },
    { type: '__proto__' },
  ];
  for (const m of bad) assert.equal(checkViewToHost(m).ok, false, `accepted ${String(JSON.stringify(m))}`);
  const r = checkViewToHost({ type: 'open', index: '3' });
  assert.ok(!r.ok && /index/.test(r.error), 'the refusal names the field');
});

test('unknown extra fields are dropped, not passed on', () => {
  const r = checkViewToHost({ type: 'open', index: 1, path: '/etc/passwd', __proto__: { polluted: true } });
  assert.ok(r.ok);
  assert.deepEqual(Object.keys(r.value), ['type', 'index']);
});

test('trajectory and dashboard messages are validated the same way', () => {
  assert.ok(checkTrajectoryViewToHost({ type: 'report', messages: 3, timelines: 1 }).ok);
  assert.equal(checkTrajectoryViewToHost({ type: 'report', messages: -3, timelines: 1 }).ok, false);
  assert.equal(checkTrajectoryViewToHost({ type: 'openFile', path: '/etc/passwd' }).ok, false);
  assert.ok(checkDashboardToHost({ type: 'openFile', path: '/runs/exp1/a.log' }).ok);
  assert.equal(checkDashboardToHost({ type: 'openFile', path: ['/etc/passwd'] }).ok, false);
  assert.equal(checkDashboardToHost({ type: 'openFile', path: 'x'.repeat(5000) }).ok, false);
  assert.equal(checkDashboardToHost({ type: 'removeRun', id: {} }).ok, false);
  assert.equal(checkDashboardState({ runs: ['/a', 3] }).ok, false);
  assert.ok(checkDashboardState({ runs: ['/a'], evalMetric: 'TGC@1' }).ok);
});

test('isInside compares whole path segments', () => {
  assert.equal(isInside('/runs/exp1', '/runs/exp1'), true);
  assert.equal(isInside('/runs/exp1', '/runs/exp1/rollout/a.log'), true);
  assert.equal(isInside('/runs/exp1/', '/runs/exp1/a.log'), true);
  assert.equal(isInside('/runs/exp1', '/runs/exp10/a.log'), false, 'sibling with the same prefix');
  assert.equal(isInside('/runs/exp1', '/runs/exp1-old/a.log'), false);
  assert.equal(isInside('/runs/exp1', '/runs/exp1/../exp2/a.log'), false, 'dot-dot out of the run');
  assert.equal(isInside('/runs/exp1', '/runs/exp1/sub/../../exp2'), false);
  assert.equal(isInside('/runs/exp1', '/runs/exp1/..hidden'), true, 'a name starting with two dots is still inside');
  assert.equal(isInside('/runs/exp1', '/'), false);
});

test('resolveInside refuses paths out of the run, after following symlinks', async () => {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'agentjet-inside-')));
  try {
    const run = join(tmp, 'runs', 'exp1');
    const sibling = join(tmp, 'runs', 'exp10');
    mkdirSync(join(run, 'rollout'), { recursive: true });
    mkdirSync(sibling, { recursive: true });
    writeFileSync(join(run, 'rollout', 'rollout.json.log'), 'x');
    writeFileSync(join(sibling, 'secret.log'), 'x');
    writeFileSync(join(tmp, 'outside.txt'), 'x');
    symlinkSync(join(tmp, 'outside.txt'), join(run, 'link-out'));
    symlinkSync(join(tmp, 'runs'), join(run, 'dir-out'));
    symlinkSync(join(run, 'rollout', 'rollout.json.log'), join(run, 'link-in'));

    const ok = await resolveInside(join(run, 'rollout', 'rollout.json.log'), [run]);
    assert.deepEqual(ok, { ok: true, path: join(run, 'rollout', 'rollout.json.log') });
    assert.ok((await resolveInside(join(run, 'link-in'), [run])).ok, 'a symlink that stays in the run is fine');

    const refused: [unknown, RegExp][] = [
      [join(sibling, 'secret.log'), /outside/],
      [`${run}/../exp10/secret.log`, /outside/],
      [`${run}/rollout/../../../outside.txt`, /outside/],
      [join(run, 'link-out'), /outside/],
      [join(run, 'dir-out', 'exp10', 'secret.log'), /outside/],
      ['rollout/rollout.json.log', /absolute/],
      [`${run}/rollout/rollout.json.log\0.png`, /NUL/],
      [join(run, 'missing.log'), /no such file/],
      [42, /not a path/],
      ['', /not a path/],
    ];
    for (const [p, why] of refused) {
      const r = await resolveInside(p, [run]);
      assert.equal(r.ok, false, `accepted ${String(p)}`);
      assert.match(r.ok ? '' : r.reason, why, String(p));
    }
    // The allowed folder itself reached through a symlink still counts (compared by real path).
    symlinkSync(run, join(tmp, 'run-link'));
    assert.ok((await resolveInside(join(run, 'rollout', 'rollout.json.log'), [join(tmp, 'run-link')])).ok);
    assert.equal((await resolveInside(join(sibling, 'secret.log'), [join(tmp, 'missing-root'), 'relative/root'])).ok, false);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
