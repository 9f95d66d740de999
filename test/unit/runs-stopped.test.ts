// Item 2 of issue 23: a run the user stopped (Stop/Shift+F5, Terminate Task, Ctrl+C) reads
// "stopped", not "failed" — also when the stop came before the run wrote any log — in the tree's
// rules (core), and in `agentjet runs --format json`. Only an exit nobody asked for is a failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideHostStatus, writeLaunchRecord, combineStatus, type HostFacts } from '../../core/agentjet';
import { repoRoot } from '../util/paths';

const facts = (over: Partial<HostFacts> = {}): HostFacts => ({
  local: true,
  host: 'h',
  exceptions: { errors: 0, notes: 0 },
  modules: ['regular', 'rollout'],
  now: 10_000_000,
  remoteFreshMs: 300_000,
  ...over,
});
const record = (over: Record<string, unknown>) => ({
  record: { format: 1 as const, id: 'x', command: ['ajet'], cwd: '/w', startMs: 1000, endMs: 5000, exitCode: 247, signal: null, ...over },
  json: '/w/r.json',
});

test('a launch the user stopped is "stopped"; the same exit unasked is "failed"', () => {
  const stopped = decideHostStatus(facts({ launch: record({ stopRequestedMs: 4000 }) }));
  assert.equal(stopped.status, 'stopped');
  assert.match(stopped.evidence[0]!.text, /stopped by the user .*247/);
  assert.equal(decideHostStatus(facts({ launch: record({}) })).status, 'failed');
  assert.equal(decideHostStatus(facts({ launch: record({ signal: 'SIGTERM', exitCode: null, stopRequestedMs: 4000 }) })).status, 'stopped');
  // Finished before the stop took effect: still finished.
  assert.equal(decideHostStatus(facts({ launch: record({ exitCode: 0, stopRequestedMs: 4000 }) })).status, 'finished');
  // A stop asked after the exit (VS Code's disconnect of an ended session) is not the user's stop.
  assert.equal(decideHostStatus(facts({ launch: record({ stopRequestedMs: 6000 }) })).status, 'failed');
  assert.equal(combineStatus(['stopped', 'interrupted']), 'stopped');
  assert.equal(combineStatus(['stopped', 'failed']), 'failed');
});

function cliRuns(root: string): Array<{ name: string; status: string; reason?: string }> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'cli', 'main.ts'), 'runs', root, '--format', 'json'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { runs: Array<{ experiment: string; status: string; reason?: string }> };
  return out.runs.map((o) => ({ name: o.experiment, status: o.status, ...(o.reason ? { reason: o.reason } : {}) }));
}

test('agentjet runs --format json: stopped with logs, stopped before any log, and a failure', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-stopped-'));
  try {
    const root = join(dir, 'saved_experiments');
    const start = new Date(2026, 4, 3, 10, 7, 12).getTime();
    // 1. Stopped with Shift+F5 after the logger registered (session 2026_05_03_10_07, lock removed at exit).
    const withLogs = join(root, 'm_20260503_1007');
    mkdirSync(join(withLogs, '2026_05_03_10_07', hostname(), 'regular'), { recursive: true });
    writeFileSync(join(withLogs, '2026_05_03_10_07', hostname(), 'regular', 'regular.log'), '2026-05-03 10:07:20.000 | INFO | start\n');
    writeFileSync(join(withLogs, 'yaml_backup.yaml'), 'ajet:\n  project_name: p\n');
    const base = { command: ['python', '-m', 'ajet.launcher'], cwd: dir, pid: 4242, startMs: start, endMs: start + 30_000, signal: null };
    writeLaunchRecord(
      withLogs,
      { ...base, exitCode: 247, stopRequestedMs: start + 29_000, via: 'debug' },
      'Experiment Name: m_20260503_1007\n',
    );
    // 2. Stopped (Terminate Task) before the logger wrote anything: only the snapshot and the record.
    const noLogs = join(root, 'm_20260503_1107');
    mkdirSync(noLogs, { recursive: true });
    writeFileSync(join(noLogs, 'yaml_backup.yaml'), 'ajet:\n  project_name: p\n');
    writeLaunchRecord(noLogs, {
      ...base,
      startMs: start + 3_600_000,
      endMs: start + 3_602_000,
      exitCode: null,
      signal: 'SIGTERM',
      stopRequestedMs: start + 3_601_900,
      via: 'task',
    });
    // 3. The same early exit without a stop: a failure.
    const failed = join(root, 'm_20260503_1207');
    mkdirSync(failed, { recursive: true });
    writeFileSync(join(failed, 'yaml_backup.yaml'), 'ajet:\n  project_name: p\n');
    writeLaunchRecord(failed, { ...base, startMs: start + 7_200_000, endMs: start + 7_202_000, exitCode: 1, via: 'codelens' });

    const runs = cliRuns(root);
    const by = (n: string) => runs.find((r) => r.name === n);
    assert.equal(by('m_20260503_1007')?.status, 'stopped', JSON.stringify(runs));
    assert.equal(by('m_20260503_1107')?.status, 'stopped', JSON.stringify(runs));
    assert.equal(by('m_20260503_1207')?.status, 'failed', JSON.stringify(runs));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
