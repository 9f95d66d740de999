// Issue 22 item 16: the process holding the vLLM port is recognised as AgentJet's companion of
// another folder (its cwd holds a companion record of its group, or its command line is AgentJet's),
// with real processes listening on loopback ports. Each test ends what it started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { companionCommand, recognisePortHolder } from '../../core/agentjet/portHolder';
import { evaluate, type DoctorInput, type ProbeFacts } from '../../core/doctor/checks';
import { checkForLaunch } from '../../core/doctor/preflight';

const linux = process.platform === 'linux';
const LISTEN =
  'import socket,sys,time\ns=socket.socket()\ns.bind(("127.0.0.1",0))\ns.listen()\nprint(s.getsockname()[1],flush=True)\ntime.sleep(120)\n';

interface Listener {
  child: ChildProcess;
  pid: number;
  port: number;
  stop: () => void;
}

/** A python process in its own process group (as AgentJet starts companions) listening on a loopback port. */
async function listen(cwd: string, extraArgs: string[] = []): Promise<Listener> {
  const child = spawn('python3', ['-c', LISTEN, ...extraArgs], { cwd, detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`listener exited ${code}`)));
  });
  const pid = child.pid!;
  return {
    child,
    pid,
    port: Number(line),
    stop: () => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    },
  };
}

function companionRecord(project: string, root: string, pgid: number, tag = 'external_vllm_server'): string {
  const folder = join(project, root, 'companion_logs', 'companion');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${tag}.0123abcd.${hostname()}.pgid`);
  writeFileSync(file, `${pgid}\n`);
  writeFileSync(join(folder, `${tag}.0123abcd.${hostname()}.log`), 'INFO: Uvicorn running\n');
  return file;
}

function input(port: ProbeFacts['port'], launch = true, reusePgids: number[] = []): DoctorInput {
  return {
    python: 'python3',
    probe: { ok: true, facts: { python: '/usr/bin/python3', version: '3.11.0', venv: true, packages: {}, port } },
    gpu: { available: false, gpus: [], error: null },
    ...(launch ? { launch: { candidates: ['ajet.launcher'], companionPgids: [], portKey: 'ajet.debug.debug_vllm_port', reusePgids } } : {}),
  };
}

test(
  'issue 22 item 16 (regression): the first project vLLM companion on the port is recognised, not "not an AgentJet companion"',
  { skip: !linux },
  async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'agentjet-portholder-'));
    const first = join(tmp, 'first');
    mkdirSync(first);
    const l = await listen(first);
    try {
      companionRecord(first, 'saved_experiments', l.pid);
      const who = recognisePortHolder({ pid: l.pid, pgid: l.pid });
      assert.ok(who, 'recognised');
      assert.equal(who.via, 'record');
      assert.equal(who.what, 'external_vllm_server');
      assert.equal(who.pgid, l.pid);
      assert.equal(who.cwd, first);
      // The second project's launch check: refused with the companion named and how to free the port.
      const port = { port: l.port, inUse: true, holderPid: l.pid, holderPgid: l.pid, holderArgs: 'python3 -c …' };
      const check = evaluate(input(port)).find((c) => c.id === 'port')!;
      assert.equal(check.status, 'error');
      assert.doesNotMatch(check.detail, /not an AgentJet companion/);
      assert.match(check.detail, /AgentJet's own companion external_vllm_server/);
      assert.ok(check.detail.includes(first), check.detail);
      assert.ok(check.detail.includes(`kill -- -${l.pid}`), check.detail);
      // Named in AGENTJET_REUSE_COMPANION (a companion the user means to share): not an error.
      assert.equal(evaluate(input(port, true, [l.pid])).find((c) => c.id === 'port')!.status, 'ok');
      // The doctor says the same as a warning.
      const doc = evaluate(input(port, false)).find((c) => c.id === 'port')!;
      assert.equal(doc.status, 'warning');
      assert.match(doc.detail, /AgentJet's own companion/);
    } finally {
      l.stop();
      rmSync(tmp, { recursive: true, force: true });
    }
  },
);

test('old layout (launcher_record/) and a record in the exp dir above the cwd are found too', { skip: !linux }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'agentjet-portholder-'));
  const old = join(tmp, 'old');
  const exp = join(tmp, 'new', 'saved_experiments', 'math_20260101_0000');
  const run = join(exp, 'work');
  mkdirSync(old);
  mkdirSync(run, { recursive: true });
  const a = await listen(old);
  const b = await listen(run);
  try {
    companionRecord(old, 'launcher_record', a.pid, 'logview');
    const folder = join(exp, 'companion_logs', 'companion');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `0123abcd.${hostname()}.pgid`), String(b.pid));
    assert.equal(recognisePortHolder({ pid: a.pid, pgid: a.pid })?.what, 'logview');
    const rb = recognisePortHolder({ pid: b.pid, pgid: b.pid });
    assert.equal(rb?.via, 'record');
  } finally {
    a.stop();
    b.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a stranger on the port stays a stranger; a record of another group does not make it ours', { skip: !linux }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'agentjet-portholder-'));
  const l = await listen(tmp);
  try {
    companionRecord(tmp, 'saved_experiments', 999_999);
    assert.equal(recognisePortHolder({ pid: l.pid, pgid: l.pid }), undefined);
    const port = { port: l.port, inUse: true, holderPid: l.pid, holderPgid: l.pid, holderArgs: 'python3 -c listen' };
    assert.match(evaluate(input(port)).find((c) => c.id === 'port')!.detail, /not an AgentJet companion/);
  } finally {
    l.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("AgentJet's companion command lines are recognised wherever they run (vLLM serve, ajet modules)", { skip: !linux }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'agentjet-portholder-'));
  // No record anywhere: the command line (read from /proc) tells.
  const l = await listen(tmp, ['vllm', 'serve', '/models/Qwen2.5-0.5B-Instruct', '--port', '18000']);
  try {
    const who = recognisePortHolder({ pid: l.pid, pgid: l.pid });
    assert.equal(who?.via, 'commandLine');
    assert.equal(who?.what, 'vLLM server');
  } finally {
    l.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  assert.equal(companionCommand('python -m vllm.entrypoints.openai.api_server --model m --port 18000'), 'vLLM server');
  assert.equal(companionCommand('/venv/bin/vllm serve m'), 'vLLM server');
  assert.equal(companionCommand('python -m ajet.utils.logview --port 8000'), 'ajet.utils.logview');
  assert.equal(companionCommand('python -m ajet.launcher --conf x.yaml'), undefined);
  assert.equal(companionCommand('nc -l 18000'), undefined);
  assert.equal(companionCommand('python -m http.server 18000'), undefined);
});

test(
  'the launch preflight (real probe) names the companion of the other project and hands it to the editor',
  { skip: !linux },
  async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'agentjet-portholder-'));
    const first = join(tmp, 'first');
    const second = join(tmp, 'second');
    mkdirSync(first);
    mkdirSync(second);
    const l = await listen(first);
    try {
      companionRecord(first, 'saved_experiments', l.pid);
      const res = await checkForLaunch({
        python: 'python3',
        cwd: second,
        env: process.env,
        port: l.port,
        wantDebugpy: false,
        launch: { candidates: ['ajet.launcher'], companionPgids: [], portKey: 'ajet.debug.debug_vllm_port' },
        timeoutMs: 30_000,
      });
      assert.ok(res.probe.ok);
      const port = res.blocking.find((c) => c.id === 'port');
      assert.ok(port, JSON.stringify(res.checks.map((c) => [c.id, c.status])));
      assert.match(port.detail, /AgentJet's own companion external_vllm_server/);
      assert.equal(res.portCompanion?.pgid, l.pid);
    } finally {
      l.stop();
      rmSync(tmp, { recursive: true, force: true });
    }
  },
);
