// knowsKey keeps its answers per schema: asked again, in any order, it answers as the first time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseFacts, knowsKey } from '../../core/config/releases';

test('knowsKey answers the same when asked again, a dotted key apart from the path its dots make', () => {
  const f = baseFacts();
  const listed = (f.schema['x-versionKeys']?.agentjet ?? []).includes('rollout.name');
  for (let i = 0; i < 2; i++) {
    assert.equal(knowsKey(f, ['rollout', 'name']), true);
    assert.equal(knowsKey(f, ['rollout', 'no_such_key_zz']), false);
    // One segment that holds a dot: known only through the code's key list, never through the schema path.
    assert.equal(knowsKey(f, ['rollout.name']), listed);
    assert.equal(knowsKey(f, ['rollout.no_such_key_zz']), false);
  }
});
