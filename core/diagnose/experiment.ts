// The material of one experiment folder, in the order it speaks for a failure: the launcher output
// VS Code kept (`.agentjet-vscode/launches/<id>.output.txt`, the latest launch), the latest session's
// logs (`<session>/<host>/regular/regular.log`, `exception/exception.json.log`), then, when asked,
// the Ray session's worker logs on this node (`<ray temp>/session_*/logs/worker-*.err`, `raylet.out`)
// of the run's time, and the log of a vLLM companion started for it (`companion_logs/companion/*.log`).
import { basename, dirname, join } from 'node:path';
import { companionFolderOfRoot } from '../agentjet/naming';
import { readLaunchRecords } from '../agentjet/launchRecord';
import { tryReaddir, tryStat, fsErrorText, type RunsFs } from '../fs/seam';
import { reexplain } from './classify';
import { readGates, type AgentJetGates } from './gates';
import { classifyFile, DEFAULT_MAX_BYTES, type FileRead } from './read';
import type { Cause, CauseSource, DiagnoseJson } from './types';

const SESSION = /^\d{4}_\d{2}_\d{2}_\d{2}_\d{2}$/;
/** Ray worker logs read per session (the newest by mtime). */
export const MAX_RAY_FILES = 32;
const SMALL = 512 * 1024;

export interface DiagnoseOptions {
  /** Also read the Ray session's worker logs on this node (default true). */
  ray?: boolean;
  /** Also read vLLM companion logs of the run's time (default true). */
  companions?: boolean;
  /** `<temp root>/ray` (default: RAY_TMPDIR, else TMPDIR on Linux, else /tmp). */
  rayRoot?: string;
  /** The AgentJet package whose gates apply (else found from traceback frames). */
  ajetDir?: string;
  maxBytes?: number;
}

export function defaultRayRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.RAY_TMPDIR || (process.platform === 'linux' && env.TMPDIR ? env.TMPDIR : '/tmp'), 'ray');
}

interface Target {
  file: string;
  source: CauseSource;
  maxBytes?: number;
}

/** Causes of one log file a person names. */
export async function diagnoseFile(fs: RunsFs, path: string, opts: DiagnoseOptions = {}): Promise<DiagnoseJson> {
  return diagnoseTargets(fs, [{ file: path, source: 'file' }], opts);
}

/** The run's time: its latest launch (start..end), else the latest session folder's minute. */
async function runWindow(fs: RunsFs, expDir: string, targets: Target[]): Promise<{ startMs: number; endMs: number } | undefined> {
  const launches = await readLaunchRecords(fs, expDir);
  const last = launches.at(-1);
  if (last?.output) targets.push({ file: last.output, source: 'launcher-output' });
  const { entries } = await tryReaddir(fs, expDir);
  const sessions = entries
    .filter((e) => e.kind === 'dir' && SESSION.test(e.name))
    .map((e) => e.name)
    .sort();
  const session = sessions.at(-1);
  if (session) {
    const dir = join(expDir, session);
    const hosts = (await tryReaddir(fs, dir)).entries.filter((e) => e.kind === 'dir');
    const hostless = hosts.some((h) => h.name === 'regular' || h.name === 'exception');
    for (const h of hostless ? [{ name: '' }] : hosts.slice(0, 16)) {
      targets.push({ file: join(dir, h.name, 'regular', 'regular.log'), source: 'run-log' });
      targets.push({ file: join(dir, h.name, 'exception', 'exception.json.log'), source: 'exception-log', maxBytes: SMALL * 2 });
    }
  }
  if (last) return { startMs: last.record.startMs, endMs: last.record.endMs ?? Date.now() };
  if (!session) return undefined;
  const [y, mo, d, h, mi] = session.split('_').map(Number) as [number, number, number, number, number];
  const startMs = new Date(y, mo - 1, d, h, mi).getTime();
  const st = await tryStat(fs, join(expDir, session));
  return { startMs, endMs: Math.max(startMs + 60_000, st?.mtimeMs ?? 0) };
}

/** `session_2026-12-06_18-51-32_123456_789` -> epoch ms (local time). */
function raySessionStart(name: string): number | undefined {
  const m = /^session_(\d{4})-(\d{2})-(\d{2})_(\d{2})-(\d{2})-(\d{2})/.exec(name);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(y, mo - 1, d, h, mi, s).getTime();
}

async function rayTargets(fs: RunsFs, root: string, win: { startMs: number; endMs: number }, out: Target[]): Promise<void> {
  const { entries } = await tryReaddir(fs, root);
  const sessions = entries
    .filter((e) => e.kind === 'dir' && !e.symlink && e.name.startsWith('session_'))
    .map((e) => ({ name: e.name, at: raySessionStart(e.name) }))
    .filter((s): s is { name: string; at: number } => s.at !== undefined && s.at <= win.endMs + 5_000)
    .sort((a, b) => b.at - a.at);
  // The session the run started (or joined): the newest one begun before the run ended.
  const session = sessions[0];
  if (!session) return;
  const logs = join(root, session.name, 'logs');
  const files = (await tryReaddir(fs, logs)).entries.filter(
    (e) => e.kind === 'file' && (/^worker-.*\.err$/.test(e.name) || e.name === 'raylet.out'),
  );
  const dated: { file: string; mtime: number }[] = [];
  for (const f of files.slice(0, 4096)) {
    const st = await tryStat(fs, join(logs, f.name));
    if (st && st.mtimeMs >= win.startMs - 5_000 && st.size > 0) dated.push({ file: join(logs, f.name), mtime: st.mtimeMs });
  }
  dated.sort((a, b) => b.mtime - a.mtime);
  for (const d of dated.slice(0, MAX_RAY_FILES)) out.push({ file: d.file, source: 'ray-worker-log', maxBytes: SMALL });
}

async function companionTargets(fs: RunsFs, expDir: string, win: { startMs: number; endMs: number }, out: Target[]): Promise<void> {
  const folder = companionFolderOfRoot(dirname(expDir));
  const { entries } = await tryReaddir(fs, folder);
  for (const e of entries) {
    if (e.kind !== 'file' || !e.name.endsWith('.log') || !/vllm/i.test(e.name)) continue;
    const st = await tryStat(fs, join(folder, e.name));
    if (st && st.mtimeMs >= win.startMs - 60_000) out.push({ file: join(folder, e.name), source: 'vllm-log', maxBytes: SMALL * 2 });
  }
}

/** Causes of an experiment folder (`saved_experiments/<name>`), from all its material. */
export async function diagnoseExperiment(fs: RunsFs, expDir: string, opts: DiagnoseOptions = {}): Promise<DiagnoseJson> {
  const targets: Target[] = [];
  const win = await runWindow(fs, expDir, targets);
  if (win && opts.ray !== false) await rayTargets(fs, opts.rayRoot ?? defaultRayRoot(), win, targets);
  if (win && opts.companions !== false) await companionTargets(fs, expDir, win, targets);
  return diagnoseTargets(fs, targets, opts, true);
}

async function diagnoseTargets(fs: RunsFs, targets: Target[], opts: DiagnoseOptions, quietMissing = false): Promise<DiagnoseJson> {
  const reads: FileRead[] = [];
  const skipped: { file: string; reason: string }[] = [];
  for (const t of targets) {
    try {
      reads.push(
        await classifyFile(fs, t.file, t.source, { maxBytes: Math.min(t.maxBytes ?? Infinity, opts.maxBytes ?? DEFAULT_MAX_BYTES) }),
      );
    } catch (err) {
      const reason = fsErrorText(err);
      if (!(quietMissing && reason === 'not found')) skipped.push({ file: t.file, reason });
    }
  }
  // One cause per code, from the source that speaks first; a workflow exception only when alone.
  const byCode = new Map<string, Cause>();
  for (const r of reads) for (const c of r.causes) if (c.code !== 'workflow-exception' && !byCode.has(c.code)) byCode.set(c.code, c);
  let causes = [...byCode.values()];
  if (!causes.length) {
    const wf = reads.flatMap((r) => r.causes).find((c) => c.code === 'workflow-exception');
    if (wf) causes = [wf];
  }
  // The user's AgentJet, where its frames were seen, judges its own gates.
  if (causes.some((c) => c.code === 'env-verl-version' || c.code === 'env-debugpy')) {
    const dir = opts.ajetDir ?? reads.flatMap((r) => r.ajetDirs)[0];
    const gates: AgentJetGates = await readGates(fs, dir);
    if (gates.from !== 'bundled') causes = causes.map((c) => reexplain(c, gates));
  }
  const out: DiagnoseJson = {
    causes,
    read: reads.map((r) => ({ file: r.file, source: r.source, bytes: r.bytes, size: r.size, fromByte: r.fromByte })),
  };
  if (skipped.length) out.skipped = skipped;
  return out;
}

/** The folder name an experiment's causes are reported under. */
export const experimentName = (expDir: string) => basename(expDir);
