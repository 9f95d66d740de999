// Which swarm servers an agent may have a tool ask (issue 39): a URL an agent names is untrusted
// input, and a fetch of it would let a prompt reach any host the user's machine can. Allowed:
// loopback, the servers the user configured, the ones the workspace's own code names
// (`SwarmClient("…")`); any other URL only when the user's setting says so.
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { t } from '../l10n';
import { findSwarmClientCalls } from '../swarm/source';
import type { SwarmAccess } from './toolkit';

/** The origin (`http://host:port`) of a URL, or undefined when it is none. */
function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** `localhost`, 127.0.0.0/8 or ::1, as the URL parser spells the host (no name lookup). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Undefined when `url` (normalised) may be asked; otherwise the refusal, naming how to allow it. */
export async function swarmRefusal(url: string, access: SwarmAccess | undefined): Promise<string | undefined> {
  if (isLoopbackUrl(url)) return undefined;
  if (access?.anyUrl) return undefined;
  const known = access ? await access.known() : [];
  const origin = originOf(url);
  if (origin && known.some((k) => originOf(k) === origin)) return undefined;
  return t(
    '{0} is neither a loopback address nor a swarm server you configured or the workspace names ({1}); to let agents ask any server, set {2}',
    url,
    known.length ? known.join(', ') : t('none'),
    access?.allowHow ?? t('the setting agentjet.agents.swarmAnyUrl'),
  );
}

/** Folders a scan for `SwarmClient("…")` never enters (environments, caches, run outputs). */
const SKIP = new Set(['node_modules', '.venv', 'venv', '.git', '__pycache__', 'saved_experiments', 'launcher_record', 'site-packages']);

export interface ScanLimits {
  maxEntries: number;
  maxDepth: number;
  maxFileBytes: number;
}

const LIMITS: ScanLimits = { maxEntries: 20_000, maxDepth: 8, maxFileBytes: 512 * 1024 };

/**
 * The servers a folder's Python files name in `SwarmClient("…")`, bounded (entries, depth, file
 * size); links are not followed and only regular files are read (a FIFO never blocks the scan).
 */
export async function workspaceSwarmUrls(root: string, limits: ScanLimits = LIMITS): Promise<string[]> {
  const found = new Set<string>();
  let entries = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > limits.maxDepth || entries >= limits.maxEntries) return;
    const list = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of list) {
      if (++entries > limits.maxEntries) return;
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP.has(e.name) && !e.name.startsWith('.')) await walk(p, depth + 1);
      } else if (e.isFile() && e.name.endsWith('.py')) {
        const text = await readSmall(p, limits.maxFileBytes);
        if (text?.includes('SwarmClient')) for (const c of findSwarmClientCalls(text)) if (c.url) found.add(c.url);
      }
    }
  };
  await walk(root, 0);
  return [...found];
}

/** A regular file's text when it is at most `max` bytes; never follows a link, never blocks on a FIFO. */
async function readSmall(path: string, max: number): Promise<string | undefined> {
  const fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!fh) return undefined;
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size > max) return undefined;
    return (await fh.readFile()).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await fh.close().catch(() => undefined);
  }
}
