// Records the synchronous process and file-system calls the extension makes in the extension host:
// child_process.spawnSync/execFileSync/execSync and fs.readdirSync/statSync, and readFileSync when it
// returns a large result. Only calls whose stack passes through the extension's bundle
// (dist/full.js) count: VS Code's own and the tests' calls are not ours to judge. Worker
// threads have their own module objects and are not seen (they never stall the host's event loop).
import { createRequire } from 'node:module';

// The modules themselves (a bundler's `import * as` is a copy): what the extension's bundle calls.
const load = createRequire(__filename);
const cp = load('node:child_process') as object;
const fs = load('node:fs') as object;

/** A read at least this large counts as a large read. */
export const LARGE_READ_BYTES = 1024 * 1024;

export interface SyncCall {
  call: string;
  arg: string;
  /** The first frames in the extension's bundle. */
  where: string;
}

const WATCHED: [object, string, boolean][] = [
  [cp, 'spawnSync', false],
  [cp, 'execFileSync', false],
  [cp, 'execSync', false],
  [fs, 'readdirSync', false],
  [fs, 'statSync', false],
  [fs, 'readFileSync', true],
];

/** Starts recording; `stop()` restores the originals and returns what ran. */
export function watchSyncCalls(bundle: string): { calls: SyncCall[]; stop(): SyncCall[] } {
  const calls: SyncCall[] = [];
  const restore: (() => void)[] = [];
  for (const [mod, name, onlyLarge] of WATCHED) {
    const target = mod as Record<string, unknown>;
    const original = target[name] as (...args: unknown[]) => unknown;
    const wrapped = function (this: unknown, ...args: unknown[]): unknown {
      const result = original.apply(this, args);
      if (onlyLarge) {
        const len = typeof result === 'string' || Buffer.isBuffer(result) ? result.length : 0;
        if (len < LARGE_READ_BYTES) return result;
      }
      const stack = new Error().stack ?? '';
      if (stack.includes(bundle)) {
        const where = stack
          .split('\n')
          .filter((l) => l.includes(bundle))
          .slice(0, 4)
          .map((l) => l.trim())
          .join(' < ');
        calls.push({ call: name, arg: String(args[0]).slice(0, 200), where });
      }
      return result;
    };
    target[name] = wrapped;
    restore.push(() => {
      target[name] = original;
    });
  }
  return {
    calls,
    stop() {
      for (const r of restore) r();
      return calls;
    },
  };
}

/** One line per call kind, for an assertion message. */
export function describeCalls(calls: readonly SyncCall[]): string {
  const byKind = new Map<string, SyncCall[]>();
  for (const c of calls) byKind.set(c.call, [...(byKind.get(c.call) ?? []), c]);
  return [...byKind].map(([k, list]) => `${list.length} × ${k}, e.g. ${list[0]!.arg} at ${list[0]!.where}`).join('\n');
}
