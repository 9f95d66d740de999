// `agentjet mcp` through the official MCP SDK's own client over stdio (`node dist/cli.js mcp --root
// ...`), on real material: AgentJet 0.0.4's configs and skills (its source tree as the root), a run
// made by AgentJet 0.0.4's experiment preparation and the real beast-logger (test/conformance's
// driver) that crashed after four steps, token logs written by the real beast-logger, and the
// project's generated workspace. Also: a path outside the root (and a link leading out) refused,
// an oversized answer cut with a note, a bomb log and a FIFO answered with a message, bad
// arguments answered as tool errors, and no server process left behind.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CLI, connectMcp, type McpSession } from '../util/mcpClient';
import { repoRoot } from '../util/paths';
import { upstream, withUpstream } from '../util/upstream';
import { fixtures } from '../gen';
import { writeBombLog } from '../gen/bomb';
import { recordText, writeRun } from '../util/runtree';
import { ensureTestPython } from '../harness/python';
import { AGENT_TOOLS, MAX_ANSWER_CHARS } from '../../core/agents/tools';
import { launchPaths, writeLaunchRecord } from '../../core/agentjet';
import { runDriver } from '../conformance/runs-harness';

const scratch = mkdtempSync(join(tmpdir(), 'aj-mcp-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

type Session = McpSession;

const connect = (root: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Session> =>
  connectMcp(root, extra, { AGENTJET_CACHE_DIR: join(scratch, 'cache'), AGENTJET_FACTS_CACHE: join(scratch, 'facts'), ...env });

const parse = <T>(r: { text: string; isError: boolean }): T => {
  assert.equal(r.isError, false, r.text);
  return JSON.parse(r.text) as T;
};

test('tools/list: without an interpreter every read-only tool; with --python the doctor too, hints saying what runs', async () => {
  const plain = await connect(fixtures().workspace);
  try {
    const { tools } = await plain.client.listTools();
    assert.deepEqual(
      tools.map((x) => x.name),
      AGENT_TOOLS.filter((x) => x.name !== 'agentjet_doctor').map((x) => x.name),
    );
    for (const x of tools) {
      assert.equal(x.annotations?.readOnlyHint, true, x.name);
      assert.equal(x.annotations?.destructiveHint, false, x.name);
      assert.equal(x.annotations?.openWorldHint, x.name === 'agentjet_swarm_status', x.name);
    }
  } finally {
    await plain.close();
  }
  const s = await connect(fixtures().workspace, ['--python', ensureTestPython().python]);
  try {
    const { tools } = await s.client.listTools();
    assert.deepEqual(
      tools.map((x) => x.name),
      AGENT_TOOLS.map((x) => x.name),
    );
    assert.deepEqual(tools.map((x) => x.name).sort(), [
      'agentjet_compare_runs',
      'agentjet_doctor',
      'agentjet_explain_key',
      'agentjet_lint',
      'agentjet_log_record',
      'agentjet_log_search',
      'agentjet_log_stats',
      'agentjet_metrics',
      'agentjet_run_summary',
      'agentjet_runs',
      'agentjet_swarm_status',
    ]);
    // With an interpreter handed in, the tools that run it say so: clients ask before calling them.
    const runs = ['agentjet_lint', 'agentjet_explain_key', 'agentjet_doctor'];
    for (const x of tools) {
      assert.equal(x.annotations?.readOnlyHint, !runs.includes(x.name), x.name);
      assert.equal(x.annotations?.destructiveHint, runs.includes(x.name), x.name);
      assert.deepEqual(x.inputSchema, AGENT_TOOLS.find((a) => a.name === x.name)!.inputSchema);
      assert.ok((x.description ?? '').length > 40, x.name);
    }
  } finally {
    await s.close();
  }
});

test(
  "AgentJet 0.0.4's own tree as the root: lint a tutorial config (judged by that checkout, lines as agentjet lint prints them), explain a key, its skills as resources and prompts",
  withUpstream('agentjet-c68c154', async (tree) => {
    // A copy of the tutorial config with two mistakes, inside the tree's copy (the root must hold it).
    const root = join(scratch, 'agentjet-0.0.4');
    cpSync(tree, root, { recursive: true, filter: (p) => !p.includes(`${join(tree, '.git')}`) });
    const orig = join(root, 'tutorial', 'example_math_agent', 'math_agent.yaml');
    const broken = join(root, 'tutorial', 'example_math_agent', 'math_agent_broken.yaml');
    const { readFileSync } = await import('node:fs');
    writeFileSync(
      broken,
      readFileSync(orig, 'utf8')
        .replace('  rollout:\n', '  rollout:\n    max_env_wroker: 8\n')
        .replace('temperature: 1.0', 'temperature: hot'),
    );
    const s = await connect(root, ['--no-python']);
    try {
      const lint = parse<{
        judgedBy: string[];
        configsChecked: number;
        diagnostics: { file: string; line: number; column: number; code: string; severity: string; message: string }[];
      }>(await s.call('agentjet_lint', { path: 'tutorial/example_math_agent/math_agent_broken.yaml' }));
      assert.equal(lint.configsChecked, 1);
      assert.match(lint.judgedBy[0]!, /AgentJet 0\.0\.4 at /, 'the checkout at the root judges');
      // The same diagnostics, at the same 1-based lines, as `agentjet lint` prints.
      const cli = spawnSync(process.execPath, [CLI, 'lint', broken, '--root', root, '--format', 'json'], {
        encoding: 'utf8',
        env: { ...process.env, AGENTJET_FACTS_CACHE: join(scratch, 'facts') },
      });
      const cliJson = JSON.parse(cli.stdout) as {
        files: { diagnostics: { code: string; range: { start: { line: number; character: number } } }[] }[];
      };
      assert.deepEqual(
        lint.diagnostics.map((d) => [d.code, d.line, d.column]),
        cliJson.files[0]!.diagnostics.map((d) => [d.code, d.range.start.line + 1, d.range.start.character + 1]),
      );
      const typo = lint.diagnostics.find((d) => d.code === 'unknown-key');
      assert.ok(typo, JSON.stringify(lint.diagnostics));
      const lines = readFileSync(broken, 'utf8').split('\n');
      assert.match(lines[typo.line - 1]!, /max_env_wroker/, 'line numbers are 1-based');
      assert.ok(lint.diagnostics.some((d) => d.code === 'type-mismatch' && lines[d.line - 1]!.includes('temperature: hot')));

      const folder = parse<{ configsChecked: number }>(await s.call('agentjet_lint', { path: 'tutorial/example_math_agent' }));
      assert.ok(folder.configsChecked >= 2, 'a folder lints every config in it');

      const key = parse<{ key: string; judgedBy: string; type: string[]; default: unknown; readByVersions: string[]; description: string }>(
        await s.call('agentjet_explain_key', { key: 'ajet.rollout.max_env_worker', path: 'tutorial/example_math_agent/math_agent.yaml' }),
      );
      assert.equal(key.key, 'ajet.rollout.max_env_worker');
      assert.match(key.judgedBy, /AgentJet 0\.0\.4 at /);
      assert.deepEqual(key.type, ['integer']);
      assert.equal(key.default, 64);
      assert.ok(key.readByVersions.includes('agentjet'));
      const unknown = await s.call('agentjet_explain_key', { key: 'rollout.max_env_wroker' });
      assert.equal(unknown.isError, true);
      assert.match(unknown.text, /max_env_worker/, 'an unknown key lists the keys at its level');

      // AgentJet's own skills (ajet/copilot/*/SKILL.md of the checkout).
      const { resources } = await s.client.listResources();
      const skill = resources.find((r) => r.name === 'write-passive-swarm-client/SKILL.md');
      assert.ok(skill, resources.map((r) => r.name).join(', '));
      const read = await s.client.readResource({ uri: skill.uri });
      const first = read.contents[0] as { text: string };
      assert.equal(first.text, readFileSync(join(tree, 'ajet', 'copilot', 'write-passive-swarm-client', 'SKILL.md'), 'utf8'));
      const { prompts } = await s.client.listPrompts();
      assert.ok(prompts.some((p) => p.name === 'map-verl-config'));
      const prompt = await s.client.getPrompt({ name: 'map-verl-config' });
      assert.match((prompt.messages[0]!.content as { text: string }).text, /name: map-verl-config/);
    } finally {
      await s.close();
    }
  }),
);

test(
  'a run made by AgentJet 0.0.4 and the real beast-logger that crashed after 4 steps: runs, run summary (traceback, reward curve), log stats, search and one record',
  withUpstream('beast-logger-6ba1ca5', (_b, t) =>
    withUpstream('agentjet-c68c154', async () => {
      const ws = join(scratch, 'crash-ws');
      mkdirSync(join(ws, 'configs'), { recursive: true });
      const config = join(ws, 'configs', 'crash.yaml');
      writeFileSync(config, 'ajet:\n  project_name: conformance\n  experiment_name: crash_run\n');
      const run = await runDriver(ws, { version: 'agentjet-0.0.4', config, steps: 4, end: 'crash' });
      assert.equal(run.code, 1, run.output);
      // As VS Code records a launch it started (the traceback went to the launcher's output).
      writeLaunchRecord(
        launchPaths({ cwd: ws, version: 'agentjet-0.0.4', experiment: 'crash_run' }).logExperiment,
        {
          command: run.argv,
          cwd: ws,
          pid: run.pid,
          startMs: run.startMs,
          endMs: run.endMs,
          exitCode: run.code,
          signal: run.signal,
          via: 'test',
        },
        run.output,
      );
      const s = await connect(ws, ['--no-python']);
      try {
        const runs = parse<{ runs: { experiment: string; path: string; status: string; evidence: string[]; latestStep: number }[] }>(
          await s.call('agentjet_runs'),
        );
        const row = runs.runs.find((r) => r.experiment === 'crash_run');
        assert.ok(row, JSON.stringify(runs));
        assert.equal(row.status, 'failed');
        assert.equal(row.latestStep, 4);
        assert.ok(row.evidence.some((e) => e.includes('RuntimeError: simulated failure')));

        const sum = parse<{
          status: string;
          tracebacks: { text: string }[];
          rewardCurve: { steps: number; steepestFall: { from: number; to: number; by: number }; last: { step: number } };
          configSnapshot: { settings: Record<string, string> };
          sessions: unknown[];
        }>(await s.call('agentjet_run_summary', { path: row.path }));
        assert.equal(sum.status, 'failed');
        assert.match(
          sum.tracebacks[0]!.text,
          /^Traceback \(most recent call last\):[\s\S]*RuntimeError: simulated failure in the middle of training/,
        );
        // The driver logs rewards 0.5, 1.0, 0.5, 1.0: the steepest fall is from step 2 to 3.
        assert.equal(sum.rewardCurve.steps, 4);
        assert.deepEqual(sum.rewardCurve.steepestFall, { from: 2, to: 3, by: 0.5 });
        assert.equal(sum.configSnapshot.settings['ajet.experiment_name'], 'crash_run');

        const stats = parse<{ records: number; steps: { step: number; meanReward: number }[] }>(
          await s.call('agentjet_log_stats', { path: row.path }),
        );
        assert.equal(stats.records, 4);
        assert.deepEqual(
          stats.steps.map((x) => [x.step, x.meanReward]),
          [
            [1, 0.5],
            [2, 1],
            [3, 0.5],
            [4, 1],
          ],
        );
        const search = parse<{ recordsMatching: number; hits: { index: number; step: number; title: string }[] }>(
          await s.call('agentjet_log_search', { path: row.path, query: 'Task t3' }),
        );
        assert.equal(search.recordsMatching, 1);
        assert.equal(search.hits[0]!.step, 3);
        const session = readdirSync(join(ws, row.path)).find((n) => /^\d{4}_/.test(n))!;
        const hostDir = readdirSync(join(ws, row.path, session)).find((n) => !n.startsWith('.'))!;
        const log = join(row.path, session, hostDir, 'rollout', 'rollout.json.log');
        const rec = await s.call('agentjet_log_record', { path: log, index: search.hits[0]!.index });
        assert.equal(rec.isError, false, rec.text);
        assert.match(rec.text, /step: 3/);
        assert.match(rec.text, /raw_reward: 0\.5/);
        assert.match(rec.text, /--- context, loss mask 0 \(\d+ tokens\) ---/);
      } finally {
        await s.close();
      }
    })(t),
  ),
);

test(
  "token logs written by the real beast-logger (AgentJet's generate_log calls): stats, search, a record by task id",
  withUpstream('beast-logger-6ba1ca5', (_b, t) =>
    withUpstream('agentjet-d20cce0', async () => {
      const dir = join(scratch, 'beast');
      mkdirSync(dir, { recursive: true });
      const { python } = ensureTestPython();
      const w = spawnSync(
        python,
        [
          join(repoRoot, 'test', 'conformance', 'python', 'write_token_logs.py'),
          upstream('beast-logger-6ba1ca5'),
          upstream('agentjet-d20cce0', 'ajet', 'utils', 'color_hsl.py'),
          dir,
          'agentjet',
          '9',
          '100 MB',
        ],
        { encoding: 'utf8', env: { ...process.env, LOGURU_COLORIZE: 'NO' } },
      );
      assert.equal(w.status, 0, w.stderr);
      const line = w.stdout.split('\n').find((l) => l.startsWith('EXPECTED '));
      assert.ok(line, w.stdout);
      const written = JSON.parse(line.slice(9)) as { task: string; step: number; timelines: { tokens: string[]; mask: number[] }[] }[];
      const main = join(
        dir,
        readdirSync(dir, { recursive: true, encoding: 'utf8' }).find((p) => p.endsWith('rollout.json.log'))!,
      );
      const s = await connect(dir, ['--no-python']);
      try {
        const stats = parse<{ records: number; tokenRecords: number; trainedTokens: number }>(
          await s.call('agentjet_log_stats', { path: main }),
        );
        assert.equal(stats.records, written.length);
        assert.equal(stats.tokenRecords, written.length);
        assert.ok(stats.trainedTokens > 0);
        const task = written.find((x) => x.task === 'gsm8k.test.17')!;
        const rec = await s.call('agentjet_log_record', { path: main, taskId: 'gsm8k.test.17' });
        assert.equal(rec.isError, false, rec.text);
        assert.match(rec.text, new RegExp(`step: ${task.step}`));
        assert.match(rec.text, /task: gsm8k\.test\.17/);
        assert.match(rec.text, /trained, loss mask 1/);
        // The trained tokens of the first timeline, in order, as beast-logger was given them.
        const tl = task.timelines[0]!;
        const trained = tl.tokens.filter((_, i) => tl.mask[i] === 1).join('');
        assert.ok(rec.text.includes(`---\n${trained}\n`), `${trained} in\n${rec.text}`);
        const found = parse<{ recordsMatching: number; hits: { taskId: string; step: number }[] }>(
          await s.call('agentjet_log_search', { path: main, query: 'gsm8k.test.17' }),
        );
        assert.equal(found.recordsMatching, written.filter((x) => x.task === 'gsm8k.test.17').length);
        assert.deepEqual(
          found.hits.map((h) => [h.taskId, h.step]),
          written.filter((x) => x.task === 'gsm8k.test.17').map((x) => [x.task, x.step]),
        );
        const none = await s.call('agentjet_log_record', { path: main, taskId: 'no-such-task' });
        assert.equal(none.isError, true);
        assert.match(none.text, /no record of task no-such-task/);
      } finally {
        await s.close();
      }
    })(t),
  ),
);

test('the generated workspace: runs paged with a note, a run summary, a reward that fell; the doctor runs the interpreter', async () => {
  const root = join(scratch, 'gen-ws');
  cpSync(fixtures().workspace, root, { recursive: true });
  // A run whose mean reward climbs to 0.8 and collapses at step 6.
  const rewards = [0.2, 0.4, 0.55, 0.7, 0.8, 0.8, 0.1, 0.05];
  writeRun(join(root, 'saved_experiments'), {
    name: 'collapse_run',
    hosts: [{ rollout: rewards.flatMap((r, step) => [[step, r] as [number, number], [step, r] as [number, number]]) }],
  });
  const { python } = ensureTestPython();
  const s = await connect(root, ['--python', python]);
  try {
    const page1 = parse<{ total: number; runs: { experiment: string }[]; more?: string }>(await s.call('agentjet_runs', { limit: 2 }));
    assert.equal(page1.total, 4);
    assert.equal(page1.runs.length, 2);
    assert.match(page1.more ?? '', /offset=2/);
    const page2 = parse<{ runs: { experiment: string }[]; more?: string }>(await s.call('agentjet_runs', { limit: 2, offset: 2 }));
    assert.equal(page2.runs.length, 2);
    assert.equal(page2.more, undefined);
    const sum = parse<{ rewardCurve: { steepestFall: { from: number; to: number }; best: { step: number } } }>(
      await s.call('agentjet_run_summary', { path: 'saved_experiments/collapse_run' }),
    );
    assert.deepEqual(sum.rewardCurve.steepestFall, { from: 5, to: 6, by: 0.7 });
    assert.equal(sum.rewardCurve.best.step, 4);
    const doctor = await s.call('agentjet_doctor');
    assert.equal(doctor.isError, false, doctor.text);
    assert.match(doctor.text, /Python interpreter/);
    assert.ok(doctor.text.includes(python));
  } finally {
    await s.close();
  }
});

test('refusals: a path outside the root, a link leading out of it, bad arguments; the server keeps answering', async () => {
  const root = join(scratch, 'refuse');
  mkdirSync(root, { recursive: true });
  const outside = mkdtempSync(join(tmpdir(), 'aj-mcp-outside-'));
  after(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(join(outside, 'secret.yaml'), 'ajet:\n  project_name: secret\n');
  symlinkSync(outside, join(root, 'escape'));
  const s = await connect(root, ['--no-python']);
  try {
    for (const path of [join(outside, 'secret.yaml'), join(relative(root, outside), 'secret.yaml'), 'escape/secret.yaml']) {
      const r = await s.call('agentjet_lint', { path });
      assert.equal(r.isError, true, path);
      assert.match(r.text, /outside the folder this server may read/, path);
      assert.doesNotMatch(r.text, /project_name/, 'nothing of the file is read');
    }
    const missing = await s.call('agentjet_log_stats', { path: 'nope.json.log' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /no such file or folder: nope\.json\.log/);
    const bad = await s.call('agentjet_log_search', { path: '.', query: 'x', limit: 'ten' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /"limit" must be a number/);
    const extra = await s.call('agentjet_runs', { rm: true });
    assert.equal(extra.isError, true);
    assert.match(extra.text, /unknown argument "rm"/);
    const noArg = await s.call('agentjet_lint', {});
    assert.equal(noArg.isError, true);
    assert.match(noArg.text, /"path" is required/);
    const noTool = await s.call('agentjet_delete_everything');
    assert.equal(noTool.isError, true);
    // Without --python permission the doctor is neither listed nor run.
    const { tools } = await s.client.listTools();
    assert.ok(!tools.some((x) => x.name === 'agentjet_doctor'));
    const doctor = await s.call('agentjet_doctor');
    assert.equal(doctor.isError, true);
    assert.match(doctor.text, /none was handed to it.*--python PATH/);
    const swarm = await s.call('agentjet_swarm_status', { url: 'http://127.0.0.1:9' });
    assert.equal(swarm.isError, true);
    assert.match(swarm.text, /cannot connect/);
    // Still serving.
    assert.equal((await s.client.listTools()).tools.length, AGENT_TOOLS.length - 1);
  } finally {
    await s.close();
  }
});

test('an oversized answer is cut with a note saying how to get the rest', async () => {
  const root = join(scratch, 'big');
  mkdirSync(root, { recursive: true });
  // A config with 400 unknown keys: 400 diagnostics do not fit one answer.
  writeFileSync(
    join(root, 'big.yaml'),
    `ajet:\n${Array.from({ length: 400 }, (_, i) => `  not_a_key_with_a_long_name_${i}: ${i}`).join('\n')}\n`,
  );
  // One rollout record of ~60k tokens.
  const host = join(root, 'run', 'gpu-node-0', 'rollout');
  mkdirSync(host, { recursive: true });
  const text = Array.from({ length: 60_000 }, (_, i) => ` w${i}`);
  const payload = {
    header: '[0] Task big (Reward 1.000)',
    color: '#337711',
    content: '',
    attach: null,
    nested: true,
    nested_json: {
      'big.1.0': {
        outcome: '1.0',
        len_prompt_ids: 30_000,
        len_response_ids: 30_000,
        content: {
          text,
          title: text.map(() => 'N/A'),
          count: text.map((_, i) => String(i)),
          color: text.map((_, i) => (i < 30_000 ? '#D98510' : '#09ABCF')),
        },
      },
    },
  };
  writeFileSync(join(host, 'rollout.json.log'), recordText(payload, { compressed: false }));
  const s = await connect(root, ['--no-python']);
  try {
    const lint = await s.call('agentjet_lint', { path: 'big.yaml', limit: 500 });
    assert.equal(lint.isError, false);
    assert.ok(lint.text.length <= MAX_ANSWER_CHARS, String(lint.text.length));
    // A page over the bound comes back whole (smaller), parseable, and says where the next one starts.
    const whole = parse<{ diagnostics: unknown[]; total: number; offset: number; more: string }>(lint);
    assert.ok(whole.diagnostics.length > 0 && whole.diagnostics.length < 400, String(whole.diagnostics.length));
    assert.equal(whole.total, 400);
    assert.match(whole.more, new RegExp(`offset=${whole.diagnostics.length}\\b`));
    const paged = parse<{ diagnostics: unknown[]; total: number; more: string }>(
      await s.call('agentjet_lint', { path: 'big.yaml', limit: 50 }),
    );
    assert.equal(paged.diagnostics.length, 50);
    assert.equal(paged.total, 400);
    assert.match(paged.more, /offset=50/);

    const rec = await s.call('agentjet_log_record', { path: 'run/gpu-node-0/rollout/rollout.json.log', index: 0 });
    assert.equal(rec.isError, false, rec.text);
    assert.ok(rec.text.length <= MAX_ANSWER_CHARS, String(rec.text.length));
    const m = /\[characters 0-(\d+) of (\d+); call again with offset=(\d+) for the rest\]/.exec(rec.text);
    assert.ok(m, rec.text.slice(-300));
    const next = await s.call('agentjet_log_record', { path: 'run/gpu-node-0/rollout/rollout.json.log', index: 0, offset: Number(m[3]) });
    assert.ok(next.text.startsWith(` w`) || /w\d/.test(next.text.slice(0, 20)), next.text.slice(0, 100));
  } finally {
    await s.close();
  }
});

test('hostile input: a bomb log and a FIFO are answered with a message, and the server lives on', async () => {
  const root = join(scratch, 'hostile');
  mkdirSync(join(root, 'logs'), { recursive: true });
  const bomb = await writeBombLog(join(root, 'logs', 'bomb.json.log'), 40 * 1024 * 1024);
  const fifo = join(root, 'logs', 'pipe.json.log');
  const mk = spawnSync('mkfifo', [fifo]);
  assert.equal(mk.status, 0, 'mkfifo works here');
  spawnSync('mkfifo', [join(root, 'pipe.yaml')]);
  const s = await connect(root, ['--no-python'], { AGENTJET_MAX_RECORD_MB: '16' });
  try {
    const stats = parse<{ records: number; corruptRecords: number; corrupt: { index: number; error: string }[] }>(
      await s.call('agentjet_log_stats', { path: 'logs/bomb.json.log' }),
    );
    assert.equal(stats.records, bomb.records);
    assert.equal(stats.corruptRecords, 1);
    assert.equal(stats.corrupt[0]!.index, bomb.bombIndex);
    assert.match(stats.corrupt[0]!.error, /record too large/);
    const rec = await s.call('agentjet_log_record', { path: 'logs/bomb.json.log', index: bomb.bombIndex });
    assert.equal(rec.isError, true);
    assert.match(rec.text, new RegExp(`record ${bomb.bombIndex} could not be read: record too large`));
    const ok = await s.call('agentjet_log_record', { path: 'logs/bomb.json.log', index: bomb.bombIndex + 1 });
    assert.equal(ok.isError, false, 'the records after the bomb read');

    const pipe = await s.call('agentjet_log_stats', { path: 'logs/pipe.json.log' });
    assert.equal(pipe.isError, true);
    assert.match(pipe.text, /is a named pipe \(FIFO\), not a log file or a run folder/);
    const pipeRec = await s.call('agentjet_log_search', { path: 'logs/pipe.json.log', query: 'x' });
    assert.equal(pipeRec.isError, true);
    const lint = parse<{ skipped: string[] }>(await s.call('agentjet_lint', { path: '.' }));
    assert.deepEqual(lint.skipped, ['pipe.yaml: skipped, not a regular file']);
    assert.equal((await s.client.listTools()).tools.length, AGENT_TOOLS.length - 1);
  } finally {
    await s.close();
  }
});
