// "Debug this task": the derived config and the one-task file (core/debugTask/prepare.ts) and the
// CLI's refusals. The real launcher on these files: test/conformance/debug-task.test.ts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { debugTaskDir, prepareDebugTask, readerInfo } from '../../core/debugTask/prepare';
import { runDebugTask } from '../../cli/debugTask';
import { repoRoot } from '../util/paths';

const demoRun = 'saved_experiments/math_demo_20260103_1010';

function demoCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aj-dtask-'));
  cpSync(join(repoRoot, 'demo'), dir, { recursive: true });
  return dir;
}

test('readers: JSONL and Hugging Face can be restricted to one task; the others are named with the reason', () => {
  assert.equal(readerInfo('ajet:\n  task_reader:\n    type: jsonl_dataset_file\n').selectable, true);
  assert.equal(readerInfo('astuner:\n  task_reader:\n    type: huggingface_dat_repo\n').root, 'astuner');
  for (const ty of ['env_service', 'random_dummy', 'data_generation']) {
    const r = readerInfo(`ajet:\n  task_reader:\n    type: ${ty}\n`);
    assert.equal(r.selectable, false);
    assert.match(r.why!, new RegExp(ty));
  }
});

test("from a run's snapshot: a one-task file, a derived config beside the run, the old run's folder not reused, user files unchanged", async () => {
  const dir = demoCopy();
  try {
    const before = readdirSync(join(dir, 'data')).map((f) => readFileSync(join(dir, 'data', f), 'utf8'));
    const snapshot = readFileSync(join(dir, demoRun, 'yaml_backup.yaml'), 'utf8');
    const run = join(dir, demoRun);
    const r = await prepareDebugTask({
      sourceConfig: join(run, 'yaml_backup.yaml'),
      cwd: dir,
      taskId: 'demo-007',
      numRepeat: 3,
      outDir: debugTaskDir(run, dir),
      sourceRun: run,
    });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.configStem, 'math_demo_20260103_1010_task_demo-007');
    assert.ok(r.config.startsWith(join(run, 'debug-tasks')));
    const lines = readFileSync(r.taskFile, 'utf8').trim().split('\n');
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0]!).task_id, 'demo-007');
    const cfg = parse(readFileSync(r.config, 'utf8')) as { ajet: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(cfg.ajet.task_reader.type, 'jsonl_dataset_file');
    assert.equal(cfg.ajet.task_reader.jsonl_dataset_file.validation.file_path, r.taskFile, 'the debug backbone reads the validation split');
    assert.equal(cfg.ajet.task_reader.jsonl_dataset_file.training.file_path, r.taskFile);
    assert.equal(cfg.ajet.rollout.num_repeat, 3);
    assert.equal(cfg.ajet.debug.debug_first_n_tasks, 1);
    assert.equal(cfg.ajet.experiment_name, 'read_yaml_name');
    assert.equal(cfg.ajet.experiment_dir, 'auto', "the snapshot's experiment_dir would put the new run into the old run's folder");
    assert.equal(JSON.parse(readFileSync(r.link, 'utf8')).sourceRun, run);
    assert.deepEqual(
      readdirSync(join(dir, 'data')).map((f) => readFileSync(join(dir, 'data', f), 'utf8')),
      before,
    );
    assert.equal(readFileSync(join(run, 'yaml_backup.yaml'), 'utf8'), snapshot);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('unknown ids, records without task_id and refused readers say why; nothing is written', async () => {
  const dir = demoCopy();
  try {
    const base = { sourceConfig: join(dir, 'math_agent.yaml'), cwd: dir, outDir: join(dir, 'out') };
    const missing = await prepareDebugTask({ ...base, taskId: 'demo-999' });
    assert.equal(missing.ok, false);
    assert.equal(!missing.ok && missing.code, 'not-found');
    writeFileSync(join(dir, 'data', 'val.jsonl'), '{"main_query": "a"}\n{"main_query": "b"}\n');
    writeFileSync(join(dir, 'data', 'train.jsonl'), '{"main_query": "c"}\n');
    const noIds = await prepareDebugTask({ ...base, taskId: 'x' });
    assert.equal(!noIds.ok && noIds.code, 'no-ids');
    writeFileSync(join(dir, 'env.yaml'), 'ajet:\n  task_reader:\n    type: env_service\n');
    let err = '';
    const code = await runDebugTask(
      ['--config', join(dir, 'env.yaml'), '--task-id', '1', '--prepare-only'],
      () => undefined,
      (s) => (err += s),
    );
    assert.equal(code, 1);
    assert.match(err, /env_service/);
    assert.equal(
      await runDebugTask(
        ['--task-id', '1'],
        () => undefined,
        () => undefined,
      ),
      2,
    );
    assert.throws(() => readdirSync(join(dir, 'out')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('agentjet debug-task --prepare-only --json: the derived config next to the run and the launcher command', async () => {
  const dir = demoCopy();
  try {
    let out = '';
    const code = await runDebugTask(
      [
        '--config',
        join(dir, demoRun, 'yaml_backup.yaml'),
        '--task-id',
        'demo-001',
        '--num-repeat',
        '2',
        '--prepare-only',
        '--json',
        '--python',
        'python3',
      ],
      (s) => (out += s),
      () => undefined,
    );
    assert.equal(code, 0);
    const r = JSON.parse(out) as { config: string; cwd: string; command: string[] };
    assert.equal(r.cwd, dir, 'the launcher runs where the run was made');
    assert.ok(r.config.startsWith(join(dir, demoRun, 'debug-tasks')));
    assert.deepEqual(r.command.slice(-4), ['--backbone', 'debug', '--conf', r.config]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
