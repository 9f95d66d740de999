// The backbone packages the user's AgentJet imports before a launch (verify_python_env imports
// verl), imported for real through the launch's interpreter: a package that is installed but fails
// to import (a broken dependency) is caught before the start, with the exception's last line. One
// child for all the modules, with a deadline: a slow import is reported as slow, never waited on.
import { ProcessError, runProcess } from '../process/run';

export interface ImportOutcome {
  module: string;
  /** The import finished without an exception. */
  ok: boolean;
  /** The exception's last line (`ImportError: ...`), when it failed. */
  error?: string;
  /** The deadline passed while this module was being imported. */
  timedOut?: boolean;
  seconds?: number;
}

export const DEFAULT_IMPORT_DEADLINE_MS = 30_000;
const MARK = 'AGENTJET_IMPORT ';
const BEGIN = 'AGENTJET_IMPORT_BEGIN ';

// os._exit at the end: a package's atexit hooks or threads (Ray, torch) must not keep it alive.
export const IMPORT_PROBE_SOURCE = `import json, os, sys, time, traceback
if os.getcwd() not in sys.path:
    sys.path.insert(0, os.getcwd())
for name in sys.argv[1:]:
    sys.stdout.write("${BEGIN}%s\\n" % name)
    sys.stdout.flush()
    t0 = time.time()
    try:
        __import__(name)
        r = {"module": name, "ok": True}
    except BaseException as e:
        lines = traceback.format_exception_only(type(e), e)
        r = {"module": name, "ok": False, "error": (lines[-1] if lines else repr(e)).strip()[:500]}
    r["seconds"] = round(time.time() - t0, 2)
    sys.stdout.write("${MARK}" + json.dumps(r) + "\\n")
    sys.stdout.flush()
sys.stdout.flush()
os._exit(0)
`;

/** The outcomes printed in `stdout`; a module begun but not finished is `timedOut` when the deadline ended it. */
export function parseImportOutput(stdout: string, timedOut: boolean): Record<string, ImportOutcome> {
  const out: Record<string, ImportOutcome> = {};
  for (const line of stdout.split('\n')) {
    if (line.startsWith(BEGIN)) {
      const module = line.slice(BEGIN.length).trim();
      if (timedOut && module) out[module] = { module, ok: false, timedOut: true };
    } else if (line.startsWith(MARK)) {
      try {
        const r = JSON.parse(line.slice(MARK.length)) as Partial<ImportOutcome>;
        if (typeof r.module === 'string' && typeof r.ok === 'boolean')
          out[r.module] = {
            module: r.module,
            ok: r.ok,
            ...(typeof r.error === 'string' ? { error: r.error } : {}),
            ...(typeof r.seconds === 'number' ? { seconds: r.seconds } : {}),
          };
      } catch {
        /* a package printed something like our line */
      }
    }
  }
  return out;
}

/**
 * Imports `modules` in `python` (cwd first on sys.path, as the launcher has it). Never throws: an
 * interpreter that cannot run gives no outcomes (the environment probe reports it).
 */
export async function probeImports(
  python: string,
  modules: readonly string[],
  o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; signal?: AbortSignal },
): Promise<{ outcomes: Record<string, ImportOutcome>; deadlineMs: number }> {
  const deadlineMs = o.timeoutMs ?? DEFAULT_IMPORT_DEADLINE_MS;
  if (!modules.length) return { outcomes: {}, deadlineMs };
  try {
    const r = await runProcess(python, ['-c', IMPORT_PROBE_SOURCE, ...modules], {
      cwd: o.cwd,
      env: o.env,
      timeoutMs: deadlineMs,
      killGraceMs: 1000,
      maxBuffer: 1024 * 1024,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    return { outcomes: parseImportOutput(r.stdout, false), deadlineMs };
  } catch (e) {
    if (e instanceof ProcessError) return { outcomes: parseImportOutput(e.stdout, e.failure === 'timed-out'), deadlineMs };
    return { outcomes: {}, deadlineMs };
  }
}
