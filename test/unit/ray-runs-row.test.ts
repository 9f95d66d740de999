// The Ray line on a run's row (core/ray/runLine.ts; extension/ray/runsRow.ts gives it the
// localised words): cluster, nodes alive, workers paused, the missing-figure note.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { describeRay, rayDescription, type RayLineWords } from '../../core/ray/runLine';
import type { RayClusterInfo } from '../../core/ray/types';

const W: RayLineWords = {
  nodesAlive: (n) => `${n} node(s) alive`,
  workersPaused: (n) => `${n} worker(s) paused`,
  paused: (n) => `${n} paused`,
};
const info = (over: Partial<RayClusterInfo> = {}): RayClusterInfo => ({
  sessionDir: '/tmp/ray/session_2026-01-29_10-00-00_123456_42',
  dashboard: undefined,
  address: undefined,
  nodesAlive: undefined,
  paused: 0,
  note: undefined,
  ...over,
});

test('the cluster is named by its dashboard, else its GCS address, else its session folder', () => {
  assert.equal(
    describeRay(info({ dashboard: 'http://127.0.0.1:8265', address: '10.0.0.1:6379', nodesAlive: 2, paused: 1 }), W),
    'Ray: http://127.0.0.1:8265 · 2 node(s) alive · 1 worker(s) paused',
  );
  assert.equal(describeRay(info({ address: '10.0.0.1:6379' }), W), 'Ray: 10.0.0.1:6379 · 0 worker(s) paused');
  assert.equal(describeRay(info(), W), 'Ray: session_2026-01-29_10-00-00_123456_42 · 0 worker(s) paused');
  assert.equal(describeRay(info({ sessionDir: undefined }), W), 'Ray: 0 worker(s) paused');
});

test('nodes alive only when the dashboard answered; the note says why a figure is missing', () => {
  assert.equal(
    describeRay(info({ dashboard: 'http://h:8265', nodesAlive: 0, paused: 3 }), W),
    'Ray: http://h:8265 · 0 node(s) alive · 3 worker(s) paused',
  );
  assert.equal(
    describeRay(info({ dashboard: 'http://h:8265', note: 'dashboard not reachable' }), W),
    'Ray: http://h:8265 · 0 worker(s) paused (dashboard not reachable)',
  );
});

test('the row description gains the paused count only while workers are paused', () => {
  assert.equal(rayDescription('3 sessions', info({ paused: 2 }), W), '3 sessions · 2 paused');
  assert.equal(rayDescription(undefined, info({ paused: 1 }), W), '1 paused');
  assert.equal(rayDescription('', info({ paused: 1 }), W), '1 paused');
  assert.equal(rayDescription('3 sessions', info({ paused: 0 }), W), '3 sessions');
});
