// The faulthandler dump files of a launch the editor started (core/launch/stackHook.ts) kept beside
// its run, as its launcher output and stack reports are: `<experiment>/.agentjet-vscode/stacks/
// dumps/<YYYY_MM_DD_HH_MM_SS>-<suffix>/<pid>.txt`, so the CLI and agents read where each process
// waited after the run ended. Before the launcher announces its folder the files are in the
// launch's own folder (AGENTJET_STACKS_DIR, a temporary folder); then that folder is moved beside
// the run and a link left in its place (the processes keep writing through their open files; one
// started later, and Show Stacks, follow the link). When a move is not possible (another file
// system) the files are copied there when the launch ends. The newest MAX_KEPT_DUMPS launches are kept,
// and a file past MAX_DUMP_FILE_BYTES is cut back to its first line before it is signalled again.
import { copyFile, lstat, mkdir, open, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { sessionStamp } from '../agentjet/naming';
import { LAUNCH_RECORD_DIR } from '../agentjet/launchRecord';

/** Launches whose dumps are kept, as many as the stack reports beside them (core/stacks/saved.ts). */
export const MAX_KEPT_DUMPS = 20;

export const MAX_DUMP_FILE_BYTES = 4 * 1024 * 1024;
const NAME = /^\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}-[\w-]+$/;

export function dumpsFolder(experiment: string): string {
  return join(experiment, LAUNCH_RECORD_DIR, 'stacks', 'dumps');
}

function targetOf(launchDir: string, experiment: string, startMs: number): string {
  const d = new Date(startMs);
  const stamp = `${sessionStamp(d)}_${String(d.getSeconds()).padStart(2, '0')}`;
  const suffix =
    basename(launchDir)
      .replace(/^agentjet-vscode-stacks-/, '')
      .replace(/[^\w-]/g, '') || 'launch';
  return join(dumpsFolder(experiment), `${stamp}-${suffix}`);
}

/** Removes the oldest launches' dump folders past MAX_KEPT_DUMPS. */
export async function pruneStackDumps(experiment: string, keep = MAX_KEPT_DUMPS): Promise<void> {
  const dir = dumpsFolder(experiment);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => NAME.test(n)).sort();
  for (const old of names.slice(0, Math.max(0, names.length - keep)))
    await rm(join(dir, old), { recursive: true, force: true }).catch(() => undefined);
}

/**
 * Moves the launch's dump folder beside the run (once; later calls return where it went) and
 * leaves a link in its place. Undefined when it cannot be moved (another file system, gone).
 */
export async function adoptStackDumps(launchDir: string, experiment: string, startMs: number): Promise<string | undefined> {
  const st = await lstat(launchDir).catch(() => undefined);
  if (st?.isSymbolicLink()) return readlink(launchDir).catch(() => undefined);
  // Only a folder the launch made (stackHook.ts newStacksDir) is moved.
  if (!st?.isDirectory() || !basename(launchDir).startsWith('agentjet-vscode-stacks-')) return undefined;
  const target = targetOf(launchDir, experiment, startMs);
  try {
    await mkdir(dumpsFolder(experiment), { recursive: true });
    await rename(launchDir, target);
  } catch {
    return undefined;
  }
  // In the window between the two, a process that starts finds no folder: it only goes without the hook.
  await symlink(target, launchDir, 'dir').catch(() => undefined);
  await pruneStackDumps(experiment);
  return target;
}

/** Copies a dump file: its first line (which names the process) and at most `max` bytes of its end. */
async function copyBounded(from: string, to: string, max: number): Promise<void> {
  const fh = await open(from, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size <= max) {
      await copyFile(from, to);
      return;
    }
    const head = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    const nl = head.subarray(0, bytesRead).indexOf(10);
    const first = head.subarray(0, nl >= 0 ? nl + 1 : 0);
    const tail = Buffer.alloc(max);
    const got = await fh.read(tail, 0, max, size - max);
    const body = tail.subarray(0, got.bytesRead);
    // Start the kept end at a dump's beginning when there is one.
    const at = body.indexOf('\nThread 0x');
    const out = await open(to, 'w');
    try {
      await out.write(first);
      await out.write(at >= 0 ? body.subarray(at + 1) : body);
    } finally {
      await out.close();
    }
  } finally {
    await fh.close();
  }
}

/**
 * At the end of a launch: the dumps beside the run, moved (adoptStackDumps) or, when they could
 * not be moved, copied (each bounded). Returns the folder they are in, or undefined.
 */
export async function keepStackDumps(launchDir: string, experiment: string, startMs: number): Promise<string | undefined> {
  const moved = await adoptStackDumps(launchDir, experiment, startMs);
  if (moved) return moved;
  const files = (await readdir(launchDir).catch(() => [] as string[])).filter((n) => /^\d+\.txt$/.test(n));
  if (!files.length) return undefined;
  const target = targetOf(launchDir, experiment, startMs);
  try {
    await mkdir(target, { recursive: true });
    for (const f of files) await copyBounded(join(launchDir, f), join(target, f), MAX_DUMP_FILE_BYTES).catch(() => undefined);
  } catch {
    return undefined;
  }
  await pruneStackDumps(experiment);
  return target;
}

/** The dump folder of the newest launch kept beside the run, or undefined. */
export async function latestStackDumps(experiment: string): Promise<string | undefined> {
  const dir = dumpsFolder(experiment);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => NAME.test(n)).sort();
  return names.length ? join(dir, names[names.length - 1]!) : undefined;
}
