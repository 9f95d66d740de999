import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fixtures } from '../gen';
import { tempDir, writeRun, rolloutRecord, recordText, richTable, appendRollout } from '../util/runtree';
import { nodeFs } from '../../core/fs/seam';
import {
  FileFollower,
  RecordStream,
  completeLines,
  latestStepReward,
  readTailRecords,
  splitRecords,
  decodeRecord,
} from '../../core/runs/records';
import { evalPoint, numericMetrics, parseRichTable, StepAggregator } from '../../core/runs/metrics';
import { RunCollector } from '../../core/runs/collector';

test('tail reader: only complete records; a half-written last record is left out', async () => {
  const tmp = tempDir();
  try {
    const f = join(tmp.path, 'rollout.json.log');
    const full = [rolloutRecord(0, 1), rolloutRecord(1, 0), rolloutRecord(1, 1)].join('');
    const partial = rolloutRecord(2, 1);
    writeFileSync(f, full + partial.slice(0, partial.length - 40));
    const { records } = await readTailRecords(nodeFs(), f, { initialBytes: 1 << 16 });
    assert.equal(records.filter((r) => r.payload).length, 3);
    assert.deepEqual(latestStepReward(records), { step: 1, meanReward: 0.5, records: 2 });
  } finally {
    tmp.dispose();
  }
});

test('tail reader: grows its window when one record is larger than it, and reads no more than maxBytes', async () => {
  const tmp = tempDir();
  try {
    const f = join(tmp.path, 'rollout.json.log');
    const big = recordText({
      header: '[7] Task big (Reward 0.250)',
      nested: true,
      nested_json: { 'big.0.25.0': { len_response_ids: 1, content: { text: ['x'.repeat(200_000)] } } },
    });
    writeFileSync(f, rolloutRecord(6, 1) + big);
    const small = await readTailRecords(nodeFs(), f, { initialBytes: 1024, maxBytes: 4 * 1024 * 1024 });
    assert.equal(latestStepReward(small.records)?.step, 7);
    const capped = await readTailRecords(nodeFs(), f, { initialBytes: 1024, maxBytes: 4096 });
    assert.equal(
      capped.records.filter((r) => r.payload).length,
      0,
      'a window smaller than the record finds nothing, without reading the whole file',
    );
  } finally {
    tmp.dispose();
  }
});

test('tail reader on the odd logs: truncated, hostile and plain files never throw', async () => {
  for (const name of ['truncated.json.log', 'hostile.json.log', 'plain.json.log', 'beast-logger-sample.json.log']) {
    const { records } = await readTailRecords(nodeFs(), join(fixtures().logs, name), { minRecords: 3 });
    assert.ok(Array.isArray(records), name);
  }
  assert.deepEqual(completeLines('tail-of-previous\nA\nB\npartial', false), ['A', 'B']);
  assert.deepEqual(completeLines('A\nB\n', true), ['A', 'B']);
  assert.deepEqual(completeLines('no newline at all', false), []);
});

test('corrupt payloads are reported per record, not thrown', () => {
  const text =
    '2026-01-05 10:00:00.000 | INFO     | m:f:1 - \nbase64:!!!notbase64\n2026-01-05 10:00:01.000 | INFO     | m:f:1 - \n{"header": "[3] Task a (Reward 1)"}\n';
  const recs = splitRecords(text.split('\n')).map(decodeRecord);
  assert.equal(recs.length, 2);
  assert.match(recs[0]!.error ?? '', /invalid base64/);
  assert.deepEqual(latestStepReward(recs), { step: 3, meanReward: 1, records: 1 });
});

test('rich table parser: the evaluation fixture, panels, wrapped values', () => {
  const file = fixtures().evaluation;
  const recs = splitRecords(readFileSync(file, 'utf8').split('\n')).map(decodeRecord);
  const points = recs.map((r, i) => evalPoint(r, i + 1)!);
  assert.equal(points.length, 2);
  assert.equal(points[0]!.metrics['TGC@1'], 0.1766);
  assert.equal(points[1]!.metrics['mean_reward'], 0.4723);
  assert.equal(points[0]!.metrics['num_pass_n_tasks(pass@4)'], 14);
  assert.equal(points[0]!.header, 'gsm8k_test');
  assert.deepEqual(parseRichTable('│ key │ value │\n│ k2  │ 3.5   │'), [
    ['key', 'value'],
    ['k2', '3.5'],
  ]);
  const wrapped = '╭──╮\n│ │ note     │ a long     │ │\n│ │          │ sentence   │ │\n│ │ TGC@1    │ 0.5        │ │\n╰──╯';
  // A wrapped value keeps its lines (the same reader as the token log viewer: core/logs/table.ts).
  assert.deepEqual(parseRichTable(wrapped), [
    ['note', 'a long\nsentence'],
    ['TGC@1', '0.5'],
  ]);
  assert.deepEqual(
    numericMetrics([
      ['a', '1e-3'],
      ['b', 'n/a'],
      ['c', '-2'],
      ['d', '50%'],
    ]),
    { a: 0.001, c: -2, d: 50 },
  );
});

test('step aggregator: mean reward, success rate and response length per step', () => {
  const agg = new StepAggregator();
  const recs = splitRecords(
    [
      rolloutRecord(0, 1, { responseLen: 10 }),
      rolloutRecord(0, 0, { responseLen: 30 }),
      rolloutRecord(1, 0.5, { responseLen: 5 }),
      recordText({ header: 'not a rollout record' }),
    ]
      .join('')
      .split('\n'),
  ).map(decodeRecord);
  for (const r of recs) agg.add(r);
  const pts = agg.points();
  assert.deepEqual(
    pts.map((p) => [p.step, p.records, p.meanReward, p.successRate, p.meanResponseLength]),
    [
      [0, 2, 0.5, 0.5, 20],
      [1, 1, 0.5, 0, 5],
    ],
  );
  assert.equal(agg.skipped, 1);
});

test('file follower: picks up appended bytes, waits for a record cut mid-line, restarts after truncation', async () => {
  const tmp = tempDir();
  try {
    const f = join(tmp.path, 'x.json.log');
    const rec = rolloutRecord(4, 1);
    writeFileSync(f, rec.slice(0, 30));
    const follower = new FileFollower(f, 16);
    const stream = new RecordStream();
    const fs = nodeFs();
    assert.equal(stream.feed((await follower.poll(fs)).lines).length, 0);
    appendFileSync(f, rec.slice(30, rec.length - 10));
    assert.equal(stream.feed((await follower.poll(fs)).lines).length, 0, 'payload line incomplete');
    appendFileSync(f, rec.slice(rec.length - 10) + '2026-01-05 10:00:00.000 | INFO     | m:f:1 - é€\n');
    const got = stream.feed((await follower.poll(fs)).lines);
    assert.equal(got.length, 1);
    assert.equal(got[0]!.payload?.header, '[4] Task t4x1000 (Reward 1.000)');
    writeFileSync(f, rolloutRecord(0, 0));
    const again = await follower.poll(fs);
    assert.equal(again.reset, true);
    stream.reset();
    const after = stream.feed(again.lines);
    assert.deepEqual(
      after.map((r) => r.payload?.header),
      ['[0] Task t0x0 (Reward 0.000)'],
    );
  } finally {
    tmp.dispose();
  }
});

test('run collector: a live run is followed incrementally across sessions and hosts', async () => {
  const tmp = tempDir();
  try {
    const exp = writeRun(tmp.path, {
      name: 'live',
      hosts: [
        {
          host: 'a',
          rollout: [
            [0, 0],
            [0, 1],
          ],
          evaluations: [{ 'TGC@1': '0.25', mean_reward: 0.3 }],
          exceptions: ['Prompt text mismatch'],
        },
        { host: 'b', rollout: [[0, 1]] },
      ],
    });
    const fs = nodeFs();
    const c = new RunCollector(exp);
    assert.equal(await c.poll(fs), true);
    let s = c.series();
    assert.deepEqual(
      s.steps.map((p) => [p.step, p.records]),
      [[0, 3]],
    );
    assert.equal(s.evals[0]!.metrics['TGC@1'], 0.25);
    assert.equal(s.exceptions[0]!.title, 'Prompt text mismatch');
    assert.equal(await c.poll(fs), false, 'nothing new');
    const opsBefore = fs.ops;
    appendRollout(join(exp, '2026_01_05_10_00', 'a'), rolloutRecord(1, 1));
    assert.equal(await c.poll(fs), true);
    s = c.series();
    assert.deepEqual(
      s.steps.map((p) => [p.step, p.records, p.meanReward]),
      [
        [0, 3, 2 / 3],
        [1, 1, 1],
      ],
    );
    assert.ok(fs.ops - opsBefore < 40, `a poll costs a bounded number of fs operations (${fs.ops - opsBefore})`);
    // A second session starts (resume): its records join the same curve.
    const s2 = join(exp, '2026_01_05_12_00', 'a', 'rollout');
    mkdirSync(s2, { recursive: true });
    writeFileSync(join(s2, 'rollout.json.log'), rolloutRecord(2, 0.5));
    await c.poll(fs);
    assert.deepEqual(
      c.series().steps.map((p) => p.step),
      [0, 1, 2],
    );
    // A traceback ends the regular log: it shows in the exception list.
    appendFileSync(join(exp, '2026_01_05_12_00', 'a', 'boom.txt'), '');
    mkdirSync(join(exp, '2026_01_05_12_00', 'a', 'regular'), { recursive: true });
    writeFileSync(
      join(exp, '2026_01_05_12_00', 'a', 'regular', 'regular.log'),
      'Traceback (most recent call last):\n  File "x"\nKeyError: \'x\'\n',
    );
    await c.poll(fs);
    assert.equal(c.series().exceptions.at(-1)!.title, "traceback: KeyError: 'x'");
  } finally {
    tmp.dispose();
  }
});

test('run collector: a huge rollout log is read in steps (pendingBytes), not all at once', async () => {
  const tmp = tempDir();
  try {
    const exp = writeRun(tmp.path, {
      name: 'big',
      hosts: [{ rollout: Array.from({ length: 60 }, (_, i) => [Math.floor(i / 6), i % 2] as [number, number]) }],
    });
    const c = new RunCollector(exp, 4096);
    await c.poll(nodeFs());
    assert.ok(c.series().pendingBytes > 0);
    for (let i = 0; i < 200 && c.series().pendingBytes > 0; i++) await c.poll(nodeFs());
    assert.equal(c.series().pendingBytes, 0);
    assert.equal(
      c.series().steps.reduce((a, p) => a + p.records, 0),
      60,
    );
  } finally {
    tmp.dispose();
  }
});

test('richTable helper round-trips through the parser', () => {
  assert.deepEqual(parseRichTable(richTable({ a: 1, bb: 'x y' })), [
    ['a', '1'],
    ['bb', 'x y'],
  ]);
});
