// knowsKey keeps its answers per schema: asked again, in any order, it answers as the first time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseFacts, knowsKey } from '../../core/config/releases';

test('knowsKey answers the same when asked again, a dotted key apart from the path its dots make', () => {
  const f = baseFacts();
  const listed = new Set(f.schema['x-versionKeys']?.agentjet ?? []);
  // A schema path whose dotted spelling the code's key list does not hold.
  const path = Object.entries(f.schema.properties?.ajet?.properties ?? {})
    .flatMap(([s, v]) => Object.keys(v.properties ?? {}).map((k) => [s, k]))
    .find(([s, k]) => !listed.has(`${s}.${k}`));
  assert.ok(path);
  for (let i = 0; i < 2; i++) {
    assert.equal(knowsKey(f, path), true);
    assert.equal(knowsKey(f, [path.join('.')]), false, 'one segment holding a dot is not the path');
    assert.equal(knowsKey(f, [path[0]!, 'no_such_key_zz']), false);
  }
});
