// The stalled-run rules (core/runs/health.ts) with an injected clock, and the reader of the times
// they judge (core/runs/progress.ts) on files written here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import {
  DEFAULT_STALL_MINUTES,
  formatDuration,
  healthJson,
  healthText,
  runHealth,
  stallMinutesOf,
  usualStepSeconds,
  type RunProgress,
  type StepStart,
} from '../../core/runs/health';
import { loguruTimeMs, phaseOfLines, readProgress } from '../../core/runs/progress';
import { syncNodeFs } from '../../core/fs/seam';
import { fc, check } from '../util/fc';

const MIN = 60_000;
const T0 = new Date(2026, 1, 1, 13, 0, 0).getTime();

/** Steps 1..n starting every `everyMin` minutes from T0. */
function steps(n: number, everyMin: number): StepStart[] {
  return Array.from({ length: n }, (_, i) => ({ step: i + 1, startMs: T0 + i * everyMin * MIN }));
}

test('a run whose steps took 3 min and that wrote nothing for 41 min reads stalled, since its last write', () => {
  const s = steps(5, 3); // last step started at 13:12
  const p: RunProgress = { steps: s, lastWriteMs: T0 + 14 * MIN };
  const now = T0 + 55 * MIN;
  const h = runHealth(p, now, 10);
  assert.equal(h.state, 'stalled');
  assert.equal(h.usualStepS, 180);
  assert.equal(h.sinceMs, T0 + 14 * MIN);
  assert.equal(Math.round(h.idleS!), 41 * 60);
  assert.equal(healthText(h, now), 'stalled since 13:14 (no step for 41 min; its steps took 3 min)');
  const j = healthJson(h, now);
  assert.equal(j.state, 'stalled');
  assert.equal(j.since, new Date(T0 + 14 * MIN).toISOString());
  assert.equal(j.usualStepS, 180);
});

test('the same run 9 minutes after its last write is progressing (below stallMinutes), and at 11 it is stalled', () => {
  const p: RunProgress = { steps: steps(5, 1), lastWriteMs: T0 + 4 * MIN };
  assert.equal(runHealth(p, T0 + 13 * MIN, 10).state, 'progressing');
  assert.equal(runHealth(p, T0 + 15 * MIN, 10).state, 'stalled');
  // A lower setting judges sooner; several step times still have to pass (4 x 1 min).
  assert.equal(runHealth(p, T0 + 8.5 * MIN, 2).state, 'stalled');
  assert.equal(runHealth(p, T0 + 8.1 * MIN, 0.5).state, 'stalled');
  assert.equal(runHealth(p, T0 + 7.9 * MIN, 0.5).state, 'progressing', 'under 4 step times');
});

test('slow steps need several of their own times: 30 min steps are not stalled after 1 h', () => {
  const p: RunProgress = { steps: steps(3, 30), lastWriteMs: T0 + 60 * MIN };
  assert.equal(runHealth(p, T0 + 120 * MIN, 10).state, 'progressing');
  assert.equal(runHealth(p, T0 + 181 * MIN, 10).state, 'stalled');
});

test('first step: no step time yet, never an alarm; a resume gap is no step time', () => {
  assert.equal(runHealth({ steps: [] }, T0 + 1000 * MIN, 1).state, 'starting');
  assert.equal(runHealth({ steps: steps(1, 1), lastWriteMs: T0 }, T0 + 1000 * MIN, 1).state, 'starting');
  assert.equal(
    usualStepSeconds([
      { step: 5, startMs: T0 },
      { step: 40, startMs: T0 + MIN },
    ]),
    undefined,
  );
  assert.equal(
    runHealth(
      {
        steps: [
          { step: 5, startMs: T0 },
          { step: 40, startMs: T0 + MIN },
        ],
      },
      T0 + 1000 * MIN,
      1,
    ).state,
    'starting',
  );
});

test('the usual step time is the median, so one slow step (a validation) does not set it', () => {
  const s: StepStart[] = [0, 2, 4, 30, 32, 34].map((m, i) => ({ step: i + 1, startMs: T0 + m * MIN }));
  assert.equal(usualStepSeconds(s), 120);
});

test('a known long phase (validation, checkpoint, loading) says so and waits PHASE_FACTOR times longer', () => {
  const s = steps(5, 1);
  const base = { steps: s, lastWriteMs: T0 + 5 * MIN };
  const now = T0 + 25 * MIN; // 20 min of silence: stalled without a phase
  assert.equal(runHealth(base, now, 10).state, 'stalled');
  for (const [kind, state] of [
    ['validation', 'validating'],
    ['checkpoint', 'saving-checkpoint'],
    ['loading', 'loading-model'],
  ] as const) {
    const h = runHealth({ ...base, phase: { kind, sinceMs: T0 + 5 * MIN } }, now, 10);
    assert.equal(h.state, state);
    assert.equal(h.sinceMs, T0 + 5 * MIN);
    assert.equal(runHealth({ ...base, phase: { kind, sinceMs: T0 + 5 * MIN } }, T0 + 46 * MIN, 10).state, 'stalled', 'not forever');
  }
  // A phase that began before the latest step ended with it.
  assert.equal(runHealth({ ...base, phase: { kind: 'validation', sinceMs: T0 + 3 * MIN } }, now, 10).state, 'stalled');
  assert.match(
    healthText(runHealth({ ...base, phase: { kind: 'validation', sinceMs: T0 + 5 * MIN } }, now, 10), now),
    /^validating since 13:05$/,
  );
});

test('stallMinutes: only a positive finite number counts', () => {
  assert.equal(stallMinutesOf(3), 3);
  for (const bad of [0, -1, Number.NaN, Infinity, '5', undefined]) assert.equal(stallMinutesOf(bad), DEFAULT_STALL_MINUTES);
  assert.equal(formatDuration(45), '45 s');
  assert.equal(formatDuration(125 * 60), '2 h 5 min');
  assert.equal(formatDuration(120 * 60), '2 h');
});

const progressArb = fc.record({
  gaps: fc.array(fc.integer({ min: 0, max: 120 * 60 }), { maxLength: 12 }),
  lastAfterS: fc.integer({ min: 0, max: 48 * 3600 }),
  nowAfterS: fc.integer({ min: 0, max: 96 * 3600 }),
  minutes: fc.double({ min: 0.01, max: 600, noNaN: true }),
  phase: fc.option(fc.constantFrom('validation' as const, 'checkpoint' as const, 'loading' as const)),
});

function build(a: { gaps: number[]; lastAfterS: number; nowAfterS: number }) {
  let ms = T0;
  const s: StepStart[] = [{ step: 1, startMs: ms }];
  for (const g of a.gaps) s.push({ step: s.length + 1, startMs: (ms += g * 1000) });
  const lastWriteMs = ms + a.lastAfterS * 1000;
  return { s, lastWriteMs, now: lastWriteMs + a.nowAfterS * 1000 };
}

test('property: never stalled with fewer than two steps of history, nor before stallMinutes of silence, nor before 4 step times', () => {
  check(
    fc.property(progressArb, (a) => {
      const { s, lastWriteMs, now } = build(a);
      const p: RunProgress = { steps: s, lastWriteMs, ...(a.phase ? { phase: { kind: a.phase, sinceMs: lastWriteMs } } : {}) };
      const h = runHealth(p, now, a.minutes);
      const idle = (now - lastWriteMs) / 1000;
      if (s.length < 2) assert.notEqual(h.state, 'stalled');
      if (idle <= a.minutes * 60) assert.notEqual(h.state, 'stalled');
      const usual = usualStepSeconds(s);
      if (usual !== undefined && idle <= 4 * usual) assert.notEqual(h.state, 'stalled');
      // Fewer steps never alarm where more would not (the first step has the most slack).
      if (s.length < 2) assert.equal(h.state === 'starting' || !!a.phase, true);
      // Silence that long without a phase, with history, always alarms: the rule can fail.
      if (usual !== undefined && !a.phase && idle > Math.max(4 * usual, a.minutes * 60)) assert.equal(h.state, 'stalled');
      // And the text always names the state's words without throwing.
      assert.ok(healthText(h, now).length > 0);
    }),
    400,
  );
});

test('property: time only makes it worse: if stalled at t, stalled at every later t', () => {
  check(
    fc.property(progressArb, fc.integer({ min: 0, max: 3600 * 24 }), (a, later) => {
      const { s, lastWriteMs, now } = build(a);
      const p: RunProgress = { steps: s, lastWriteMs };
      if (runHealth(p, now, a.minutes).state === 'stalled') assert.equal(runHealth(p, now + later * 1000, a.minutes).state, 'stalled');
    }),
    300,
  );
});

test('phase markers: the last one decides, an end closes it', () => {
  assert.equal(phaseOfLines(['2026-02-01 13:00:00.000 | INFO | x - ==========start validate rollout=========='])?.kind, 'validation');
  assert.equal(phaseOfLines(['... start validate rollout', '... end validate rollout']), undefined);
  assert.equal(phaseOfLines(['local_global_step_folder: /ck/global_step_20'])?.kind, 'checkpoint');
  assert.equal(phaseOfLines(['Loading safetensors checkpoint shards:  50% Completed | 1/2'])?.kind, 'loading');
  assert.equal(phaseOfLines(['step 3 done']), undefined);
  assert.equal(loguruTimeMs('2026-02-01 13:00:05.250 | INFO'), new Date(2026, 1, 1, 13, 0, 5, 250).getTime());
  assert.equal(loguruTimeMs('garbage'), undefined);
});

function record(time: string, step: number): string {
  const payload = JSON.stringify({ header: `[${step}] Task t${step} (Reward 0.500)` });
  return `${time} | INFO     | ajet.context_tracker:generate_log:556 - \nbase64:${deflateSync(Buffer.from(payload)).toString('base64')}\n`;
}

test('readProgress: step starts from record header times, the newest write (not the lock), the open phase', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-health-'));
  try {
    for (const m of ['rollout', 'regular']) mkdirSync(join(dir, m));
    const recs = [1, 1, 2, 2, 3].map((s, i) => record(`2026-02-01 13:0${(s - 1) * 3}:0${i}.000`, s)).join('');
    writeFileSync(join(dir, 'rollout', 'rollout.json.log'), recs);
    writeFileSync(
      join(dir, 'regular', 'regular.log'),
      '2026-02-01 13:06:30.000 | INFO     | ajet.backbone.trainer_verl:_validate:917 - ==========start validate rollout==========\n',
    );
    writeFileSync(join(dir, '.logger_lock'), '4242');
    const t1 = new Date(2026, 1, 1, 13, 7);
    utimesSync(join(dir, 'rollout', 'rollout.json.log'), t1, t1);
    utimesSync(join(dir, 'regular', 'regular.log'), t1, t1);
    const p = await readProgress(syncNodeFs(), { hostPath: dir, modules: ['regular', 'rollout'] });
    assert.deepEqual(
      p.steps.map((s) => s.step),
      [1, 2, 3],
    );
    assert.equal(p.steps[1]!.startMs, new Date(2026, 1, 1, 13, 3, 2).getTime());
    assert.equal(p.lastWriteMs, t1.getTime(), 'the lock (written now) is not progress');
    assert.equal(p.phase?.kind, 'validation');
    assert.equal(p.phase?.sinceMs, new Date(2026, 1, 1, 13, 6, 30).getTime());
    const h = runHealth(p, t1.getTime() + 30 * MIN, 10);
    assert.equal(h.state, 'validating');
    assert.equal(runHealth(p, t1.getTime() + 50 * MIN, 10).state, 'stalled');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// verl/trainer/ppo/ray_trainer.py `_save_checkpoint` (volcengine/verl): it prints
// `local_global_step_folder: <default_local_dir>/global_step_N` as the save begins, prints nothing
// when it ends, and writes `<default_local_dir>/latest_checkpointed_iteration.txt` last.
test("readProgress: verl's checkpoint save is a phase until its tracker names the step", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-health-'));
  try {
    for (const m of ['rollout', 'regular']) mkdirSync(join(dir, m));
    const ck = join(dir, 'ck');
    mkdirSync(join(ck, 'global_step_2', 'actor'), { recursive: true });
    writeFileSync(join(dir, 'rollout', 'rollout.json.log'), [1, 2].map((s) => record(`2026-02-01 13:0${s}:00.000`, s)).join(''));
    writeFileSync(
      join(dir, 'regular', 'regular.log'),
      `2026-02-01 13:05:00.000 | INFO     | x - (TaskRunner pid=7) local_global_step_folder: ${ck}/global_step_2\n`,
    );
    const src = {
      hostPath: dir,
      modules: ['regular', 'rollout'],
      checkpointDir: ck,
      checkpoint: { step: 2, path: join(ck, 'global_step_2') },
    };
    const saving = await readProgress(syncNodeFs(), src);
    assert.equal(saving.phase?.kind, 'checkpoint');
    assert.equal(saving.phase?.sinceMs, new Date(2026, 1, 1, 13, 5).getTime());
    // An older save's tracker does not end this one.
    writeFileSync(join(ck, 'latest_checkpointed_iteration.txt'), '1');
    assert.equal((await readProgress(syncNodeFs(), src)).phase?.kind, 'checkpoint');
    // verl wrote the tracker: the save is over, a silence now is not a long phase.
    writeFileSync(join(ck, 'latest_checkpointed_iteration.txt'), '2');
    assert.equal((await readProgress(syncNodeFs(), src)).phase, undefined);
    // No log line, only the folder: a step folder the tracker does not name yet is being written.
    writeFileSync(join(dir, 'regular', 'regular.log'), '2026-02-01 13:05:00.000 | INFO     | x - step 2 done\n');
    mkdirSync(join(ck, 'global_step_3'));
    const folder = await readProgress(syncNodeFs(), { ...src, checkpoint: { step: 3, path: join(ck, 'global_step_3') } });
    assert.equal(folder.phase?.kind, 'checkpoint');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('phase markers: verl\'s SFT handler and AgentJet\'s forced save open a checkpoint phase; other "saving" lines do not', () => {
  assert.equal(phaseOfLines(['Saving checkpoint to: /ck/global_step_5'])?.kind, 'checkpoint');
  assert.equal(phaseOfLines(['Force saving checkpoint: ESI instance expiration approaching.'])?.kind, 'checkpoint');
  assert.equal(phaseOfLines(['saving checkpoint metadata is slow']), undefined);
});
