// The Python the tests run: a virtual environment the harness makes with pip, as a user would
// (`python3 -m venv` + `pip install -r test/harness/requirements.txt`), cached by the requirements'
// hash under $AGENTJET_VSCODE_DIR. Falls back to Debian's /usr/bin/python3 (python3-debugpy,
// python3-yaml) only when a venv cannot be made or pip cannot install.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { withDirLock } from '../util/poll';

const harnessDir = __dirname;
const requirementsFile = join(harnessDir, 'requirements.txt');
const cacheDir = process.env.AGENTJET_VSCODE_DIR ?? join(homedir(), '.cache', 'agentjet-vscode-test');
export const debianPython = '/usr/bin/python3';

export interface TestPython {
  /** Absolute path of the interpreter. */
  python: string;
  /** 'venv' when pip installed the requirements, 'debian' for the fallback. */
  kind: 'venv' | 'debian';
  /** Why the fallback was taken (kind 'debian'). */
  reason?: string;
}

function log(msg: string): void {
  process.stderr.write(`[harness] ${msg}\n`);
}

function withLock<T>(lock: string, fn: () => T): T {
  mkdirSync(cacheDir, { recursive: true });
  return withDirLock(lock, fn);
}

function basePython(): string {
  if (process.env.AGENTJET_BASE_PYTHON) return process.env.AGENTJET_BASE_PYTHON;
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : debianPython;
}

let memo: TestPython | undefined;

/** Makes (once) and returns the tests' Python. Synchronous: called from test setup. */
export function ensureTestPython(): TestPython {
  if (memo) return memo;
  if (process.env.AGENTJET_TEST_PYTHON) return (memo = { python: process.env.AGENTJET_TEST_PYTHON, kind: 'venv' });
  const reqs = readFileSync(requirementsFile, 'utf8');
  const key = createHash('sha256').update(reqs).digest('hex').slice(0, 12);
  const venv = join(cacheDir, `pyenv-${key}`);
  const python = join(venv, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
  const marker = join(venv, '.agentjet-ready');
  if (existsSync(marker) && existsSync(python)) return (memo = { python, kind: 'venv' });
  try {
    memo = withLock(join(cacheDir, `.pyenv-lock-${key}`), () => {
      if (existsSync(marker) && existsSync(python)) return { python, kind: 'venv' as const };
      const started = Date.now();
      rmSync(venv, { recursive: true, force: true });
      log(`python: creating ${venv}`);
      const mk = spawnSync(basePython(), ['-m', 'venv', venv], { encoding: 'utf8' });
      if (mk.status !== 0) throw new Error(`python -m venv failed: ${(mk.stderr || mk.stdout).trim().slice(-400)}`);
      // --retries 0: on a machine without PyPI, pip moves on to its configured mirrors at once.
      const pip = spawnSync(
        python,
        ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--retries', '0', '-r', requirementsFile],
        { encoding: 'utf8' },
      );
      if (pip.status !== 0) throw new Error(`pip install failed: ${(pip.stderr || pip.stdout).trim().slice(-600)}`);
      writeFileSync(marker, `${new Date().toISOString()}\n`);
      log(`python: ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      return { python, kind: 'venv' as const };
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    log(`python: falling back to Debian's ${debianPython} (${reason})`);
    memo = { python: debianPython, kind: 'debian', reason };
  }
  return memo;
}

/** Version of a module in the given interpreter, or undefined when it does not import. */
export function moduleVersion(python: string, module: string): string | undefined {
  const r = spawnSync(python, ['-c', `import ${module} as m; print(getattr(m, '__version__', '?'))`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

if (require.main === module) {
  const p = ensureTestPython();
  log(`ok: ${p.python} (${p.kind})`);
}
