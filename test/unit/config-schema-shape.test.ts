// Issue 42 item 1: every schema node the checks and completion read has one object shape (the same fields in
// the same order), whichever release's facts it comes from, and the same content as the JSON it was made from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schema, shapedSchema, type SchemaNode } from '../../core/config/schema';
import { bundledReleases } from '../../core/config/releases';
import { repoRoot } from '../util/paths';

function nodes(n: SchemaNode, out: SchemaNode[] = []): SchemaNode[] {
  out.push(n);
  for (const c of Object.values(n.properties ?? {})) nodes(c, out);
  if (n.items) nodes(n.items, out);
  return out;
}

test('every node of the bundled schema and of each bundled release has the same fields in the same order', () => {
  const order = Object.keys(schema).join(',');
  let count = 0;
  for (const root of [schema, ...bundledReleases().map((r) => r.schema)])
    for (const n of nodes(root)) {
      count++;
      assert.equal(Object.keys(n).join(','), order);
    }
  assert.ok(count > 1000, `${count} nodes`);
});

test('a shaped schema says what its JSON says, and a subtree shared in the JSON stays shared', () => {
  const raw = JSON.parse(readFileSync(join(repoRoot, 'schemas', 'agentjet.schema.json'), 'utf8')) as SchemaNode;
  assert.deepEqual(JSON.parse(JSON.stringify(schema)), raw);
  const leaf: SchemaNode = { type: 'string', 'x-open': true, 'x-custom': 1 } as SchemaNode;
  const s = shapedSchema({ properties: { a: leaf, b: { properties: { c: leaf } } }, items: { enum: [1, 'x'] } });
  assert.equal(s.properties?.a, s.properties?.b?.properties?.c);
  assert.deepEqual(JSON.parse(JSON.stringify(s)), {
    properties: {
      a: { type: 'string', 'x-open': true, 'x-custom': 1 },
      b: { properties: { c: { type: 'string', 'x-open': true, 'x-custom': 1 } } },
    },
    items: { enum: [1, 'x'] },
  });
  assert.equal(Object.keys(s.items ?? {}).join(','), Object.keys(schema).join(','));
});
