// AgentJet's own environment gates, read from the user's AgentJet where it can be: the verl versions
// `verify_python_env` (ajet/utils/launch_utils.py) accepts for the verl backbone and refuses for
// trinity, the debugpy minimum of `check_debugpy_version` (launch_utils.py, or launcher.py in older
// trees), and whether `logger: swanlab` needs SWANLAB_API_KEY. The bundled values are those of
// AgentJet c68c154, for when no source is readable.
import { basename, dirname, join } from 'node:path';
import type { RunsFs } from '../fs/seam';

export interface AgentJetGates {
  /** Substrings of `verl.__version__` that verify_python_env accepts with `--backbone verl`. */
  verlAccepted: string[];
  /** Substrings it refuses with `--backbone trinity`. */
  trinityRefused: string[];
  /** check_debugpy_version's minimum. */
  debugpyMin: string;
  /** verify_python_env refuses `logger: swanlab` without SWANLAB_API_KEY. */
  swanlabKey: boolean;
  /** The code has verify_python_env (the verl gates apply). */
  verlCheck: boolean;
  /** The code has check_debugpy_version (the launcher stops without debugpy, any backbone). */
  debugpyCheck: boolean;
  /** verify_python_env imports verl whatever the backbone (a launch without verl stops). */
  importsVerl: boolean;
  /**
   * The backbone packages (verl, trinity) each backbone's module imports at its top, read from
   * get_backbone_target and that module's file (`ajet/backbone/main_verl.py` ...): `{verl: ['verl']}`.
   */
  backboneImports: Partial<Record<string, { packages: string[]; file: string }>>;
  /** How a version is matched against the lists: AgentJet's `v in version`, ASTuner's `version.startswith(v)`. */
  verlMatch?: 'contains' | 'prefix';
  /** The launcher calls check_debugpy_version only under `if __name__ == "__main__":` (not from a console script). */
  debugpyAsMainOnly?: boolean;
  /** The file check_debugpy_version was read from. */
  debugpyFrom?: string;
  /** The framework whose code was read, for messages (AgentJet, ASTuner, ASTune). */
  framework?: string;
  /** The file the gates were read from, or `bundled`. */
  from: string;
}

export const BUNDLED_GATES: AgentJetGates = {
  verlAccepted: ['0.5.0.post', '0.5.0.dev', '0.7.0.post', '0.7.1', '0.8.0.dev'],
  trinityRefused: ['0.5.0.post', '0.7.0.post'],
  debugpyMin: '1.8.0',
  swanlabKey: true,
  verlCheck: true,
  debugpyCheck: true,
  importsVerl: true,
  backboneImports: {
    verl: { packages: ['verl'], file: 'ajet/backbone/main_verl.py' },
    trinity: { packages: ['trinity'], file: 'ajet/backbone/main_trinity.py' },
  },
  from: 'bundled',
};

/** What code that has neither function gates: nothing. */
export function noGates(from: string): AgentJetGates {
  return { ...BUNDLED_GATES, swanlabKey: false, verlCheck: false, debugpyCheck: false, importsVerl: false, backboneImports: {}, from };
}

/** The body of `def name(` up to the next top-level statement. */
function functionBody(source: string, name: string): string | undefined {
  const at = source.search(new RegExp(`^def ${name}\\(`, 'm'));
  if (at < 0) return undefined;
  const rest = source.slice(at);
  const nl = rest.indexOf('\n');
  if (nl < 0) return rest;
  const end = rest.slice(nl + 1).search(/^\S/m);
  return end < 0 ? rest : rest.slice(0, nl + 1 + end);
}

const quoted = (list: string) => [...list.matchAll(/["']([^"']+)["']/g)].map((m) => m[1]!);

/**
 * The versions the branch of `backbone == "<name>"` in `body` tests: `[... for v in [<list>]]`
 * (AgentJet: contained) or `verl.__version__.startswith(<str or tuple>)` (ASTuner: a prefix).
 */
function ruleOf(body: string, name: string): { list: string[]; match: 'contains' | 'prefix' } | undefined {
  const at = body.search(new RegExp(`backbone\\s*==\\s*["']${name}["']`));
  if (at < 0) return undefined;
  const rest = body.slice(at + 1);
  const next = rest.search(/backbone\s*==/);
  const branch = next < 0 ? rest : rest.slice(0, next);
  const list = /for\s+\w+\s+in\s+\[([^\]]*)\]/.exec(branch);
  if (list) return { list: quoted(list[1]!), match: 'contains' };
  const pre = /__version__\.startswith\(\s*(\([^)]*\)|["'][^"']+["'])/.exec(branch);
  return pre ? { list: quoted(pre[1]!), match: 'prefix' } : undefined;
}

/** Where check_debugpy_version is called: nowhere, only in `if __name__ == "__main__":`, or elsewhere too. */
function debugpyCalls(texts: readonly { text: string }[]): 'none' | 'main-only' | 'always' {
  let found: 'none' | 'main-only' = 'none';
  for (const { text } of texts) {
    const mainAt = text.search(/^if\s+__name__\s*==\s*["']__main__["']\s*:/m);
    for (const m of text.matchAll(/^([ \t]*)(?!def\b)[^\n#]*\bcheck_debugpy_version\(\)/gm)) {
      if (/^\s*def\s/.test(m[0])) continue;
      if (mainAt >= 0 && m.index > mainAt && m[1]!.length > 0) found = 'main-only';
      else return 'always';
    }
  }
  return found;
}

/**
 * Gates from AgentJet source text (launch_utils.py, and launcher.py where check_debugpy_version
 * lived before); what a text does not show keeps its bundled value. Undefined when neither
 * function is there (not AgentJet's launch code).
 */
export function gatesFromSource(texts: readonly { path: string; text: string }[]): AgentJetGates | undefined {
  let verify: { path: string; body: string } | undefined;
  let debugpy: { path: string; body: string } | undefined;
  for (const { path, text } of texts) {
    const v = functionBody(text, 'verify_python_env');
    if (v && !verify) verify = { path, body: v };
    const d = functionBody(text, 'check_debugpy_version');
    if (d && !debugpy) debugpy = { path, body: d };
  }
  if (!verify && !debugpy) return undefined;
  // A check_debugpy_version nobody calls gates nothing; one called only as `__main__` not a console script.
  const calls = debugpy ? debugpyCalls(texts) : 'none';
  const out: AgentJetGates = {
    ...BUNDLED_GATES,
    verlCheck: !!verify,
    debugpyCheck: calls !== 'none',
    debugpyAsMainOnly: calls === 'main-only',
    ...(debugpy ? { debugpyFrom: debugpy.path } : {}),
    from: verify?.path ?? debugpy?.path ?? texts[0]!.path,
  };
  if (verify) {
    const verl = ruleOf(verify.body, 'verl');
    if (verl?.list.length) out.verlAccepted = verl.list;
    const trinity = ruleOf(verify.body, 'trinity');
    if (trinity?.list.length) out.trinityRefused = trinity.list;
    out.verlMatch = verl?.match ?? trinity?.match ?? 'contains';
    out.swanlabKey = verify.body.includes('SWANLAB_API_KEY');
    out.importsVerl = /^\s+import verl\b/m.test(verify.body);
  }
  const min = debugpy && /parse\(\s*["'](\d+(?:\.\d+)*)["']\s*\)/.exec(debugpy.body);
  if (min) out.debugpyMin = min[1]!;
  return out;
}

/** The AgentJet package folder (`.../ajet`) a traceback frame's path lies in, if any. */
export function ajetPackageOf(framePath: string): string | undefined {
  const m = /^(.*[\\/]ajet)[\\/](?:utils|backbone|launcher\.py|task_\w+|context_tracker|workflow\.py)/.exec(framePath);
  return m?.[1];
}

/**
 * The files a package's launch code is in: launch_utils.py and the launcher, `ajet/launcher.py`,
 * `<pkg>/cli/launcher.py` (ASTuner, early AgentJet), or ASTune's `launcher.py` at its checkout's root.
 */
export function launchFilesOf(pkgDir: string): string[] {
  const out = [join(pkgDir, 'utils', 'launch_utils.py'), join(pkgDir, 'launcher.py'), join(pkgDir, 'cli', 'launcher.py')];
  if (basename(pkgDir) === 'astune') out.push(join(dirname(pkgDir), 'launcher.py'));
  return out;
}

/**
 * Reads the gates of the framework package at `ajetDir` (ajet, astuner or astune; bounded reads);
 * bundled ones when none of its files is readable.
 */
export async function readGates(fs: RunsFs, ajetDir: string | undefined): Promise<AgentJetGates> {
  if (!ajetDir) return BUNDLED_GATES;
  const texts: { path: string; text: string }[] = [];
  for (const p of launchFilesOf(ajetDir)) {
    try {
      texts.push({ path: p, text: (await fs.readRange(p, 0, 512 * 1024)).toString('utf8') });
    } catch {
      /* not there in this release */
    }
  }
  // Read but without either function (a stand-in, an older layout): it gates nothing.
  if (!texts.length) return BUNDLED_GATES;
  const gates = gatesFromSource(texts) ?? noGates(texts[0]!.path);
  const name = basename(ajetDir);
  gates.framework = name === 'astuner' ? 'ASTuner' : name === 'astune' ? 'ASTune' : 'AgentJet';
  const targets = backboneTargets(texts);
  if (targets.size) gates.backboneImports = await readBackboneImports(fs, dirname(ajetDir), targets);
  return gates;
}

/** The backbones the packages are judged for: what AgentJet's launcher may start. */
const BACKBONE_PACKAGES = ['verl', 'trinity'];

/**
 * `backbone -> module` from get_backbone_target (`if backbone == "verl": backbone_target = "ajet.backbone.main_verl"`),
 * or from main() where the launcher decides there (ASTune).
 */
export function backboneTargets(texts: readonly { text: string }[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const { text } of texts) {
    const body = functionBody(text, 'get_backbone_target') ?? functionBody(text, 'main');
    if (!body) continue;
    for (const m of body.matchAll(/backbone\s*==\s*["'](\w+)["']\s*:\s*\n\s*backbone_target\s*=\s*["']([\w.]+)["']/g))
      if (!out.has(m[1]!)) out.set(m[1]!, m[2]!);
  }
  return out;
}

/** The backbone packages a module's text imports at its top level (`from verl.x import y`, `import trinity`). */
export function topLevelImports(text: string, among: readonly string[] = BACKBONE_PACKAGES): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/^(?:from\s+(\w+)[\w.]*\s+import|import\s+(\w+))/gm)) {
    const name = m[1] ?? m[2]!;
    if (among.includes(name)) found.add(name);
  }
  return [...found];
}

async function readBackboneImports(fs: RunsFs, root: string, targets: Map<string, string>): Promise<AgentJetGates['backboneImports']> {
  const out: AgentJetGates['backboneImports'] = {};
  for (const [backbone, module] of targets) {
    const file = join(root, ...module.split('.')) + '.py';
    try {
      const text = (await fs.readRange(file, 0, 512 * 1024)).toString('utf8');
      out[backbone] = { packages: topLevelImports(text), file };
    } catch {
      /* not readable: that backbone is not judged */
    }
  }
  return out;
}

/** Whether verify_python_env lets this verl version through for `backbone`. */
export function verlAllowed(gates: AgentJetGates, version: string, backbone: string): boolean {
  const has = (v: string) => (gates.verlMatch === 'prefix' ? version.startsWith(v) : version.includes(v));
  if (backbone === 'verl') return gates.verlAccepted.some(has);
  if (backbone === 'trinity') return !gates.trinityRefused.some(has);
  return true;
}
