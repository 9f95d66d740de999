// Issue 28, hostile input round 3: "Debug this task" on datasets that are not what they seem. A
// 600 MB single line, /dev/zero, a FIFO, missing files: each a clear message (no stack trace, no
// hang), nothing written. Derived names are unique per task id (a property test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDebugTask } from '../../core/debugTask/prepare';
import { MAX_TASK_LINE_BYTES, uniqueNamePart } from '../../core/debugTask/dataset';
import { runDebugTask } from '../../cli/debugTask';
import { check, fc } from '../util/fc';

/** A folder with a JSONL-reader config whose training and validation files are `train` and `val`. */
function workspace(train = 'data/train.jsonl', val = 'data/val.jsonl'): { dir: string; config: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'aj-dtask-hostile-'));
  mkdirSync(join(dir, 'data'));
  const config = join(dir, 'cfg.yaml');
  writeFileSync(
    config,
    `ajet:\n  task_reader:\n    type: jsonl_dataset_file\n    jsonl_dataset_file:\n      training:\n        file_path: ${train}\n      validation:\n        file_path: ${val}\n`,
  );
  return { dir, config, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

async function prepare(ws: { dir: string; config: string }, taskId = 't1') {
  return prepareDebugTask({ sourceConfig: ws.config, cwd: ws.dir, taskId, outDir: join(ws.dir, 'out') });
}

test('a dataset that is one 600 MB line: a clear message naming the file and line, read no further than the cap', async () => {
  const ws = workspace();
  try {
    const big = join(ws.dir, 'data', 'train.jsonl');
    // A record's start, then 600 MB without a newline (a sparse file: nothing of it is written).
    writeFileSync(big, '{"task_id": "t0", "blob": "');
    truncateSync(big, 600 * 1024 * 1024);
    writeFileSync(join(ws.dir, 'data', 'val.jsonl'), '{"task_id": "t1"}\n');
    const before = process.memoryUsage().rss;
    const r = await prepare(ws);
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.code, 'unreadable');
    assert.match(!r.ok ? r.message : '', new RegExp(`Line 1 of .*train\\.jsonl is longer than ${MAX_TASK_LINE_BYTES / (1024 * 1024)} MB`));
    assert.ok(process.memoryUsage().rss - before < 256 * 1024 * 1024, 'more than the cap was held');
    assert.equal(existsSync(join(ws.dir, 'out')), false);
  } finally {
    ws.dispose();
  }
});

test(
  '/dev/zero, a FIFO or a folder as the dataset: refused before reading, saying what it is',
  { skip: process.platform === 'win32', timeout: 30_000 },
  async () => {
    const ws = workspace('/dev/zero');
    try {
      const r = await prepare(ws);
      assert.match(!r.ok ? r.message : '', /\/dev\/zero is a device, not a file/);
    } finally {
      ws.dispose();
    }
    const fifo = workspace('data/pipe.jsonl');
    try {
      assert.equal(spawnSync('mkfifo', [join(fifo.dir, 'data', 'pipe.jsonl')]).status, 0);
      writeFileSync(join(fifo.dir, 'data', 'val.jsonl'), '{"task_id": "t1"}\n');
      // A read of a FIFO with no writer blocks forever: this ends only because it is never opened.
      const r = await prepare(fifo);
      assert.match(!r.ok ? r.message : '', /pipe\.jsonl is a named pipe \(FIFO\), not a file/);
      // The config itself as a FIFO: the CLI refuses it too.
      const cfgPipe = join(fifo.dir, 'pipe.yaml');
      assert.equal(spawnSync('mkfifo', [cfgPipe]).status, 0);
      let err = '';
      const code = await runDebugTask(
        ['--config', cfgPipe, '--task-id', 't1', '--prepare-only'],
        () => undefined,
        (s) => (err += s),
      );
      assert.equal(code, 2);
      assert.match(err, /pipe\.yaml is a named pipe \(FIFO\), not a file/);
    } finally {
      fifo.dispose();
    }
    const folder = workspace('data');
    try {
      const r = await prepare(folder);
      assert.match(!r.ok ? r.message : '', /data is a folder, not a file/);
    } finally {
      folder.dispose();
    }
  },
);

test('missing dataset files are named (not "records have no task_id"); a config naming none says so', async () => {
  const ws = workspace('data/nope.jsonl', 'data/also-missing.jsonl');
  try {
    const r = await prepare(ws);
    assert.equal(!r.ok && r.code, 'unreadable');
    const msg = !r.ok ? r.message : '';
    assert.match(msg, /nope\.jsonl does not exist/);
    assert.match(msg, /also-missing\.jsonl does not exist/);
    assert.doesNotMatch(msg, /task_id/);
    // One missing, the other holding the task: still refused (AgentJet's reader would fail on it).
    writeFileSync(join(ws.dir, 'data', 'nope.jsonl'), '{"task_id": "t1"}\n');
    const one = await prepare(ws);
    assert.match(!one.ok ? one.message : '', /also-missing\.jsonl does not exist/);
  } finally {
    ws.dispose();
  }
  const none = mkdtempSync(join(tmpdir(), 'aj-dtask-hostile-'));
  try {
    writeFileSync(join(none, 'cfg.yaml'), 'ajet:\n  task_reader:\n    type: jsonl_dataset_file\n');
    const r = await prepareDebugTask({ sourceConfig: join(none, 'cfg.yaml'), cwd: none, taskId: 'x', outDir: join(none, 'out') });
    assert.match(!r.ok ? r.message : '', /names no dataset file/);
  } finally {
    rmSync(none, { recursive: true, force: true });
  }
});

test('a record split over the read chunks and CRLF lines are found as AgentJet reads them', async () => {
  const ws = workspace();
  try {
    const pad = 'x'.repeat((1 << 20) - 20);
    writeFileSync(join(ws.dir, 'data', 'train.jsonl'), `{"task_id": "a", "pad": "${pad}"}\r\n{"task_id": "t1", "main_query": "q"}\r\n`);
    writeFileSync(join(ws.dir, 'data', 'val.jsonl'), '');
    const r = await prepare(ws);
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.task.main_query, 'q');
  } finally {
    ws.dispose();
  }
});

test('property: two different task ids never share a derived name; a plain id keeps its name', () => {
  check(
    fc.property(fc.string({ maxLength: 60, unit: 'binary' }), fc.string({ maxLength: 60, unit: 'binary' }), (a, b) => {
      const na = uniqueNamePart(a);
      assert.match(na, /^[A-Za-z0-9_.-]+$/);
      if (a !== b) assert.notEqual(na, uniqueNamePart(b), `${JSON.stringify(a)} and ${JSON.stringify(b)}`);
      if (/^[A-Za-z0-9_.-]{1,40}$/.test(a)) assert.equal(na, a);
    }),
    2000,
  );
  // The cases the campaign found: a shared 40-character prefix, and texts that sanitise alike.
  const long = 'task-'.repeat(10);
  assert.notEqual(uniqueNamePart(`${long}1`), uniqueNamePart(`${long}2`));
  assert.notEqual(uniqueNamePart('a/b'), uniqueNamePart('a?b'));
  assert.notEqual(uniqueNamePart('a/b'), uniqueNamePart('a-b'));
});

test('two task ids that sanitise alike get two derived configs', async () => {
  const ws = workspace();
  try {
    writeFileSync(join(ws.dir, 'data', 'train.jsonl'), '{"task_id": "a/b"}\n{"task_id": "a?b"}\n');
    writeFileSync(join(ws.dir, 'data', 'val.jsonl'), '');
    const one = await prepare(ws, 'a/b');
    const two = await prepare(ws, 'a?b');
    assert.ok(one.ok && two.ok);
    assert.notEqual(one.config, two.config);
    assert.notEqual(one.taskFile, two.taskFile);
  } finally {
    ws.dispose();
  }
});
