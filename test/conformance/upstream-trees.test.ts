// The upstream trees the conformance layer runs are the pinned ones (upstream.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pins, withUpstream, type UpstreamName } from '../util/upstream';

for (const name of Object.keys(pins) as UpstreamName[]) {
  test(
    `${name} is the pinned commit`,
    withUpstream(name, (dir) => {
      const line = readFileSync(join(dir, 'SOURCE_COMMIT'), 'utf8').trim();
      assert.equal(line.split(/\s+/)[0], pins[name].commit);
    }),
  );
}
