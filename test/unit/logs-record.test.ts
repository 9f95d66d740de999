import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { decodePayload, parseHeaderLine, parseNestedKey, parseRecordTitle } from '../../core/logs/record';

test('parses loguru header lines with and without a trailing space', () => {
  const h = parseHeaderLine('2026-01-05 10:00:00.123 | INFO     | ajet.context_tracker.multiagent_tracking:generate_log:556 - ');
  assert.deepEqual(h, {
    time: '2026-01-05 10:00:00.123',
    level: 'INFO',
    source: 'ajet.context_tracker.multiagent_tracking:generate_log:556',
    message: '',
  });
  assert.equal(parseHeaderLine('2025-05-02 22:07:43.023 | INFO     | __main__:<module>:199 -')?.source, '__main__:<module>:199');
  assert.equal(parseHeaderLine('base64:eJzz'), undefined);
});

test('decodes base64+zlib and plain JSON payloads, reports bad ones without throwing', () => {
  const obj = { header: '[3] Task abc (Reward 0.500)', content: 'x' };
  const b64 = 'base64:' + deflateSync(Buffer.from(JSON.stringify(obj))).toString('base64');
  assert.deepEqual(decodePayload(b64), { ok: true, payload: obj });
  assert.deepEqual(decodePayload(JSON.stringify(obj) + '\r'), { ok: true, payload: obj });
  assert.equal(decodePayload('base64:@@@').ok, false);
  assert.equal(decodePayload('base64:' + Buffer.from('not zlib').toString('base64')).ok, false);
  assert.equal(decodePayload('{"a": ').ok, false);
  assert.equal(decodePayload('[1,2]').ok, false);
});

test('parses record titles and nested keys whose outcome holds dots', () => {
  assert.deepEqual(parseRecordTitle('[12] Task 3c6da5d (Reward 0.500)'), { step: 12, taskId: '3c6da5d', reward: 0.5 });
  assert.deepEqual(parseRecordTitle('gsm8k_test'), {});
  assert.deepEqual(parseNestedKey('3c6da5d.0.5.0'), { taskId: '3c6da5d', outcome: '0.5', index: 0, shape: 'indexed' });
  assert.equal(parseNestedKey('nodots'), undefined);
});
