// `agentjet diagnose LOG|EXP_DIR`: an experiment folder's material (the kept launcher output, the
// session's logs, this node's Ray worker logs of the run's time, a vLLM companion's log) gives its
// causes with the file and line of each; a log file alone; JSON shape; bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, utimesSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLaunchRecord } from '../../core/agentjet/launchRecord';
import type { DiagnoseJson } from '../../core/diagnose';
import { FAILURE_CASES } from '../gen/failures';
import { runCli } from '../util/cliRun';
import { callTool } from '../../core/agents/tools';
import { shownCauses } from '../../core/runs/format';

const caseOf = (code: string) => FAILURE_CASES.find((c) => c.code === code)!;

function rayStamp(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `session_${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}_${p(d.getHours())}-${p(d.getMinutes())}-${p(d.getSeconds())}_123456_4242`;
}

function experiment(root: string, opts: { launcherLog?: string; runLog?: string; rayLog?: string; vllmLog?: string; oldRayLog?: string }) {
  const exps = join(root, 'saved_experiments');
  const exp = join(exps, 'math_agent');
  const start = Date.now() - 10 * 60_000;
  const d = new Date(start);
  const p = (n: number) => String(n).padStart(2, '0');
  const session = join(
    exp,
    `${d.getFullYear()}_${p(d.getMonth() + 1)}_${p(d.getDate())}_${p(d.getHours())}_${p(d.getMinutes())}`,
    hostname(),
  );
  mkdirSync(join(session, 'regular'), { recursive: true });
  writeFileSync(join(session, 'regular', 'regular.log'), opts.runLog ?? 'INFO nothing wrong\n');
  if (opts.launcherLog !== undefined)
    writeLaunchRecord(
      exp,
      { command: ['ajet', '--conf', 'c.yaml'], cwd: root, startMs: start, endMs: start + 60_000, exitCode: 1, pid: 4242 },
      opts.launcherLog,
    );
  const ray = join(root, 'ray');
  if (opts.oldRayLog) {
    // A session of yesterday: not this run's.
    const old = join(ray, rayStamp(new Date(start - 86_400_000)), 'logs');
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, 'worker-aa-01000000-1.err'), opts.oldRayLog);
  }
  const logs = join(ray, rayStamp(new Date(start + 2000)), 'logs');
  mkdirSync(logs, { recursive: true });
  if (opts.rayLog) writeFileSync(join(logs, 'worker-bb-01000000-2.err'), opts.rayLog);
  writeFileSync(join(logs, 'worker-cc-01000000-3.err'), '');
  if (opts.vllmLog) {
    const comp = join(exps, 'companion_logs', 'companion');
    mkdirSync(comp, { recursive: true });
    writeFileSync(join(comp, 'external_vllm_server.0123abcd.gpu-node-0.log'), opts.vllmLog);
    writeFileSync(join(comp, 'external_vllm_server.0123abcd.gpu-node-0.pgid'), '999999\n');
    // An old companion log (before the run) is not read.
    writeFileSync(join(comp, 'vllm_old.0123abce.gpu-node-0.log'), caseOf('port-in-use').log);
    const old = (start - 3_600_000) / 1000;
    utimesSync(join(comp, 'vllm_old.0123abce.gpu-node-0.log'), old, old);
  }
  return { exp, ray };
}

test('diagnose EXP_DIR: the kept launcher output, Ray worker logs of the run and the vLLM companion log, each cause with its file and line', async () => {
  const root = mkdtempSync(join(tmpdir(), 'agentjet-diagnose-cli-'));
  try {
    const { exp, ray } = experiment(root, {
      launcherLog: caseOf('dataset-missing').log,
      rayLog: caseOf('host-oom').log,
      oldRayLog: caseOf('nccl').log,
      vllmLog: FAILURE_CASES.find((c) => c.name.startsWith('vLLM v1'))!.log,
    });
    const r = await runCli('diagnose', [exp, '--format', 'json', '--ray-root', ray]);
    assert.equal(r.code, 0, r.err);
    const d = JSON.parse(r.out) as DiagnoseJson;
    const by = new Map(d.causes.map((c) => [c.code, c]));
    assert.deepEqual([...by.keys()].sort(), ['cuda-oom', 'dataset-missing', 'host-oom']);
    assert.equal(by.get('dataset-missing')!.source, 'launcher-output');
    assert.match(by.get('dataset-missing')!.file!, /\.agentjet-vscode[\\/]launches[\\/].*\.output\.txt$/);
    assert.equal(by.get('dataset-missing')!.line, caseOf('dataset-missing').line);
    assert.equal(by.get('host-oom')!.source, 'ray-worker-log');
    assert.equal(by.get('host-oom')!.line, caseOf('host-oom').line);
    assert.equal(by.get('cuda-oom')!.source, 'vllm-log');
    assert.ok(!d.read.some((x) => /vllm_old/.test(x.file)), 'a companion log older than the run is not read');
    assert.ok(!d.causes.some((c) => c.code === 'nccl' || c.code === 'port-in-use'), 'material of other runs is not read');
    for (const c of d.causes) assert.ok(c.evidence.length && c.fix && c.message);
    // Text: code, place, evidence, fix.
    const text = await runCli('diagnose', [exp, '--ray-root', ray]);
    assert.match(text.out, /^dataset-missing {2}/m);
    assert.match(text.out, /fix: /);
    // --no-ray leaves the worker logs out.
    const noRay = JSON.parse((await runCli('diagnose', [exp, '--format', 'json', '--ray-root', ray, '--no-ray'])).out) as DiagnoseJson;
    assert.ok(!noRay.causes.some((c) => c.code === 'host-oom'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('diagnose LOG: one file; no cause in a clean log; a missing file and bad usage are refused', async () => {
  const root = mkdtempSync(join(tmpdir(), 'agentjet-diagnose-cli-'));
  try {
    const log = join(root, 'out.log');
    writeFileSync(log, caseOf('env-swanlab-key').log);
    const d = JSON.parse((await runCli('diagnose', [log, '--format', 'json'])).out) as DiagnoseJson;
    assert.deepEqual(
      d.causes.map((c) => [c.code, c.line]),
      [['env-swanlab-key', caseOf('env-swanlab-key').line]],
    );
    const clean = join(root, 'clean.log');
    writeFileSync(clean, 'step:1 - reward:0.5\n');
    const c = await runCli('diagnose', [clean]);
    assert.equal(c.code, 0);
    assert.match(c.out, /No known failure cause in the 1 files read/);
    assert.equal((await runCli('diagnose', [join(root, 'nope.log')])).code, 1);
    assert.equal((await runCli('diagnose', [])).code, 2);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('agentjet runs: a failed run carries its causes (JSON) and prints cause and fix (text)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'agentjet-diagnose-cli-'));
  try {
    experiment(root, { launcherLog: caseOf('cuda-oom').log });
    const r = await runCli('runs', [root, '--format', 'json']);
    assert.equal(r.code, 0, r.err);
    const rows = (
      JSON.parse(r.out) as { runs: { experiment: string; status: string; causes?: { code: string; line: number; fix: string }[] }[] }
    ).runs;
    const row = rows.find((x) => x.experiment === 'math_agent')!;
    assert.equal(row.status, 'failed');
    assert.deepEqual(
      row.causes?.map((c) => [c.code, c.line]),
      [['cuda-oom', caseOf('cuda-oom').line]],
    );
    const text = await runCli('runs', [root]);
    assert.match(text.out, /cause cuda-oom: CUDA ran out of GPU memory/);
    assert.match(text.out, /fix: .*gpu_memory_utilization/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('agentjet_run_summary: a failed run answers with its causes (file shown inside the roots)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'agentjet-diagnose-cli-'));
  try {
    const { exp } = experiment(root, { launcherLog: caseOf('config-invalid').log });
    const r = await callTool('agentjet_run_summary', { path: exp }, { roots: [root], mayRunPython: false });
    assert.equal(r.isError, false, r.text);
    const answer = JSON.parse(r.text) as { status: string; causes?: { code: string; line: number; file?: string; fix: string }[] };
    assert.equal(answer.status, 'failed');
    assert.deepEqual(
      answer.causes?.map((c) => [c.code, c.line]),
      [['config-invalid', caseOf('config-invalid').line]],
    );
    assert.match(answer.causes![0]!.file!, /output\.txt$/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('shown causes: a failed run shows its causes; a running one only while it reads stalled', () => {
  const causes = [{ code: 'nccl' as const, line: 3, message: 'm', fix: 'f', evidence: ['e'] }];
  assert.deepEqual(shownCauses({ status: 'failed', causes }, undefined), causes);
  assert.deepEqual(shownCauses({ status: 'running', causes }, { state: 'progressing' }), []);
  assert.deepEqual(shownCauses({ status: 'running', causes }, { state: 'stalled' }), causes);
  assert.deepEqual(shownCauses({ status: 'failed' }, undefined), []);
});
