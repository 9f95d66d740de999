// Which Python runs the launcher: `agentjet.pythonPath` > the Python extension's active
// environment for the folder > `.venv`/`venv` in the folder > `python3` on PATH.
import { delimiter, isAbsolute, join } from 'node:path';
import { homedir } from 'node:os';

export type InterpreterSource = 'setting' | 'python-extension' | 'venv' | 'path';

export interface Interpreter {
  path: string;
  source: InterpreterSource;
}

export interface InterpreterInputs {
  /** Value of `agentjet.pythonPath` (may hold `${workspaceFolder}` or `~`). */
  setting?: string | undefined;
  /** The Python extension's active environment for the folder, when that extension is installed. */
  pythonExtension?: string | undefined;
  /** The workspace folder of the config. */
  folder?: string | undefined;
  platform?: NodeJS.Platform;
}

export function expandPath(p: string, folder: string | undefined): string {
  let out = p.trim();
  if (folder) out = out.replace(/\$\{workspaceFolder\}/g, folder);
  if (out === '~' || out.startsWith('~/')) out = join(homedir(), out.slice(1));
  if (folder && !isAbsolute(out) && /[\\/]/.test(out)) out = join(folder, out);
  return out;
}

export function venvCandidates(folder: string, platform: NodeJS.Platform = process.platform): string[] {
  const rel = platform === 'win32' ? ['Scripts', 'python.exe'] : ['bin', 'python'];
  return ['.venv', 'venv'].map((v) => join(folder, v, ...rel));
}

export function resolveInterpreter(inp: InterpreterInputs, exists: (p: string) => boolean): Interpreter {
  if (inp.setting && inp.setting.trim()) return { path: expandPath(inp.setting, inp.folder), source: 'setting' };
  if (inp.pythonExtension && inp.pythonExtension.trim()) return { path: inp.pythonExtension, source: 'python-extension' };
  if (inp.folder) {
    const venv = venvCandidates(inp.folder, inp.platform).find(exists);
    if (venv) return { path: venv, source: 'venv' };
  }
  return { path: (inp.platform ?? process.platform) === 'win32' ? 'python' : 'python3', source: 'path' };
}

/** Finds a bare command on PATH (absolute paths are checked as they are). */
export function whichSync(cmd: string, exists: (p: string) => boolean, envPath = process.env.PATH ?? ''): string | undefined {
  if (isAbsolute(cmd) || /[\\/]/.test(cmd)) return exists(cmd) ? cmd : undefined;
  for (const dir of envPath.split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, cmd);
    if (exists(p)) return p;
  }
  return undefined;
}
