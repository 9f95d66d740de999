// Which Ray session (and dashboard) a run uses. A local Ray keeps its files under
// `<temp root>/ray/session_<date>_<time>_<usec>_<pid>/` with `session_latest` linking to the newest;
// the temp root is RAY_TMPDIR, else TMPDIR (Linux), else /tmp (ray/_common/utils.py, Ray 2.58).
import { readlinkSync, realpathSync, statSync } from 'node:fs';
import { readlink, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';

/** `<temp root>/ray` for an environment (the launch's env, else the process's). */
export function rayTempRoot(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const base = env.RAY_TMPDIR || (platform === 'linux' && env.TMPDIR ? env.TMPDIR : '/tmp');
  return join(base, 'ray');
}

/** The folder `session_latest` points to, or undefined. */
export function latestSession(root: string): string | undefined {
  const link = join(root, 'session_latest');
  try {
    const target = readlinkSync(link);
    return isAbsolute(target) ? target : resolve(root, target);
  } catch {
    try {
      return realpathSync(link);
    } catch {
      return undefined;
    }
  }
}

/** `latestSession` without blocking (the extension host's poll). */
export async function latestSessionAsync(root: string): Promise<string | undefined> {
  const link = join(root, 'session_latest');
  try {
    const target = await readlink(link);
    return isAbsolute(target) ? target : resolve(root, target);
  } catch {
    return realpath(link).catch(() => undefined);
  }
}

/** Epoch ms a session started, from its folder name (local time). */
function startedFromName(dir: string): number | undefined {
  const m = /session_(\d{4})-(\d{2})-(\d{2})_(\d{2})-(\d{2})-(\d{2})_(\d{1,6})/.exec(dir);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s, us] = m.slice(1).map(Number) as [number, number, number, number, number, number, number];
  return new Date(y, mo - 1, d, h, mi, s, Math.floor(us / 1000)).getTime();
}

/** Epoch ms a session started, from its folder name (local time) or the folder's birth time. */
export function sessionStartedAt(dir: string): number | undefined {
  const named = startedFromName(dir);
  if (named !== undefined) return named;
  try {
    const st = statSync(dir);
    return st.birthtimeMs || st.ctimeMs;
  } catch {
    return undefined;
  }
}

/**
 * The session a launch started at `startedAt` uses: the newest session when it began at or after
 * the launch (a local Ray the run started), or any newest session when the run joins an existing
 * instance (`joinsExisting`: RAY_ADDRESS set, `--with-ray-cluster`, a Ray started beforehand).
 */
export function sessionForRun(root: string, startedAt: number, joinsExisting: boolean, slackMs = 5000): string | undefined {
  const dir = latestSession(root);
  if (!dir) return undefined;
  if (joinsExisting) return dir;
  const at = sessionStartedAt(dir);
  return at !== undefined && at >= startedAt - slackMs ? dir : undefined;
}

/** `sessionForRun` without blocking (the extension host's poll). */
export async function sessionForRunAsync(
  root: string,
  startedAt: number,
  joinsExisting: boolean,
  slackMs = 5000,
): Promise<string | undefined> {
  const dir = await latestSessionAsync(root);
  if (!dir) return undefined;
  if (joinsExisting) return dir;
  let at = startedFromName(dir);
  if (at === undefined) {
    const st = await stat(dir).catch(() => undefined);
    at = st ? st.birthtimeMs || st.ctimeMs : undefined;
  }
  return at !== undefined && at >= startedAt - slackMs ? dir : undefined;
}

/** A session folder path printed in a line of output (Ray's own messages, our launcher's). */
export function sessionFromOutput(line: string): string | undefined {
  const m = /(\/[^\s'"]*\/session_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}_\d+_\d+)/.exec(line);
  return m?.[1];
}

/**
 * A dashboard URL in a line of output: `View the dashboard at http://127.0.0.1:8265` (ray.init and
 * `ray start --head`), `Dashboard URL: ...`, or a bare `http(s)://host:port` after "dashboard".
 */
export function dashboardFromOutput(line: string): string | undefined {
  const clean = line.replace(/\x1b\[[0-9;]*m/g, '');
  const m = /dashboard[^\n]*?\b(https?:\/\/[^\s'"]+)/i.exec(clean);
  return m ? m[1]!.replace(/[).,;]+$/, '').replace(/\/$/, '') : undefined;
}

export interface RayAddress {
  /** The dashboard's HTTP URL when the address is one (`http://host:8265`, Ray Jobs style). */
  dashboard: string | undefined;
  /** A GCS `host:port` (`ray start --address`, `ray.init(address=...)`). */
  gcs: string | undefined;
  /** `auto` / `local` and the like: the local session decides. */
  local: boolean;
}

/** Reads RAY_ADDRESS (or a setting with the same forms). */
export function parseRayAddress(value: string | undefined): RayAddress {
  const v = (value ?? '').trim();
  if (!v || v === 'auto' || v === 'local') return { dashboard: undefined, gcs: undefined, local: true };
  if (/^https?:\/\//i.test(v)) return { dashboard: v.replace(/\/$/, ''), gcs: undefined, local: false };
  if (/^ray:\/\//i.test(v)) return { dashboard: undefined, gcs: v.slice(6), local: false };
  return { dashboard: undefined, gcs: v, local: false };
}

/** The usual dashboard of a GCS address: same host, port 8265 (Ray's default). */
export function defaultDashboardFor(gcs: string, port = 8265): string {
  const host = gcs.startsWith('[') ? gcs.slice(0, gcs.indexOf(']') + 1) : gcs.split(':')[0]!;
  return `http://${host}:${port}`;
}
