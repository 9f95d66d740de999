// Asks a configured Python interpreter where top-level packages are installed (cached per name).
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import type { PackageLocator } from './classref';

const PROBE = `import importlib.util, json, os, sys
# \`python -c\` puts the working directory (a temp folder) first on sys.path: a stray ajet/ there is not installed.
sys.path = [p for p in sys.path if p not in ('', os.getcwd())]
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

export class PythonLocator implements PackageLocator {
  private cache = new Map<string, string | null>();
  private broken = false;
  constructor(readonly python: string, private readonly timeoutMs = 8000, private readonly env?: NodeJS.ProcessEnv) {}

  /** Resolves several names at once (one process), e.g. the framework roots at startup. */
  prime(names: string[]): void {
    const todo = names.filter((n) => !this.cache.has(n));
    if (!todo.length || this.broken) return;
    // Run outside the workspace so its folders do not shadow installed packages; local modules are resolved statically.
    const r = spawnSync(this.python, ['-c', PROBE, ...todo], { encoding: 'utf8', timeout: this.timeoutMs, cwd: tmpdir(), windowsHide: true, env: this.env ?? process.env });
    if (r.status !== 0 || !r.stdout) { this.broken = true; return; }
    try {
      const res = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, string | null>;
      for (const n of todo) this.cache.set(n, res[n] ?? null);
    } catch { this.broken = true; }
  }

  locate(name: string): string | null | undefined {
    if (!/^[A-Za-z_]\w*$/.test(name)) return null;
    if (!this.cache.has(name)) this.prime([name]);
    if (this.broken) return undefined;
    return this.cache.get(name);
  }
}
