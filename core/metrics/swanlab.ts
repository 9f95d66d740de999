// SwanLab's local run folders: `SWANLAB_LOG_DIR/run-<YYYYmmdd_HHMMSS>-<id>/` (SwanLab v0.7.11
// `swanlab/data/sdk.py`, SwanLabInitializer.init; v0.9.7 `swanlab/sdk/cmd/init.py`, ensure_run_dir),
// holding the run file every mode writes (cloud, offline, local): `backup.swanlab` (v0.7.11
// `swanlab/data/store.py`, RunStore.backup_file) or `run-<id>.swanlab` (v0.9.7
// `swanlab/sdk/internal/core_python/context/__init__.py`, run_file). The folder is shared by every
// run of the project: a run's folders are those whose Project/Experiment (or StartRecord) records
// name its project and experiment. Incremental like the TensorBoard reader: each update reads only
// the bytes appended since the last one.
import { basename, join } from 'node:path';
import type { MetricIssue, MetricPoint, MetricSeries } from '../protocol/metrics';
import { fsErrorText, tryReaddir, tryStat, type RunsFs } from '../fs/seam';
import { readSwlHeader, scanSwl, SWL_HEADER_LEN, SWL_MAX_RECORD, type SwlStop } from './swanlabStore';
import { decodeSwanLabRecord } from './swanlabRecords';
import { sortedByStep } from './tensorboard';
import { t } from '../l10n';

/** Run folders looked at in one SWANLAB_LOG_DIR, at most (newest names first). */
export const MAX_SWANLAB_RUNS = 2000;
/** Bytes of a run file read to learn its project and experiment. */
const HEAD_BYTES = 64 * 1024;
const CHUNK = 16 * 1024 * 1024;

export const isSwanLabRunDirName = (name: string): boolean => /^run-\d{8}_\d{6}-/.test(name);
export const isSwanLabFileName = (name: string): boolean => name === 'backup.swanlab' || /^run-.+\.swanlab$/.test(name);

/** The run file of a run folder (undefined when it has none). */
export async function swanlabRunFile(fs: RunsFs, dir: string): Promise<string | undefined> {
  const { entries } = await tryReaddir(fs, dir);
  const names = entries.filter((e) => e.kind === 'file' && isSwanLabFileName(e.name)).map((e) => e.name);
  const pick = names.includes('backup.swanlab') ? 'backup.swanlab' : names.sort()[0];
  return pick ? join(dir, pick) : undefined;
}

/** The project and experiment a run file names in its first records. */
export async function swanlabRunNames(fs: RunsFs, file: string): Promise<{ project?: string; experiment?: string; version?: number }> {
  let buf: Buffer;
  try {
    buf = await fs.readRange(file, 0, HEAD_BYTES);
  } catch {
    return {};
  }
  const head = readSwlHeader(buf);
  if (!head || 'kind' in head) return {};
  const out: { project?: string; experiment?: string; version?: number } = { version: head.version };
  for (const r of scanSwl(buf.subarray(SWL_HEADER_LEN), SWL_HEADER_LEN).records) {
    try {
      const rec = decodeSwanLabRecord(head.version, r.data);
      if (rec.kind !== 'run') continue;
      if (rec.project !== undefined) out.project ??= rec.project;
      if (rec.experiment !== undefined) out.experiment ??= rec.experiment;
      if (out.project !== undefined && out.experiment !== undefined) break;
    } catch {
      // A record that does not decode: the reader reports it.
    }
  }
  return out;
}

/**
 * The run folders of `logDir` whose run file names `experiment` (and `project` when both are known),
 * oldest first (a resumed run writes a new folder). Bounded: the newest MAX_SWANLAB_RUNS folders.
 */
export async function findSwanLabRuns(
  fs: RunsFs,
  logDir: string,
  want: { experiment: string; project?: string },
): Promise<{ runs: string[]; skipped: number }> {
  const { entries } = await tryReaddir(fs, logDir);
  const dirs = entries
    .filter((e) => e.kind === 'dir' && isSwanLabRunDirName(e.name))
    .map((e) => e.name)
    .sort()
    .reverse();
  const runs: string[] = [];
  for (const name of dirs.slice(0, MAX_SWANLAB_RUNS)) {
    const file = await swanlabRunFile(fs, join(logDir, name));
    if (!file) continue;
    const names = await swanlabRunNames(fs, file);
    if (names.experiment !== want.experiment) continue;
    if (want.project !== undefined && names.project !== undefined && names.project !== want.project) continue;
    runs.push(join(logDir, name));
  }
  return { runs: runs.reverse(), skipped: Math.max(0, dirs.length - MAX_SWANLAB_RUNS) };
}

interface FileState {
  offset: number;
  size: number;
  version?: number;
  stop?: SwlStop;
  badRecords: number;
  firstBad?: number;
  error?: string;
}

export interface SwanLabReadOptions {
  chunkBytes?: number;
}

/** One SwanLab run (a run folder, or its `.swanlab` file), read incrementally. */
export class SwanLabRun {
  private file: string | undefined;
  private readonly st: FileState = { offset: 0, size: 0, badRecords: 0 };
  private readonly points = new Map<string, MetricPoint[]>();
  project: string | undefined;
  experiment: string | undefined;

  constructor(
    readonly path: string,
    private readonly fs: RunsFs,
    private readonly opts: SwanLabReadOptions = {},
  ) {}

  get version(): number | undefined {
    return this.st.version;
  }

  async update(): Promise<boolean> {
    const st = this.st;
    if (!this.file) {
      const s = await tryStat(this.fs, this.path);
      this.file = s?.isDirectory() ? await swanlabRunFile(this.fs, this.path) : this.path;
      if (!this.file) {
        st.error = t('no backup.swanlab or run-*.swanlab in this SwanLab run folder');
        return false;
      }
    }
    let size: number;
    try {
      const s = await this.fs.stat(this.file);
      if (!s.isFile()) {
        st.error = t('not a regular file');
        return false;
      }
      size = s.size;
    } catch (err) {
      st.error = fsErrorText(err);
      return false;
    }
    delete st.error;
    if (size === st.size && (st.offset >= size || st.stop)) return false;
    st.size = size;
    if (st.stop && st.stop.kind !== 'partial') return false;
    let changed = false;
    if (st.version === undefined) {
      const head = readSwlHeader(await this.fs.readRange(this.file, 0, SWL_HEADER_LEN));
      if (!head) return false;
      if ('kind' in head) {
        st.stop = head;
        return false;
      }
      st.version = head.version;
      st.offset = SWL_HEADER_LEN;
    }
    const chunk = Math.max(this.opts.chunkBytes ?? CHUNK, 64 * 1024);
    while (st.offset < size) {
      let want = Math.min(chunk, size - st.offset);
      let buf = await this.fs.readRange(this.file, st.offset, want);
      let scan = scanSwl(buf, st.offset);
      if (!scan.records.length && scan.stop?.kind === 'partial' && st.offset + buf.length < size) {
        // A record of many chunks longer than the read: read up to the record cap at once.
        want = Math.min(SWL_MAX_RECORD + SWL_MAX_RECORD / 32, size - st.offset);
        buf = await this.fs.readRange(this.file, st.offset, want);
        scan = scanSwl(buf, st.offset);
      }
      for (const r of scan.records) {
        let rec;
        try {
          rec = decodeSwanLabRecord(st.version, r.data);
        } catch {
          if (!st.badRecords++) st.firstBad = r.offset;
          continue;
        }
        if (rec.kind === 'scalar') {
          let list = this.points.get(rec.key);
          if (!list) this.points.set(rec.key, (list = []));
          list.push({ step: rec.step, wallTime: rec.wallTime, value: rec.value });
          changed = true;
        } else if (rec.kind === 'run') {
          if (rec.project !== undefined) this.project ??= rec.project;
          if (rec.experiment !== undefined) this.experiment ??= rec.experiment;
        }
      }
      const from = st.offset;
      st.offset = scan.next;
      if (scan.stop && scan.stop.kind !== 'partial') {
        st.stop = scan.stop;
        break;
      }
      delete st.stop;
      // Stop when nothing was taken, or when the record still being written reaches the end of the file.
      if (scan.next === from || (scan.stop && from + buf.length >= size)) break;
    }
    return changed;
  }

  series(): MetricSeries[] {
    return [...this.points]
      .filter(([, p]) => p.length)
      .map(([tag, points]) => ({ tag, points: sortedByStep(points) }))
      .sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  }

  issues(): MetricIssue[] {
    const st = this.st;
    const file = this.file ?? this.path;
    const out: MetricIssue[] = [];
    if (st.error) out.push({ file, message: st.error });
    if (st.badRecords) out.push({ file, at: st.firstBad!, message: t('{0} records are not SwanLab records; skipped', st.badRecords) });
    const s = st.stop;
    if (!s || s.kind === 'partial') return out;
    const rest = Math.max(0, st.size - s.offset);
    if (s.kind === 'not-swanlab') out.push({ file, at: 0, message: t('not a SwanLab run file (no ":SWL" header)') });
    else if (s.kind === 'version')
      out.push({ file, at: 0, message: t('SwanLab run file version {0} is not one this reader knows (1 and 2)', s.version) });
    else if (s.kind === 'too-long')
      out.push({ file, at: s.offset, message: t('a record claims {0} bytes; the file is not read past it ({1} bytes)', s.length, rest) });
    else
      out.push({
        file,
        at: s.offset,
        message: t(
          'damaged record ({0}): SwanLab stops reading this file here too; {1} bytes after it are not read',
          s.kind === 'crc' ? t('CRC-32 check failed') : t('bad chunk header'),
          rest,
        ),
      });
    return out;
  }

  /** The run file read (undefined before the first update). */
  get runFile(): string | undefined {
    return this.file;
  }

  toString(): string {
    return basename(this.path);
  }
}
