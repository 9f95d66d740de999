// Issue 39 R2: the MCP server's tool calls run a few at a time, a bounded number wait, one more is
// refused with a message, and a waiting call that is cancelled never runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallQueue, QueueFullError, queuedCall } from '../../core/agents/callQueue';

/** A task that ends when told to. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

test('R2: at most `running` calls at once, in order of arrival; past `waiting` a call is refused at once', async () => {
  const q = new CallQueue({ running: 2, waiting: 3 });
  const started: number[] = [];
  const gates = Array.from({ length: 8 }, gate);
  const results = gates.map((g, i) =>
    q.run(async () => {
      started.push(i);
      await g.opened;
      return i;
    }),
  );
  await Promise.resolve();
  assert.deepEqual(started, [0, 1]);
  assert.equal(q.running, 2);
  assert.equal(q.waiting, 3);
  // Calls 5, 6, 7 found the queue full.
  for (const r of results.slice(5))
    await assert.rejects(r, (e: unknown) => e instanceof QueueFullError && /2 tool calls are running and 3 are waiting/.test(e.message));
  for (const g of gates) g.open();
  assert.deepEqual(await Promise.all(results.slice(0, 5)), [0, 1, 2, 3, 4]);
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  assert.equal(q.peakRunning, 2);
  assert.equal(q.running + q.waiting, 0);
});

test('R2: a waiting call cancelled by its client leaves the queue without running; a failing call frees its turn', async () => {
  const q = new CallQueue({ running: 1, waiting: 4 });
  const g = gate();
  const first = q.run(async () => {
    await g.opened;
    throw new Error('boom');
  });
  const ac = new AbortController();
  let ran = false;
  const cancelled = q.run(async () => {
    ran = true;
  }, ac.signal);
  const third = q.run(async () => 'third');
  assert.equal(q.waiting, 2);
  ac.abort(new Error('client cancelled'));
  await assert.rejects(cancelled, /client cancelled/);
  assert.equal(q.waiting, 1);
  g.open();
  await assert.rejects(first, /boom/);
  assert.equal(await third, 'third');
  assert.equal(ran, false);
});

test('R2: queuedCall answers a refused call as a tool error that says why', async () => {
  const q = new CallQueue({ running: 0, waiting: 0 });
  const r = await queuedCall(q, 'agentjet_log_stats', { path: 'x' }, { roots: ['/'], mayRunPython: false });
  assert.equal(r.isError, true);
  assert.match(r.text, /the server is busy: 0 tool calls are running and 0 are waiting/);
});
