// Stacks without py-spy, for the launches the editor (or `agentjet debug-task`) starts: the launch
// puts a `sitecustomize` on PYTHONPATH that registers Python's own faulthandler for SIGUSR1 with
// all threads, writing to `<AGENTJET_STACKS_DIR>/<pid>.txt` (a new file after a fork). The file's
// first line names the process (pid, executable, start time) so that a reader signals only the
// process that registered, never a reused pid or a program exec'd in its place (SIGUSR1 would end
// it). A sitecustomize the environment already had is imported after ours.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export const STACKS_DIR_ENV = 'AGENTJET_STACKS_DIR';
/** The first line of each dump file: `# agentjet-vscode stacks pid=N exe=PATH start=TICKS`. */
export const STACKS_HEADER = '# agentjet-vscode stacks';

export const STACK_HOOK_SOURCE = `# Written by AgentJet for VS Code: Show Stacks asks this process for its threads' stacks
# with SIGUSR1 (faulthandler, all threads) and reads them from AGENTJET_STACKS_DIR/<pid>.txt.
import os as _aj_os, sys as _aj_sys


def _aj_stacks_register():
    d = _aj_os.environ.get("${STACKS_DIR_ENV}")
    if not d or _aj_os.name != "posix":
        return
    try:
        import faulthandler, signal
        pid = _aj_os.getpid()
        try:
            exe = _aj_os.readlink("/proc/self/exe")
        except OSError:
            exe = _aj_sys.executable
        try:
            with open("/proc/self/stat") as s:
                start = s.read().rsplit(")", 1)[1].split()[19]
        except (OSError, IndexError):
            start = "?"
        f = open(_aj_os.path.join(d, "%d.txt" % pid), "a", encoding="ascii", errors="backslashreplace")
        f.write("${STACKS_HEADER} pid=%d exe=%s start=%s\\n" % (pid, exe, start))
        f.flush()
        faulthandler.register(signal.SIGUSR1, file=f, all_threads=True, chain=False)
        globals()["_aj_stacks_file"] = f
    except Exception:
        pass


_aj_stacks_register()
try:
    _aj_os.register_at_fork(after_in_child=_aj_stacks_register)
except Exception:
    pass


def _aj_chain_sitecustomize():
    here = _aj_os.path.dirname(_aj_os.path.abspath(__file__))
    me = _aj_sys.modules.get("sitecustomize")
    saved = list(_aj_sys.path)
    try:
        _aj_sys.path[:] = [p for p in saved if _aj_os.path.abspath(p or ".") != here]
        del _aj_sys.modules["sitecustomize"]
        import importlib
        importlib.import_module("sitecustomize")
    except ImportError:
        if me is not None:
            _aj_sys.modules["sitecustomize"] = me
    except Exception:
        pass
    finally:
        _aj_sys.path[:] = saved


_aj_chain_sitecustomize()
`;

/** The hook folder (named by its content, shared by launches): `<tmp>/agentjet-vscode-stacks-hook-<hash>/sitecustomize.py`. */
export async function ensureStackHookDir(root: string = tmpdir()): Promise<string> {
  const hash = createHash('sha1').update(STACK_HOOK_SOURCE).digest('hex').slice(0, 12);
  const dir = join(root, `agentjet-vscode-stacks-hook-${hash}`);
  const file = join(dir, 'sitecustomize.py');
  const have = await readFile(file, 'utf8').catch(() => undefined);
  if (have === STACK_HOOK_SOURCE) return dir;
  await mkdir(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, STACK_HOOK_SOURCE);
  await rename(tmp, file);
  return dir;
}

/** A new folder (mode 0700) for one launch's dump files. */
export function newStacksDir(root: string = tmpdir()): Promise<string> {
  return mkdtemp(join(root, 'agentjet-vscode-stacks-'));
}

/**
 * What a launch adds to its environment: the hook first on PYTHONPATH and the folder for the dumps.
 * Nothing on Windows (no SIGUSR1), and nothing when the user set AGENTJET_STACKS_DIR to `off`.
 */
export async function stackDumpEnv(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<Record<string, string>> {
  if (platform === 'win32' || env[STACKS_DIR_ENV] === 'off') return {};
  try {
    const hook = await ensureStackHookDir();
    const dir = await newStacksDir();
    return { PYTHONPATH: env.PYTHONPATH ? `${hook}${delimiter}${env.PYTHONPATH}` : hook, [STACKS_DIR_ENV]: dir };
  } catch {
    return {};
  }
}
