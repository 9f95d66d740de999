// Stack reports kept beside the run they were taken of, as the launcher's output is
// (`<experiment>/.agentjet-vscode/stacks/<YYYY_MM_DD_HH_MM_SS>.json` and `.txt`), so `agentjet
// stacks EXP_DIR --last`, `agentjet_run_summary` and a later look read where the run waited even
// after it ended. The newest MAX_KEPT are kept.
import { mkdir, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LAUNCH_RECORD_DIR } from '../agentjet/launchRecord';
import { sessionStamp } from '../agentjet/naming';
import { tryStat, type RunsFs } from '../fs/seam';
import type { StackReport } from './types';

export const MAX_KEPT = 20;
const MAX_READ = 8 * 1024 * 1024;
const NAME = /^\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}(?:-\d+)?\.json$/;

export function stacksFolder(experiment: string): string {
  return join(experiment, LAUNCH_RECORD_DIR, 'stacks');
}

/** Sort key: the stamp, then the same second's counter (`-1`, `-2` after the first). */
const order = (name: string) => {
  const [stamp, n] = name.replace(/\.json$/, '').split('-');
  return `${stamp}-${(n ?? '0').padStart(6, '0')}`;
};
const byAge = (a: string, b: string) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0);

function stem(ms: number): string {
  const d = new Date(ms);
  return `${sessionStamp(d)}_${String(d.getSeconds()).padStart(2, '0')}`;
}

/** Writes the report (JSON) and its text beside the run; returns the JSON file. Older reports past MAX_KEPT go. */
export async function saveStackReport(experiment: string, report: StackReport, text: string): Promise<string> {
  const dir = stacksFolder(experiment);
  await mkdir(dir, { recursive: true });
  let base = stem(report.takenAt);
  const taken = new Set(await readdir(dir).catch(() => [] as string[]));
  for (let i = 1; taken.has(`${base}.json`); i++) base = `${stem(report.takenAt)}-${i}`;
  const json = join(dir, `${base}.json`);
  const tmp = `${json}.${process.pid}.tmp`;
  await writeFile(join(dir, `${base}.txt`), text);
  await writeFile(tmp, JSON.stringify(report));
  await rename(tmp, json);
  const all = (await readdir(dir).catch(() => [] as string[])).filter((n) => NAME.test(n)).sort(byAge);
  for (const old of all.slice(0, Math.max(0, all.length - MAX_KEPT)))
    for (const f of [old, old.replace(/\.json$/, '.txt')]) await unlink(join(dir, f)).catch(() => undefined);
  return json;
}

function isReport(v: unknown): v is StackReport {
  const r = v as Partial<StackReport> | null;
  return !!r && typeof r.takenAt === 'number' && Array.isArray(r.processes) && Array.isArray(r.groups) && Array.isArray(r.notes);
}

/** The newest report kept beside the run, or undefined (none, unreadable, not a report). */
export async function latestStackReport(fs: RunsFs, experiment: string): Promise<{ file: string; report: StackReport } | undefined> {
  const dir = stacksFolder(experiment);
  let names: string[];
  try {
    names = (await fs.readdir(dir)).map((e) => e.name).filter((n) => NAME.test(n));
  } catch {
    return undefined;
  }
  for (const name of names.sort(byAge).reverse()) {
    const file = join(dir, name);
    const st = await tryStat(fs, file);
    if (!st?.isFile() || st.size > MAX_READ) continue;
    try {
      const v: unknown = JSON.parse((await fs.readRange(file, 0, MAX_READ)).toString('utf8'));
      if (isReport(v)) return { file, report: v };
    } catch {
      /* a broken file: the next older one */
    }
  }
  return undefined;
}
