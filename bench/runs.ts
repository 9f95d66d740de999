// npm run bench:runs — the Runs view's costs on a generated workspace (500 experiments x 4
// sessions by default): first level, all statuses, expanding one run, and the refresh after one
// file changes, in milliseconds and file-system operations. Prints figures; asserts nothing.
//   node --import tsx bench/runs.ts [--experiments 500] [--sessions 4] [--big-mb 200] [--keep]
import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { inspectExperiment, listHostArtefacts } from '../core/runs/discover';
import { mapLimit, nodeFs } from '../core/fs/seam';
import { RunsModel } from '../core/runs/model';
import { latestStepReward, readTailRecords } from '../core/runs/records';
import { rolloutRecord, tempDir, recordText, richTable } from '../test/util/runtree';
import { writeRolloutLog } from '../test/gen/rollout';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const EXPERIMENTS = arg('experiments', 500);
const SESSIONS = arg('sessions', 4);
const BIG_MB = arg('big-mb', 200);
const keep = process.argv.includes('--keep');

function generate(ws: string): number {
  let files = 0;
  const root = join(ws, 'saved_experiments');
  const rollout = Array.from({ length: 8 }, (_, i) => rolloutRecord(Math.floor(i / 4), i % 3 === 0 ? 1 : 0.5)).join('');
  const evaluation = recordText({ header: 'gsm8k_test', content: richTable({ 'TGC@1': '0.5', mean_reward: '0.5' }) });
  for (let e = 0; e < EXPERIMENTS; e++) {
    const name = `exp_${String(e).padStart(4, '0')}`;
    const exp = join(root, name);
    mkdirSync(exp, { recursive: true });
    writeFileSync(join(exp, 'yaml_backup.yaml'), `ajet:\n  project_name: bench\n  experiment_name: ${name}\n`);
    files++;
    for (let s = 0; s < SESSIONS; s++) {
      const t = new Date(2026, 0, 1 + (e % 28), s * 5, e % 60);
      const p = (n: number) => String(n).padStart(2, '0');
      const host = join(
        exp,
        `${t.getFullYear()}_${p(t.getMonth() + 1)}_${p(t.getDate())}_${p(t.getHours())}_${p(t.getMinutes())}`,
        'gpu-node-0',
      );
      for (const m of ['rollout', 'evaluation', 'exception', 'regular', 'token_clip', 'bad_case'])
        mkdirSync(join(host, m), { recursive: true });
      writeFileSync(join(host, 'rollout', 'rollout.json.log'), rollout);
      writeFileSync(join(host, 'rollout', 'rollout.log'), '');
      writeFileSync(join(host, 'evaluation', 'evaluation.json.log'), evaluation);
      writeFileSync(join(host, 'exception', 'exception.json.log'), '');
      writeFileSync(join(host, 'regular', 'regular.log'), '2026-01-01 00:00:00.000 | INFO     | ajet:fit:1 - step 1 done\n');
      for (const m of ['token_clip', 'bad_case']) writeFileSync(join(host, m, `${m}.json.log`), '');
      files += 7;
    }
  }
  return files;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
}

async function main(): Promise<void> {
  const tmp = tempDir('agentjet-bench-runs-');
  try {
    const t0 = performance.now();
    const files = generate(tmp.path);
    console.log(
      `workspace: ${EXPERIMENTS} experiments x ${SESSIONS} sessions, ${files} files, generated in ${(performance.now() - t0).toFixed(0)} ms (${tmp.path})`,
    );
    const roots = [{ path: join(tmp.path, 'saved_experiments'), source: 'saved_experiments' as const }];

    // 1. First level: the rows the tree renders at once (names, times; details follow per row).
    const fs = nodeFs();
    const model = new RunsModel(fs, { localHost: 'bench-host' });
    model.setRoots(roots);
    const [entries, firstMs] = await timed(() => model.experiments());
    console.log(`first level: ${entries.length} rows in ${firstMs.toFixed(1)} ms, ${fs.ops} fs operations`);

    // 2. Every row's status, step and reward (what the rows fill in with in the background).
    const opsBefore = fs.ops;
    const [infos, allMs] = await timed(() => mapLimit(entries, 16, (e) => model.info(e)));
    const statuses = new Map<string, number>();
    for (const i of infos) statuses.set(i.status, (statuses.get(i.status) ?? 0) + 1);
    console.log(
      `all details: ${infos.length} runs in ${allMs.toFixed(0)} ms, ${fs.ops - opsBefore} fs operations (${[...statuses].map(([k, v]) => `${v} ${k}`).join(', ')})`,
    );

    // 3. Expanding one run cold: its details, then its newest session's artefacts.
    const cold = nodeFs();
    const target = entries[Math.floor(entries.length / 2)]!;
    const [, expandMs] = await timed(async () => {
      const info = await inspectExperiment(cold, target, { localHost: 'bench-host' });
      const host = info.sessions.at(-1)!.hosts[0]!;
      return listHostArtefacts(cold, host.path);
    });
    console.log(`expand one run (cold): ${expandMs.toFixed(1)} ms, ${cold.ops} fs operations`);

    // 4. One file changes: a rollout record is appended to one run; the tree re-reads what changed.
    const sessionName = target.sessions.at(-1)!;
    const changed = join(target.path, sessionName, 'gpu-node-0', 'rollout', 'rollout.json.log');
    appendFileSync(changed, rolloutRecord(9, 1));
    const inv = model.invalidate(changed);
    const before = fs.ops;
    const [after, refreshMs] = await timed(async () => {
      const list = await model.experiments();
      return mapLimit(list, 16, (e) => model.info(e));
    });
    const updated = after.find((i) => i.entry.path === target.path)!;
    console.log(
      `refresh after one file changed (invalidated: ${inv.level}): ${refreshMs.toFixed(1)} ms, ${fs.ops - before} fs operations (vs ${before} for the first level plus all details); run now at step ${updated.latestStep}`,
    );

    // 5. A new run appears at the root: only that folder is read.
    const newExp = join(tmp.path, 'saved_experiments', 'exp_new');
    mkdirSync(join(newExp, '2026_02_01_00_00', 'gpu-node-0', 'rollout'), { recursive: true });
    writeFileSync(join(newExp, '2026_02_01_00_00', 'gpu-node-0', 'rollout', 'rollout.json.log'), rolloutRecord(0, 1));
    model.invalidate(newExp);
    const before2 = fs.ops;
    const [list2, newMs] = await timed(() => model.experiments());
    console.log(
      `new run appears: ${list2.length} rows in ${newMs.toFixed(1)} ms, ${fs.ops - before2} fs operations; newest is ${list2[0]!.name}`,
    );

    // 6. Latest step and reward from a big rollout log: only its tail is read.
    const bigHost = join(tmp.path, 'big', '2026_03_01_00_00', 'gpu-node-0');
    mkdirSync(join(bigHost, 'rollout'), { recursive: true });
    const bigFile = join(bigHost, 'rollout', 'rollout.json.log');
    // The project's rollout generator, streamed to disk (real token payloads, base64 + zlib).
    const [gen, genMs] = await timed(async () => writeRolloutLog(bigFile, { targetBytes: BIG_MB * 1024 * 1024, tokens: 400, seed: 7 }));
    console.log(`(generated ${gen.records} records, ${(gen.bytes / 1048576).toFixed(0)} MB in ${(genMs / 1000).toFixed(1)} s)`);
    const tailFs = nodeFs();
    const [tail, tailMs] = await timed(() => readTailRecords(tailFs, bigFile, { minRecords: 2 }));
    const sr = latestStepReward(tail.records);
    console.log(
      `latest step of a ${(tail.size / 1048576).toFixed(0)} MB rollout log: step ${sr?.step}, reward ${sr?.meanReward?.toFixed(2)} in ${tailMs.toFixed(1)} ms, ${tailFs.ops} fs operations`,
    );
  } finally {
    if (!keep) tmp.dispose();
  }
}

void main();
