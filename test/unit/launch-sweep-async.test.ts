// The inline debug session's sweep (every 2 s in the extension host) never blocks: it reads the
// process table from /proc asynchronously (no `ps` started) and the companions it must spare
// asynchronously, their liveness from that table.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { companionFolder, companionsOf, companionsOfAsync } from '../../core/launch/companions';
import { FIXED_LOG_ROOTS } from '../../core/launch/plan';
import { idsOfProcStat, listProcesses, listProcessIds } from '../../core/launch/processes';
import { groupProbeAsync, probeGroup } from '../../core/agentjet/liveness';

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

test('listProcessIds: the ids ps gives, without starting ps on Linux', async () => {
  assert.deepEqual(idsOfProcStat(42, '42 (a (b) c) S 7 42 42 0 -1'), { pid: 42, ppid: 7, pgid: 42, args: '' });
  assert.equal(idsOfProcStat(1, 'garbage'), undefined);
  const [ids, ps] = await Promise.all([listProcessIds(), listProcesses()]);
  const mine = (l: { pid: number; ppid: number; pgid: number }[]) =>
    l.filter((p) => p.pid === process.pid).map(({ pid, ppid, pgid }) => ({ pid, ppid, pgid }));
  assert.deepEqual(mine(ids), mine(ps));
  assert.equal(mine(ids).length, 1);
});

test('groupProbeAsync answers what probeGroup answers (members, start times), reading /proc without blocking', async (t) => {
  if (process.platform !== 'linux') return t.skip('reads /proc');
  const ps = await listProcesses();
  const pgid = ps.find((p) => p.pid === process.pid)!.pgid;
  const probe = await groupProbeAsync();
  assert.ok(probe);
  const pick = (l: { pid: number; startMs?: number }[] | undefined) =>
    (l ?? []).filter((m) => m.pid === process.pid).map((m) => [m.pid, m.startMs]);
  assert.deepEqual(pick(probe(pgid)), pick(probeGroup(pgid)));
  assert.equal(pick(probe(pgid)).length, 1);
  assert.deepEqual(probe(2 ** 22 + 99), []);
});
