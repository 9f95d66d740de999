// A TensorBoard run folder read as TensorBoard reads it (plugin_event_accumulator over a
// DirectoryWatcher): the files whose name holds "tfevents" (not *.profile-empty), in sorted path
// order, each read record by record until its end or its first damaged record; scalar points per
// tag in that order, with TensorBoard's purge of orphaned data after a restart. Incremental: each
// update reads only the bytes appended since the last one (an offset per file).
import { basename, join } from 'node:path';
import type { MetricIssue, MetricPoint, MetricSeries } from '../protocol/metrics';
import { fsErrorText, tryReaddir, type RunsFs } from '../fs/seam';
import { walkRecords, MAX_RECORD_BYTES, type FrameStop } from './framing';
import { decodeEventIn, eventReader, type DecodedEvent } from './eventProto';
import { t } from '../l10n';

/** TensorBoard's filter (io_wrapper.IsSummaryEventsFile). */
export function isEventFileName(name: string): boolean {
  return name.includes('tfevents') && !name.endsWith('.profile-empty');
}

export const MAX_EVENT_FILES = 2000;
const CHUNK = 16 * 1024 * 1024;

interface FileState {
  offset: number;
  /** Size at the last read. */
  size: number;
  stop?: FrameStop;
  /** Records whose bytes were not an Event. */
  badEvents: number;
  firstBadEvent?: number;
  error?: string;
}

export interface TensorBoardReadOptions {
  maxFiles?: number;
  /** Bytes read per call to the file system. */
  chunkBytes?: number;
}

export class TensorBoardRun {
  private readonly files = new Map<string, FileState>();
  private readonly points = new Map<string, MetricPoint[]>();
  /** The plugin of each tag's first metadata (TensorBoard keeps only the first). */
  private readonly plugin = new Map<string, string>();
  private fileVersion: number | undefined;
  private mostRecentStep = -1;
  private seenStart = false;
  private listError: string | undefined;
  private skippedFiles = 0;
  private others: string[] = [];
  /** Bytes read by the last update (for tests and benches). */
  bytesRead = 0;

  constructor(
    readonly dir: string,
    private readonly fs: RunsFs,
    private readonly opts: TensorBoardReadOptions = {},
  ) {}

  /** Reads what was appended since the last call; true when any point was added or removed. */
  async update(): Promise<boolean> {
    this.bytesRead = 0;
    const listed = await tryReaddir(this.fs, this.dir);
    this.listError = listed.error;
    const names: string[] = [];
    this.others = [];
    for (const e of listed.entries) {
      if (!isEventFileName(e.name)) continue;
      if (e.kind === 'file') names.push(e.name);
      else this.others.push(e.name);
    }
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const max = this.opts.maxFiles ?? MAX_EVENT_FILES;
    this.skippedFiles = Math.max(0, names.length - max);
    let changed = false;
    for (const name of names.slice(0, max)) if (await this.readFile(name)) changed = true;
    return changed;
  }

  private async readFile(name: string): Promise<boolean> {
    const path = join(this.dir, name);
    let st = this.files.get(name);
    if (!st) {
      st = { offset: 0, size: 0, badEvents: 0 };
      this.files.set(name, st);
    }
    let size: number;
    try {
      const s = await this.fs.stat(path);
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
    // Nothing new (a damaged record is retried only when the file changed, as its bytes did not).
    if (size === st.size && (st.offset >= size || st.stop)) return false;
    st.size = size;
    let changed = false;
    const chunk = this.opts.chunkBytes ?? CHUNK;
    while (st.offset < size) {
      let want = Math.min(chunk, size - st.offset);
      let buf = await this.fs.readRange(path, st.offset, want);
      this.bytesRead += buf.length;
      let reader = eventReader(buf);
      const each = (start: number, length: number, offset: number) => {
        let ev: DecodedEvent;
        try {
          ev = decodeEventIn(reader, start, length);
        } catch {
          if (!st.badEvents++) st.firstBadEvent = offset;
          return;
        }
        if (this.process(ev)) changed = true;
      };
      let scan = walkRecords(buf, st.offset, each);
      if (scan.next === st.offset && scan.stop?.kind === 'partial' && buf.length >= 12 && st.offset + buf.length < size) {
        // A record longer than the chunk: read it whole (its length was checked against MAX_RECORD_BYTES).
        const len = buf.readUInt32LE(0) + buf.readUInt32LE(4) * 0x100000000;
        want = Math.min(16 + Math.min(len, MAX_RECORD_BYTES), size - st.offset);
        buf = await this.fs.readRange(path, st.offset, want);
        this.bytesRead += buf.length;
        reader = eventReader(buf);
        scan = walkRecords(buf, st.offset, each);
      }
      const progressed = scan.next > st.offset;
      st.offset = scan.next;
      if (scan.stop && scan.stop.kind !== 'partial') {
        st.stop = scan.stop;
        break;
      }
      delete st.stop;
      if (scan.stop?.kind === 'partial' && (!progressed || st.offset + 12 > size)) break;
      if (!progressed) break;
    }
    return changed;
  }

  /** plugin_event_accumulator._ProcessEvent, for scalars. */
  private process(ev: DecodedEvent): boolean {
    let changed = false;
    if (ev.fileVersion !== undefined) {
      const v = Number(/^brain\.Event:(.*)$/.exec(ev.fileVersion)?.[1]);
      if (Number.isFinite(v)) this.fileVersion = v;
    }
    // _MaybePurgeOrphanedData
    if (this.fileVersion !== undefined && this.fileVersion >= 2) {
      if (ev.sessionStart) {
        if (this.seenStart) changed = this.purge(ev.step, undefined) || changed;
        this.seenStart = true;
      }
    } else if (ev.step < this.mostRecentStep && ev.hasSummary) {
      changed =
        this.purge(
          ev.step,
          ev.values.map((v) => v.tag),
        ) || changed;
    }
    if (ev.hasSummary) this.mostRecentStep = ev.step;
    for (const v of ev.values) {
      if (v.plugin !== undefined && !this.plugin.has(v.tag)) this.plugin.set(v.tag, v.plugin);
      if (v.value === undefined) continue;
      let list = this.points.get(v.tag);
      if (!list) this.points.set(v.tag, (list = []));
      list.push({ step: ev.step, wallTime: ev.wallTime, value: v.value });
      changed = true;
    }
    return changed;
  }

  /** Keeps only points with a step below `step` (of `tags`, or of every tag). */
  private purge(step: number, tags: string[] | undefined): boolean {
    let changed = false;
    for (const tag of tags ?? [...this.points.keys()]) {
      const list = this.points.get(tag);
      if (!list) continue;
      const kept = list.filter((p) => p.step < step);
      if (kept.length !== list.length) {
        this.points.set(tag, kept);
        changed = true;
      }
    }
    return changed;
  }

  /** The scalar tags (those TensorBoard's scalars dashboard lists), each ordered by step as read. */
  series(): MetricSeries[] {
    const out: MetricSeries[] = [];
    for (const [tag, points] of this.points) {
      const plugin = this.plugin.get(tag);
      if (plugin !== undefined && plugin !== '' && plugin !== 'scalars') continue;
      if (!points.length) continue;
      out.push({ tag, points: sortedByStep(points) });
    }
    return out.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  }

  issues(): MetricIssue[] {
    const out: MetricIssue[] = [];
    if (this.listError) out.push({ file: this.dir, message: t('cannot list the folder: {0}', this.listError) });
    if (this.skippedFiles)
      out.push({
        file: this.dir,
        message: t(
          '{0} event files; only the first {1} were read',
          this.skippedFiles + (this.opts.maxFiles ?? MAX_EVENT_FILES),
          this.opts.maxFiles ?? MAX_EVENT_FILES,
        ),
      });
    for (const n of this.others) out.push({ file: join(this.dir, n), message: t('not a regular file; skipped') });
    for (const [name, st] of this.files) {
      const file = join(this.dir, name);
      if (st.error) out.push({ file, message: st.error });
      if (st.badEvents)
        out.push({ file, at: st.firstBadEvent!, message: t('{0} records are not TensorBoard events; skipped', st.badEvents) });
      const s = st.stop;
      if (!s || s.kind === 'partial') continue;
      const rest = Math.max(0, st.size - s.offset);
      if (s.kind === 'header-crc' && s.offset === 0)
        out.push({ file, at: 0, message: t('not a TensorBoard event file (no TFRecord framing at its start)') });
      else if (s.kind === 'too-long')
        out.push({ file, at: s.offset, message: t('a record claims {0} bytes; the file is not read past it ({1} bytes)', s.length, rest) });
      else
        out.push({
          file,
          at: s.offset,
          message: t(
            'damaged record ({0} check failed): TensorBoard stops reading this file here too; {1} bytes after it are not read',
            s.kind === 'header-crc' ? t('length CRC') : t('data CRC'),
            rest,
          ),
        });
    }
    return out;
  }

  /** The event files read so far, with the offset each was read to. */
  fileOffsets(): { file: string; offset: number; size: number }[] {
    return [...this.files].map(([name, st]) => ({ file: basename(name), offset: st.offset, size: st.size }));
  }
}

/** A stable sort by step: points of one step keep their read order (a restart's repeats follow the first run's). */
export function sortedByStep(points: MetricPoint[]): MetricPoint[] {
  for (let i = 1; i < points.length; i++) if (points[i]!.step < points[i - 1]!.step) return [...points].sort((a, b) => a.step - b.step);
  return points;
}
