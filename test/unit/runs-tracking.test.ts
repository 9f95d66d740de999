// A run's SwanLab / TensorBoard folders (trainer_common.logger, SWANLAB_LOG_DIR, TENSORBOARD_DIR) are
// artefacts of the run with the command that opens them; AgentJet 0.0.4's own folders under
// saved_experiments (swanlog/, hydra_outputs/, companion_logs/ with its .lock files) are not runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../util/runtree';
import { collectRuns } from '../../cli/runs';
import { loggerNames, trackingCandidates, trackingOpenCommand } from '../../core/runs/tracking';
import { snapshotFacts } from '../../core/runs/discover';

function run(ws: string, name: string, logger: string, project = 'proj'): void {
  const exp = join(ws, 'saved_experiments', name);
  mkdirSync(join(exp, '2026_05_26_09_07', 'gpu-0', 'regular'), { recursive: true });
  writeFileSync(join(exp, 'yaml_backup.yaml'), `ajet:\n  project_name: ${project}\n  trainer_common:\n    logger: ${logger}\n`);
}

test('logger names from the forms trainer_common.logger takes', () => {
  assert.deepEqual(loggerNames('swanlab'), ['swanlab']);
  assert.deepEqual(loggerNames(['console', 'tensorboard']), ['console', 'tensorboard']);
  assert.deepEqual(loggerNames("['console','swanlab']"), ['console', 'swanlab']);
  assert.deepEqual(loggerNames(3), []);
  assert.deepEqual(snapshotFacts('ajet:\n  trainer_common:\n    logger:\n    - console\n    - swanlab\n').loggers, ['console', 'swanlab']);
  assert.equal(snapshotFacts('ajet:\n  project_name: p\n').loggers, undefined);
});

test('where the loggers write: SWANLAB_LOG_DIR (default saved_experiments/swanlog), tensorboard_log/<project>/<exp> or TENSORBOARD_DIR', () => {
  const base = { projectDir: '/w', project: 'p', experiment: 'e' };
  assert.deepEqual(trackingCandidates({ ...base, loggers: ['swanlab', 'tensorboard'] }), [
    { logger: 'swanlab', path: '/w/saved_experiments/swanlog', shared: true },
    { logger: 'tensorboard', path: '/w/tensorboard_log/p/e', shared: false },
  ]);
  assert.deepEqual(
    trackingCandidates({ ...base, loggers: ['swanlab', 'tensorboard'], env: { SWANLAB_LOG_DIR: 'sl', TENSORBOARD_DIR: '/tb' } }),
    [
      { logger: 'swanlab', path: '/w/sl', shared: true },
      { logger: 'tensorboard', path: '/tb', shared: true },
    ],
  );
  assert.deepEqual(trackingCandidates({ ...base, loggers: ['console'] }), []);
  assert.equal(trackingOpenCommand('tensorboard', '/a b/x'), "tensorboard --logdir '/a b/x'");
  assert.equal(trackingOpenCommand('swanlab', '/w/saved_experiments/swanlog'), 'swanlab watch /w/saved_experiments/swanlog');
});

test("Runs: the tracking folders that exist are the run's artefacts; swanlog, hydra_outputs and companion_logs are not runs", async () => {
  const ws = tempDir('aj-track-');
  try {
    const w = ws.path;
    run(w, 'sw_20260526_090703_045', 'swanlab');
    run(w, 'tb_run', "['console','tensorboard']");
    run(w, 'none_run', 'console');
    mkdirSync(join(w, 'saved_experiments', 'swanlog', 'run-20260526_090705-abc'), { recursive: true });
    mkdirSync(join(w, 'tensorboard_log', 'proj', 'tb_run'), { recursive: true });
    mkdirSync(join(w, 'saved_experiments', 'hydra_outputs', '2026-05-26', '09-07-03'), { recursive: true });
    const comp = join(w, 'saved_experiments', 'companion_logs', 'companion');
    mkdirSync(comp, { recursive: true });
    writeFileSync(join(comp, 'external_vllm_server.1a2b3c4d.gpu-0.lock'), '');
    const { rows } = await collectRuns([w]);
    assert.deepEqual(rows.map((r) => r.experiment).sort(), ['none_run', 'sw_20260526_090703_045', 'tb_run']);
    const by = (n: string) => rows.find((r) => r.experiment === n)!;
    assert.deepEqual(by('sw_20260526_090703_045').trackingLogs, [
      {
        logger: 'swanlab',
        path: join(w, 'saved_experiments', 'swanlog'),
        shared: true,
        open: `swanlab watch ${join(w, 'saved_experiments', 'swanlog')}`,
      },
    ]);
    assert.equal(by('sw_20260526_090703_045').layout, 'agentjet-0.0.4', "0.0.4's millisecond name");
    assert.deepEqual(
      by('tb_run').trackingLogs?.map((l) => [l.logger, l.path, l.shared]),
      [['tensorboard', join(w, 'tensorboard_log', 'proj', 'tb_run'), false]],
    );
    assert.equal(by('none_run').trackingLogs, undefined);
  } finally {
    ws.dispose();
  }
});
