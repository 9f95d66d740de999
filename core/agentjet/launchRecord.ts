// What the extension records about the launches it starts (F5, tasks, CodeLens), so their status
// and traceback are exact: the launcher's exit code/signal and its output, kept beside the run's
// logs in `<logRoot>/<exp>/.agentjet-vscode/launches/<id>.json` and `<id>.output.txt`.
// A dot folder: AgentJet, beast-logger and its viewer never read it (sessions are
// `YYYY_MM_DD_HH_MM` folders, snapshots `yaml_backup.yaml`, backups `backup/`), and the output is
// not a `*.log` file that a log viewer would pick up.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { filesWithSibling, type RunsFs } from '../fs/seam';
import type { LayoutVersion } from './layout';
import { launchPaths, parseLauncherLine, sessionStamp } from './naming';

export const LAUNCH_RECORD_DIR = '.agentjet-vscode';
export const LAUNCH_RECORD_FORMAT = 1;
/** Output kept per launch (the end, where a traceback is). */
export const LAUNCH_OUTPUT_MAX = 1024 * 1024;

export interface LaunchRecord {
  format: typeof LAUNCH_RECORD_FORMAT;
  /** `<YYYY_MM_DD_HH_MM_SS>-<pid>`: file name stem. */
  id: string;
  /** argv of the launcher as spawned. */
  command: string[];
  cwd: string;
  config?: string;
  experiment?: string;
  /** The launcher's process id. */
  pid?: number;
  startMs: number;
  /** Set when the launcher exited (with exitCode or signal). */
  endMs?: number;
  exitCode?: number | null;
  signal?: string | null;
  /**
   * When the user asked for the stop (Stop/Shift+F5, Terminate Task, Ctrl+C in the task's terminal):
   * an exit after it is the user's stop, not a failure.
   */
  stopRequestedMs?: number;
  /** How the launch was started: 'debug' | 'task' | 'codelens' | ... */
  via?: string;
  /**
   * A live record (no `endMs` yet) is rewritten at every change of the launch: its phase and since
   * when, the process that owns the launch (the extension host, the CLI) while no launcher runs yet,
   * and when `pid` was recorded (its process started before that).
   */
  phase?: LaunchPhase;
  phaseSinceMs?: number;
  ownerPid?: number;
  pidMs?: number;
  /** Bytes of output dropped from the start to keep the file under LAUNCH_OUTPUT_MAX. */
  outputDropped?: number;
}

/** What a launch still running is doing: being prepared, running, paused at a breakpoint, being stopped. */
export type LaunchPhase = 'preparing' | 'running' | 'paused' | 'stopping';
export const LAUNCH_PHASES: readonly LaunchPhase[] = ['preparing', 'running', 'paused', 'stopping'];

export function launchRecordFolder(logExperiment: string): string {
  return join(logExperiment, LAUNCH_RECORD_DIR, 'launches');
}

export function launchRecordId(startMs: number, pid: number | undefined): string {
  const d = new Date(startMs);
  return `${sessionStamp(d)}_${String(d.getSeconds()).padStart(2, '0')}-${pid ?? 0}`;
}

export function launchRecordPaths(logExperiment: string, id: string): { json: string; output: string } {
  const dir = launchRecordFolder(logExperiment);
  return { json: join(dir, `${id}.json`), output: join(dir, `${id}.output.txt`) };
}

function writeAtomic(path: string, data: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

let tmpSeq = 0;
async function writeAtomicAsync(path: string, data: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${++tmpSeq}.tmp`;
  await fsp.writeFile(tmp, data);
  await fsp.rename(tmp, path);
}

type RecordInput = Omit<LaunchRecord, 'format' | 'id'> & { id?: string };

/** The record as written, the output kept (its last LAUNCH_OUTPUT_MAX bytes) and the files. */
function recordFiles(logExperiment: string, record: RecordInput, output: string | undefined) {
  const id = record.id ?? launchRecordId(record.startMs, record.pid);
  const full: LaunchRecord = { ...record, format: LAUNCH_RECORD_FORMAT, id };
  const paths = launchRecordPaths(logExperiment, id);
  let kept: string | undefined;
  if (output !== undefined) {
    const buf = Buffer.from(output, 'utf8');
    const tail = buf.length > LAUNCH_OUTPUT_MAX ? buf.subarray(buf.length - LAUNCH_OUTPUT_MAX) : buf;
    if (tail.length < buf.length) full.outputDropped = buf.length - tail.length;
    kept = tail.toString('utf8');
  }
  return { full, paths, kept };
}

/**
 * Writes (or rewrites) a launch's record, and its output when given (the last LAUNCH_OUTPUT_MAX
 * bytes). Call it at spawn (no endMs) and again at exit. `logExperiment` is
 * `launchPaths(...).logExperiment`. Returns the files written.
 */
export function writeLaunchRecord(
  logExperiment: string,
  record: RecordInput,
  output?: string,
): { json: string; output?: string; record: LaunchRecord } {
  const { full, paths, kept } = recordFiles(logExperiment, record, output);
  mkdirSync(launchRecordFolder(logExperiment), { recursive: true });
  if (kept !== undefined) writeAtomic(paths.output, kept);
  writeAtomic(paths.json, `${JSON.stringify(full, null, 2)}\n`);
  return { json: paths.json, record: full, ...(kept !== undefined ? { output: paths.output } : {}) };
}

/** `writeLaunchRecord` without blocking (the live record a launch in the extension host rewrites). */
export async function writeLaunchRecordAsync(
  logExperiment: string,
  record: RecordInput,
  output?: string,
): Promise<{ json: string; output?: string; record: LaunchRecord }> {
  const { full, paths, kept } = recordFiles(logExperiment, record, output);
  await fsp.mkdir(launchRecordFolder(logExperiment), { recursive: true });
  if (kept !== undefined) await writeAtomicAsync(paths.output, kept);
  await writeAtomicAsync(paths.json, `${JSON.stringify(full, null, 2)}\n`);
  return { json: paths.json, record: full, ...(kept !== undefined ? { output: paths.output } : {}) };
}

/**
 * Removes a live record written where the launch was expected to log, once it logs elsewhere, and
 * the folders it alone made (each removed only when empty: what AgentJet wrote stays).
 */
export async function removeLaunchRecord(logExperiment: string, id: string): Promise<void> {
  const paths = launchRecordPaths(logExperiment, id);
  await fsp.rm(paths.json, { force: true });
  await fsp.rm(paths.output, { force: true });
  for (const dir of [launchRecordFolder(logExperiment), join(logExperiment, LAUNCH_RECORD_DIR), logExperiment])
    await fsp.rmdir(dir).catch(() => undefined);
}

/** Validates a parsed record; undefined when it is not one. */
export function asLaunchRecord(v: unknown): LaunchRecord | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const r = v as Record<string, unknown>;
  if (
    r.format !== LAUNCH_RECORD_FORMAT ||
    typeof r.id !== 'string' ||
    typeof r.startMs !== 'number' ||
    !Array.isArray(r.command) ||
    typeof r.cwd !== 'string'
  )
    return undefined;
  if (r.endMs !== undefined && typeof r.endMs !== 'number') return undefined;
  if (r.exitCode !== undefined && r.exitCode !== null && typeof r.exitCode !== 'number') return undefined;
  if (r.signal !== undefined && r.signal !== null && typeof r.signal !== 'string') return undefined;
  if (r.pid !== undefined && typeof r.pid !== 'number') return undefined;
  if (r.stopRequestedMs !== undefined && typeof r.stopRequestedMs !== 'number') return undefined;
  for (const k of ['phaseSinceMs', 'ownerPid', 'pidMs'] as const) if (r[k] !== undefined && typeof r[k] !== 'number') return undefined;
  if (r.phase !== undefined && !LAUNCH_PHASES.includes(r.phase as LaunchPhase)) return undefined;
  return r as unknown as LaunchRecord;
}

export interface LaunchRecordFile {
  record: LaunchRecord;
  json: string;
  output?: string;
}

/** The launch records of one experiment (under its log folder), oldest first; bad files are skipped. */
export async function readLaunchRecords(fs: RunsFs, logExperiment: string): Promise<LaunchRecordFile[]> {
  const out: LaunchRecordFile[] = [];
  for (const f of await filesWithSibling(fs, launchRecordFolder(logExperiment), '.json', '.output.txt')) {
    let rec: LaunchRecord | undefined;
    try {
      rec = asLaunchRecord(JSON.parse((await fs.readRange(f.path, 0, 256 * 1024)).toString('utf8')));
    } catch {
      continue;
    }
    if (rec) out.push({ record: rec, json: f.path, ...(f.sibling ? { output: f.sibling } : {}) });
  }
  return out.sort((a, b) => a.record.startMs - b.record.startMs);
}

/**
 * The launch that made a session: the latest one started no later than the session's minute ends
 * and not ended before the minute began (the logger registers after the launcher starts).
 */
export function launchForSession(records: readonly LaunchRecordFile[], sessionStartMs: number): LaunchRecordFile | undefined {
  let best: LaunchRecordFile | undefined;
  for (const r of records) {
    if (r.record.startMs > sessionStartMs + 60_000) continue;
    if (r.record.endMs !== undefined && r.record.endMs < sessionStartMs) continue;
    if (!best || r.record.startMs > best.record.startMs) best = r;
  }
  return best;
}

/** The lines of the last Python traceback in `text`, from its `Traceback …` line on (colour codes removed). */
export function lastTraceback(text: string): string[] | undefined {
  const at = text.lastIndexOf('Traceback (most recent call last):');
  if (at < 0) return undefined;
  return text
    .slice(at)
    .split('\n')
    .map((l) => l.replace(/\r$/, '').replace(/\x1b\[[0-9;]*m/g, ''));
}

/** A traceback's exception line (`ValueError: ...`, `KeyboardInterrupt`, `SystemExit: 1`). */
export const EXCEPTION_LINE = /^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b.*)$/;

/** The last exception line of a Python traceback in launcher output (`ValueError: ...`), if any. */
export function tracebackInOutput(text: string): string | undefined {
  for (const l of lastTraceback(text)?.slice(1) ?? []) {
    const m = EXCEPTION_LINE.exec(l.trim());
    if (m && !/^\s/.test(l)) return m[1]!.slice(0, 200);
  }
  return undefined;
}

/**
 * Keeps one launch's record up to date for a launcher the extension spawned: feed it the output
 * as it comes (`append`), call `finish` on exit. It learns the experiment from the launcher's own
 * "Experiment Name: X" line (or `setExperiment`), writes the record as soon as it knows where
 * (so a running launch shows as running), and rewrites it with the exit status and the output.
 */
export class LaunchRecorder {
  private output = '';
  private dropped = 0;
  private pending = '';
  private logExperiment: string | undefined;
  private experiment: string | undefined;
  private readonly startMs: number;
  private id: string | undefined;

  constructor(
    private readonly opts: {
      cwd: string;
      version: LayoutVersion;
      command: string[];
      pid?: number;
      via?: string;
      config?: string;
      startMs?: number;
    },
  ) {
    this.startMs = opts.startMs ?? Date.now();
  }

  /** Where the record goes, once known. */
  get folder(): string | undefined {
    return this.logExperiment;
  }

  setExperiment(name: string): void {
    if (this.experiment === name) return;
    this.experiment = name;
    this.logExperiment = launchPaths({ cwd: this.opts.cwd, version: this.opts.version, experiment: name }).logExperiment;
    this.write();
  }

  append(text: string): void {
    this.output += text;
    if (this.output.length > LAUNCH_OUTPUT_MAX * 2) {
      const cut = this.output.length - LAUNCH_OUTPUT_MAX;
      this.dropped += cut;
      this.output = this.output.slice(cut);
    }
    const lines = (this.pending + text).split('\n');
    this.pending = lines.pop() ?? '';
    for (const l of lines) {
      const a = parseLauncherLine(l);
      if (a?.kind === 'name') this.setExperiment(a.value);
    }
  }

  /** Writes the final record; returns its files, or undefined when the experiment never became known. */
  finish(
    exitCode: number | null,
    signal: NodeJS.Signals | string | null,
    endMs = Date.now(),
  ): { json: string; output?: string } | undefined {
    if (this.pending) {
      const a = parseLauncherLine(this.pending);
      if (a?.kind === 'name') this.setExperiment(a.value);
    }
    return this.write({ endMs, exitCode, signal: signal ?? null });
  }

  private write(end?: { endMs: number; exitCode: number | null; signal: string | null }): { json: string; output?: string } | undefined {
    if (!this.logExperiment) return undefined;
    const o = this.opts;
    const rec: Omit<LaunchRecord, 'format' | 'id'> & { id?: string } = {
      command: o.command,
      cwd: o.cwd,
      startMs: this.startMs,
      ...(this.id ? { id: this.id } : {}),
    };
    if (o.pid !== undefined) rec.pid = o.pid;
    if (o.via) rec.via = o.via;
    if (o.config) rec.config = o.config;
    if (this.experiment) rec.experiment = this.experiment;
    if (end) Object.assign(rec, end);
    try {
      const r = writeLaunchRecord(this.logExperiment, rec, this.output);
      this.id = r.record.id;
      if (this.dropped && r.record.outputDropped === undefined) r.record.outputDropped = this.dropped;
      return { json: r.json, ...(r.output ? { output: r.output } : {}) };
    } catch {
      return undefined; // a read-only or vanished folder must not break the launch
    }
  }
}
