// AgentJet's own environment gates, read from the user's AgentJet where it can be: the verl versions
// `verify_python_env` (ajet/utils/launch_utils.py) accepts for the verl backbone and refuses for
// trinity, the debugpy minimum of `check_debugpy_version` (launch_utils.py, or launcher.py in older
// trees), and whether `logger: swanlab` needs SWANLAB_API_KEY. The bundled values are those of
// AgentJet c68c154, for when no source is readable.
import { dirname, join } from 'node:path';
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

/** The list in `[... for v in [<list>]]` after `anchor` in `body`. */
function listAfter(body: string, anchor: RegExp): string[] | undefined {
  const at = body.search(anchor);
  if (at < 0) return undefined;
  const m = /for\s+\w+\s+in\s+\[([^\]]*)\]/.exec(body.slice(at));
  return m ? quoted(m[1]!) : undefined;
}

/**
 * Gates from AgentJet source text (launch_utils.py, and launcher.py where check_debugpy_version
 * lived before); what a text does not show keeps its bundled value. Undefined when neither
 * function is there (not AgentJet's launch code).
 */
export function gatesFromSource(texts: readonly { path: string; text: string }[]): AgentJetGates | undefined {
  let verify: { path: string; body: string } | undefined;
  let debugpy: string | undefined;
  for (const { path, text } of texts) {
    const v = functionBody(text, 'verify_python_env');
    if (v && !verify) verify = { path, body: v };
    const d = functionBody(text, 'check_debugpy_version');
    if (d && !debugpy) debugpy = d;
  }
  if (!verify && !debugpy) return undefined;
  const out: AgentJetGates = { ...BUNDLED_GATES, verlCheck: !!verify, debugpyCheck: !!debugpy, from: verify?.path ?? texts[0]!.path };
  if (verify) {
    const verl = listAfter(verify.body, /backbone\s*==\s*["']verl["']/);
    if (verl?.length) out.verlAccepted = verl;
    const trinity = listAfter(verify.body, /backbone\s*==\s*["']trinity["']/);
    if (trinity?.length) out.trinityRefused = trinity;
    out.swanlabKey = verify.body.includes('SWANLAB_API_KEY');
    out.importsVerl = /^\s+import verl\b/m.test(verify.body);
  }
  const min = debugpy && /parse\(\s*["'](\d+(?:\.\d+)*)["']\s*\)/.exec(debugpy);
  if (min) out.debugpyMin = min[1]!;
  return out;
}

/** The AgentJet package folder (`.../ajet`) a traceback frame's path lies in, if any. */
export function ajetPackageOf(framePath: string): string | undefined {
  const m = /^(.*[\\/]ajet)[\\/](?:utils|backbone|launcher\.py|task_\w+|context_tracker|workflow\.py)/.exec(framePath);
  return m?.[1];
}

/** Reads the gates of the AgentJet package at `ajetDir` (bounded reads); bundled ones when none of its files is readable. */
export async function readGates(fs: RunsFs, ajetDir: string | undefined): Promise<AgentJetGates> {
  if (!ajetDir) return BUNDLED_GATES;
  const texts: { path: string; text: string }[] = [];
  for (const p of [join(ajetDir, 'utils', 'launch_utils.py'), join(ajetDir, 'launcher.py')]) {
    try {
      texts.push({ path: p, text: (await fs.readRange(p, 0, 512 * 1024)).toString('utf8') });
    } catch {
      /* not there in this release */
    }
  }
  // Read but without either function (a stand-in, an older layout): it gates nothing.
  if (!texts.length) return BUNDLED_GATES;
  const gates = gatesFromSource(texts) ?? noGates(texts[0]!.path);
  const targets = backboneTargets(texts);
  if (targets.size) gates.backboneImports = await readBackboneImports(fs, dirname(ajetDir), targets);
  return gates;
}

/** The backbones the packages are judged for: what AgentJet's launcher may start. */
const BACKBONE_PACKAGES = ['verl', 'trinity'];

/** `backbone -> module` from get_backbone_target (`if backbone == "verl": backbone_target = "ajet.backbone.main_verl"`). */
export function backboneTargets(texts: readonly { text: string }[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const { text } of texts) {
    const body = functionBody(text, 'get_backbone_target');
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
  if (backbone === 'verl') return gates.verlAccepted.some((v) => version.includes(v));
  if (backbone === 'trinity') return !gates.trinityRefused.some((v) => version.includes(v));
  return true;
}
