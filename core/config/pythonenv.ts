// Asks a configured Python interpreter where top-level packages are installed (cached per name).
// The language server must never block: there the probe runs asynchronously, `locate` answers
// "unknown" (and `pending` true) until it is done, and `onResolved` says when to check again.
// The CLI may wait: it asks in `sync` mode.
import { ProcessError } from '../process/run';
import { askInterpreter, askInterpreterSync, INTERPRETER_ANSWER_MS } from '../process/interpreter';
import { tmpdir } from 'node:os';
import type { PackageLocator } from './classref';
import type { WorkspaceTrust } from '../trust/policy';

// The working directory (sys.path[0] for `-c`) is dropped, so a stray folder there named like a
// package cannot answer for the installed one.
const PROBE = `import importlib.util, json, os, sys
cwd = os.getcwd()
sys.path[:] = [p for p in sys.path if p not in ('', '.', cwd)]
out = {}
for n in sys.argv[1:]:
    try:
        s = importlib.util.find_spec(n)
    except Exception:
        s = None
    if s is None:
        out[n] = None
    elif s.submodule_search_locations:
        out[n] = os.path.dirname(list(s.submodule_search_locations)[0])
    elif s.origin:
        out[n] = os.path.dirname(s.origin)
    else:
        out[n] = None
print(json.dumps(out))`;

export interface PythonLocatorOptions {
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Block on the probe (CLI only; the language server never does). */
  sync?: boolean;
  /** Called after an asynchronous probe answered new names (or failed). */
  onResolved?: () => void;
  /** The workspace's trust: nothing runs while it is not granted (default: trusted, as in the CLI). */
  trust?: WorkspaceTrust;
  /** False when the interpreter was found for the user rather than chosen (default true). */
  configured?: boolean;
  /** Ends the asynchronous probes in flight (the interpreter is stopped) when it aborts. */
  signal?: AbortSignal;
}

export class PythonLocator implements PackageLocator {
  private cache = new Map<string, string | null>();
  private inflight = new Map<string, Promise<void>>();
  private failure: string | undefined;
  private readonly timeoutMs: number;
  private readonly env: NodeJS.ProcessEnv | undefined;
  private readonly sync: boolean;
  private readonly trust: WorkspaceTrust | undefined;
  private readonly signal: AbortSignal | undefined;
  readonly configured: boolean;
  onResolved: (() => void) | undefined;

  constructor(
    readonly python: string,
    opts: PythonLocatorOptions | number = {},
    env?: NodeJS.ProcessEnv,
  ) {
    const o: PythonLocatorOptions = typeof opts === 'number' ? { timeoutMs: opts, env, sync: true } : opts;
    this.timeoutMs = o.timeoutMs ?? INTERPRETER_ANSWER_MS;
    this.env = o.env;
    this.sync = o.sync ?? false;
    this.onResolved = o.onResolved;
    this.trust = o.trust;
    this.configured = o.configured ?? true;
    this.signal = o.signal;
  }

  /** True while a probe runs. */
  busy(): boolean {
    return this.inflight.size > 0;
  }

  /** Resolves once every probe in flight has answered or failed. */
  async settled(): Promise<void> {
    while (this.inflight.size) await Promise.all([...this.inflight.values()]);
  }

  waitingForTrust(): boolean {
    return !!this.trust && !this.trust.allows('probe-packages');
  }

  /** Why the interpreter could not be asked, once it failed (e.g. it does not exist). */
  problem(): string | undefined {
    return this.failure;
  }

  pending(name: string): boolean {
    for (const [key] of this.inflight) if (key.split(' ').includes(name)) return true;
    return false;
  }

  private store(todo: string[], stdout: string): void {
    const res = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, string | null>;
    for (const n of todo) this.cache.set(n, res[n] ?? null);
  }

  /** Resolves several names at once (one process), e.g. the framework roots at startup. */
  prime(names: string[]): Promise<void> {
    if (this.waitingForTrust()) return Promise.resolve();
    const todo = names.filter((n) => !this.cache.has(n) && !this.pending(n));
    if (!todo.length || this.failure) return Promise.all(names.map((n) => this.waitFor(n))).then(() => undefined);
    if (this.sync) {
      // One deadline per interpreter (core/process/interpreter.ts): a silent one is not asked twice.
      const r = askInterpreterSync(this.python, ['-c', PROBE, ...todo], {
        timeoutMs: this.timeoutMs,
        cwd: tmpdir(),
        env: this.env ?? process.env,
      });
      if (r.problem || !r.stdout) this.failure = r.problem ?? 'no answer';
      else
        try {
          this.store(todo, r.stdout);
        } catch {
          this.failure = 'unreadable answer';
        }
      return Promise.resolve();
    }
    const key = todo.join(' ');
    const p = askInterpreter(this.python, ['-c', PROBE, ...todo], {
      timeoutMs: this.timeoutMs,
      cwd: tmpdir(),
      env: this.env ?? process.env,
      ...(this.signal ? { signal: this.signal } : {}),
    })
      .then(
        (r) => {
          if (!r.stdout) this.failure = 'no answer';
          else
            try {
              this.store(todo, r.stdout);
            } catch {
              this.failure = 'unreadable answer';
            }
        },
        (err: unknown) => {
          this.failure =
            err instanceof ProcessError && err.failure === 'not-found'
              ? `${this.python} does not exist`
              : ((err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'failed');
        },
      )
      .finally(() => {
        this.inflight.delete(key);
        this.onResolved?.();
      });
    this.inflight.set(key, p);
    return p;
  }

  private waitFor(name: string): Promise<void> {
    for (const [key, p] of this.inflight) if (key.split(' ').includes(name)) return p;
    return Promise.resolve();
  }

  locate(name: string): string | null | undefined {
    if (!/^[A-Za-z_]\w*$/.test(name)) return null;
    if (this.waitingForTrust()) return undefined;
    if (this.cache.has(name)) return this.cache.get(name);
    if (this.failure) return undefined;
    if (!this.pending(name)) void this.prime([name]);
    return this.cache.get(name); // set already in sync mode; undefined while an async probe runs
  }
}
