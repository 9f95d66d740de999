// The inline debug session's sweep (every 2 s in the extension host) reads the companions it must
// spare without blocking: companionsOfAsync finds what companionsOf finds, its liveness from the
// process list the sweep already took.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { companionFolder, companionsOf, companionsOfAsync } from '../../core/launch/companions';
import { FIXED_LOG_ROOTS } from '../../core/launch/plan';

test('companionsOfAsync lists the companions companionsOf lists, in every fixed log root, liveness from the given probe', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'aj-comp-async-'));
  try {
    const pgids: number[] = [];
    FIXED_LOG_ROOTS.forEach((root, i) => {
      const dir = companionFolder(cwd, root);
      mkdirSync(dir, { recursive: true });
      const pgid = 4_000_000 + i;
      pgids.push(pgid);
      writeFileSync(join(dir, `external_vllm_server.abc${i}.${hostname()}.pgid`), `${pgid}\n`);
      writeFileSync(join(dir, `external_vllm_server.abc${i}.${hostname()}.log`), '');
      writeFileSync(join(dir, 'not-a-companion.txt'), 'x');
    });
    const live = pgids[0]!;
    const got = await companionsOfAsync(cwd, (g) => (g === live ? [{ pid: g, pgid: g }] : []));
    assert.deepEqual(got.map((c) => c.pgid).sort(), [...pgids].sort());
    assert.deepEqual(
      companionsOf(cwd)
        .map((c) => c.pgid)
        .sort(),
      [...pgids].sort(),
    );
    assert.deepEqual(
      got.filter((c) => c.alive).map((c) => c.pgid),
      [live],
      'alive as the process list says',
    );
    assert.deepEqual(await companionsOfAsync(join(cwd, 'none')), []);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
