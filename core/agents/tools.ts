// The AgentJet tools coding agents call: one definition each (name, description, input schema,
// handler), served over MCP by `agentjet mcp` (cli/mcp.ts) and as VS Code language-model tools
// (extension/agents). The handlers call the same core functions as the CLI and the views: lint
// (config/lintPaths), runs (runs/list, runs/discover, runs/curves, runs/collector), token logs
// (logs/wholelog, logs/stats, logs/session), swarm (swarm/api) and doctor (doctor/*).
//
// Every path an agent names is resolved inside the allowed roots (real paths: a symbolic link
// out of a root is refused). Every answer is bounded (lists page with offset/limit, long text is
// cut) and says how to ask for more. Every failure is an answer marked as an error, never a throw.
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import { parseDocument, isMap, isScalar, isSeq, type Node } from 'yaml';
import { t } from '../l10n';
import { resolveInside } from '../fs/inside';
import { checkArgs, type ObjectSchema, type ToolArgs } from './schema';
import { lintPaths } from '../config/lintPaths';
import { parseConfig } from '../config/parse';
import { typesOf, resolveRef, type ConfigSchema } from '../config/schema';
import { schemaForPath, describeKey } from '../config/context';
import { AgentJetFactsService, defaultCacheDir as defaultFactsCacheDir } from '../config/agentjetFacts';
import { baseFacts, bundledReleases } from '../config/releases';
import { VALUE_SOURCES } from '../config/codefacts';
import { FRAMEWORK_VERSIONS } from '../agentjet/dialect';
import { collectRuns } from '../runs/list';
import { syncNodeFs } from '../runs/fs';
import { inspectExperiment, readExperimentEntry } from '../runs/discover';
import { RolloutCurves } from '../runs/curves';
import { RunCollector } from '../runs/collector';
import type { StepPoint } from '../runs/types';
import { FactsCache, defaultCacheDir as defaultLogCacheDir } from '../logs/cache';
import { allTasks, collectFacts, findRunLogs, openLogs, searchTasks } from '../logs/wholelog';
import { statsFromFacts } from '../logs/stats';
import { LogSession } from '../logs/session';
import { summarizePrefix } from '../logs/decode';
import type { RecordData, SearchHitData } from '../protocol/tokenlog';
import { DEFAULT_SWARM_URL, SwarmApi, fetchStatus, normalizeSwarmUrl } from '../swarm/api';
import { statusText } from '../swarm/format';
import { resolveInterpreter } from '../launch/interpreter';
import { lastTraceback } from '../agentjet/launchRecord';

/** The most characters one answer carries (about 6k tokens): an agent's context is precious. */
export const MAX_ANSWER_CHARS = 24_000;

/** What the tools may see and do; the MCP server and the extension each build one. */
export interface AgentToolEnv {
  /** Every path must lie inside one of these folders; relative paths resolve against the first. */
  roots: string[];
  /** False in VS Code's Restricted Mode (or `agentjet mcp --no-python`): no interpreter of the workspace runs. */
  mayRunPython: boolean;
  /** The interpreter of the first root (default: its .venv/venv, else python3). */
  python?: () => Promise<string | undefined>;
  /** The experiment roots the Runs view shows (VS Code); default: the roots. */
  runRoots?: () => Promise<string[]>;
  /** Cache folders (default: the CLI's, under ~/.cache). */
  factsCacheDir?: string;
  logCacheDir?: string;
  /** Worker threads for whole-log reads (default: the log engine's). */
  workers?: number;
}

export interface AgentToolAnswer {
  text: string;
  isError: boolean;
}

export interface AgentTool {
  readonly name: string;
  /** A short title (English; translate with t()). */
  readonly title: string;
  /** What it answers and when to call it (English; translate with t()). */
  readonly description: string;
  readonly inputSchema: ObjectSchema;
  /** Runs the workspace's interpreter: not offered in Restricted Mode. */
  readonly runsWorkspaceCode: boolean;
  /** Talks to a server named by the caller (not the file system). */
  readonly network?: boolean;
  run(args: ToolArgs, env: AgentToolEnv, signal: AbortSignal | undefined): Promise<string>;
}

/** A failure the agent should read (bad path, nothing found): answered as an error with this text. */
class ToolError extends Error {}

const str = (a: ToolArgs, k: string): string | undefined => (typeof a[k] === 'string' ? (a[k] as string) : undefined);
const int = (a: ToolArgs, k: string, dflt: number): number => (typeof a[k] === 'number' ? (a[k] as number) : dflt);

const PAGE = {
  offset: { type: 'integer', minimum: 0, maximum: 1e9, description: 'Skip this many items (for the next page).' },
  limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Return at most this many items.' },
} as const;

/** A path argument: relative to the first root, or absolute (checked against every root when used). */
function pathArg(description: string) {
  return { type: 'string', minLength: 1, maxLength: 4096, description } as const;
}

function json(v: unknown): string {
  return JSON.stringify(v, null, 1);
}

/** A path as the agent should write it back: relative to the first root when inside it. */
function shown(env: AgentToolEnv, p: string): string {
  const base = env.roots[0];
  if (!base) return p;
  const rel = relative(base, p);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? p : rel.split('\\').join('/');
}

/** The real path of `requested` when it lies inside a root; a ToolError otherwise. */
export async function insideRoots(env: AgentToolEnv, requested: string | undefined): Promise<string> {
  const base = env.roots[0];
  if (!base) throw new ToolError(t('no folder is open to read from'));
  const p = requested === undefined || requested === '' ? base : requested;
  const abs = isAbsolute(p) ? p : resolve(base, p);
  const r = await resolveInside(abs, env.roots);
  if (!r.ok) {
    if (r.reason === 'no such file') throw new ToolError(t('no such file or folder: {0}', p));
    if (r.reason === 'outside the allowed folders')
      throw new ToolError(t('{0} is outside the folder this server may read ({1}); name a path inside it', p, env.roots.join(', ')));
    throw new ToolError(t('{0}: {1}', p, r.reason));
  }
  return r.path;
}

/** Refuses what is neither a file nor a folder (a FIFO blocks its reader, a device never ends). */
async function fileOrFolder(p: string, shownPath: string): Promise<'file' | 'dir'> {
  const st = await stat(p);
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'dir';
  const kind = st.isFIFO() ? t('a named pipe (FIFO)') : st.isSocket() ? t('a socket') : t('not a regular file');
  throw new ToolError(t('{0} is {1}, not a log file or a run folder', shownPath, kind));
}

function page<T>(items: readonly T[], args: ToolArgs, dflt: number): { items: T[]; note?: string; total: number; offset: number } {
  const offset = int(args, 'offset', 0);
  const limit = int(args, 'limit', dflt);
  const slice = items.slice(offset, offset + limit);
  const end = offset + slice.length;
  const out: { items: T[]; note?: string; total: number; offset: number } = { items: slice, total: items.length, offset };
  if (end < items.length) out.note = t('showing {0}-{1} of {2}; call again with offset={3} for more', offset + 1, end, items.length, end);
  return out;
}

/** Cuts an answer to MAX_ANSWER_CHARS with a line saying so. */
export function bound(text: string, max = MAX_ANSWER_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n…\n${t('[answer cut at {0} of {1} characters: ask for less (a smaller limit, a later offset, one file or one record)]', max, text.length)}`;
}

/** Control characters of log text shown as escapes (a token may hold terminal escape sequences). */
function visible(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

// ---------------------------------------------------------------- lint

const lintTool: AgentTool = {
  name: 'agentjet_lint',
  title: 'Lint AgentJet configs',
  description:
    "Checks an AgentJet/ASTuner YAML config, or every config in a folder, the way the editor does: each diagnostic with its 1-based line and column, severity, code, message and quick fixes, and which AgentJet judged the file (the user's checkout or installed package, else bundled facts of a release).",
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg('A config file or a folder, relative to the workspace root or absolute.'),
      ...PAGE,
    },
    required: ['path'],
    additionalProperties: false,
  },
  runsWorkspaceCode: false,
  async run(args, env, signal) {
    const target = await insideRoots(env, str(args, 'path'));
    const root = env.roots[0]!;
    const python = env.mayRunPython ? await env.python?.() : undefined;
    const res = await lintPaths([target], {
      root,
      runPython: env.mayRunPython,
      ...(python ? { python } : {}),
      ...(env.factsCacheDir ? { factsCacheDir: env.factsCacheDir } : {}),
      ...(signal ? { signal } : {}),
    });
    // A folder walk follows links: a file whose real path leaves the roots is not read.
    const inside = await Promise.all(res.files.map(async (f) => (await resolveInside(f.file, env.roots)).ok));
    const all = res.files
      .filter((_, i) => inside[i])
      .flatMap((f) =>
        f.diagnostics.map((d) => ({
          file: shown(env, f.file),
          line: d.range.start.line + 1,
          column: d.range.start.character + 1,
          endLine: d.range.end.line + 1,
          endColumn: d.range.end.character + 1,
          severity: d.severity,
          code: d.code,
          message: d.message,
          ...(d.fixes?.length ? { quickFixes: d.fixes.map((x) => ({ title: x.title, newText: x.newText })) } : {}),
        })),
      );
    const p = page(all, args, 100);
    return json({
      judgedBy: res.judgedBy,
      configsChecked: res.checked,
      errors: res.errors,
      warnings: res.warnings,
      ...(res.checked === 0
        ? { note: t('no AgentJet/ASTuner config (a YAML file whose root has ajet:, astuner: or astune:) at {0}', shown(env, target)) }
        : {}),
      diagnostics: p.items,
      ...(p.total > p.items.length ? { total: p.total, offset: p.offset } : {}),
      ...(p.note ? { more: p.note } : {}),
      ...(res.special.length ? { skipped: res.special.map((f) => t('{0}: skipped, not a regular file', shown(env, f))) } : {}),
      ...(res.unreadable.length ? { unreadable: res.unreadable.map((u) => ({ file: shown(env, u.file), error: u.error })) } : {}),
    });
  },
};

// ---------------------------------------------------------------- explain a key

const ROOT_KEYS = ['ajet', 'astuner', 'astune'];

interface Judge {
  schema: ConfigSchema;
  label: string;
  dialect: 'agentjet' | 'astuner';
}

/**
 * Who judges a key: with a config, the facts that judge that file (its folder's AgentJet, else the
 * bundled release that fits it); without, the folder's AgentJet, else every bundled release, newest first.
 */
async function judges(env: AgentToolEnv, configPath: string | undefined): Promise<Judge[]> {
  const root = env.roots[0]!;
  const service = new AgentJetFactsService({ cacheDir: env.factsCacheDir ?? defaultFactsCacheDir(), fallbackPython: '' });
  const python = env.mayRunPython ? await env.python?.() : undefined;
  service.setFolder(root, python);
  const own = await service.ready(root);
  if (configPath) {
    const st = await stat(configPath);
    if (!st.isFile()) throw new ToolError(t('{0} is not a file', shown(env, configPath)));
    const { readFile } = await import('node:fs/promises');
    const text = st.size <= 2 * 1024 * 1024 ? await readFile(configPath, 'utf8') : '';
    const p = parseConfig(text);
    const facts = service.factsFor(root, p);
    return [{ schema: facts.schema, label: facts.label, dialect: p.dialect }];
  }
  if (own) return [{ schema: own.schema, label: own.label, dialect: 'agentjet' }];
  return bundledReleases().map((f) => ({ schema: f.schema, label: f.label, dialect: 'agentjet' as const }));
}

const explainKeyTool: AgentTool = {
  name: 'agentjet_explain_key',
  title: 'Explain an AgentJet config key',
  description:
    "Explains one config key (e.g. `ajet.rollout.max_env_len` or `rollout.max_env_len`): description, type, default, allowed values (per framework version when they differ), the defaults file and code that read it, the verl keys it is converted to, and which AgentJet/ASTuner versions read it. With `path`, the config's own AgentJet and dialect judge.",
  inputSchema: {
    type: 'object',
    properties: {
      key: { type: 'string', minLength: 1, maxLength: 300, description: 'Dotted key path, with or without the ajet./astuner. root.' },
      path: pathArg('Optional: the config file the key is in.'),
    },
    required: ['key'],
    additionalProperties: false,
  },
  runsWorkspaceCode: false,
  async run(args, env) {
    const configPath = str(args, 'path') !== undefined ? await insideRoots(env, str(args, 'path')) : undefined;
    const raw = (str(args, 'key') ?? '').trim();
    const parts = raw.split('.').filter((s) => s !== '');
    if (parts.length && ROOT_KEYS.includes(parts[0]!)) parts.shift();
    if (!parts.length) throw new ToolError(t('name a key under the root, e.g. rollout.max_env_len'));
    const all = await judges(env, configPath);
    const key = parts.join('.');
    const rootKeyOf = (j: Judge) => (j.dialect === 'astuner' && j.schema.properties?.astuner ? 'astuner' : 'ajet');
    const judge = all.find((j) => schemaForPath([rootKeyOf(j), ...parts], j.schema) !== undefined);
    if (!judge) {
      const first = all[0]!;
      const parent = schemaForPath([rootKeyOf(first), ...parts.slice(0, -1)], first.schema);
      const siblings = Object.keys(resolveRef(parent ?? {}, first.schema).properties ?? {}).slice(0, 60);
      throw new ToolError(
        t(
          '{0} judges no key {1}. Keys at that level: {2}',
          all.map((j) => j.label).join('; '),
          key,
          siblings.length ? siblings.join(', ') : '-',
        ),
      );
    }
    const { schema, label, dialect } = judge;
    const rootKey = rootKeyOf(judge);
    const node = schemaForPath([rootKey, ...parts], schema)!;
    const r = resolveRef(node, schema);
    const versions = FRAMEWORK_VERSIONS.filter((v) => (schema['x-versionKeys']?.[v] ?? []).includes(key));
    const verl = schema['x-release']?.verlConversions?.[key];
    const compared = VALUE_SOURCES.filter((s) => s.key === key).map(
      (s) => `${s.file} (${'name' in s ? s.name : 'registry' in s ? s.registry : s.decorator})`,
    );
    return json({
      key: `${rootKey}.${key}`,
      judgedBy: label,
      type: typesOf(r),
      ...(r.default !== undefined ? { default: r.default } : {}),
      ...(r.enum ? { allowed: r.enum } : {}),
      ...(r['x-enumByVersion'] ? { allowedByVersion: r['x-enumByVersion'] } : {}),
      ...(r['x-source'] ? { defaultsFile: r['x-source'] } : {}),
      ...(compared.length ? { valueCheckedIn: compared } : {}),
      ...(verl?.length ? { convertedToVerlKeys: verl } : {}),
      readByVersions: versions,
      ...(r.deprecated ? { deprecated: r['x-deprecatedMessage'] ?? true } : {}),
      ...(r['x-renamedTo'] ? { renamedTo: r['x-renamedTo'] } : {}),
      ...(r['x-movedTo'] ? { movedTo: r['x-movedTo'] } : {}),
      ...(r['x-unread'] ? { unread: r['x-unread'] } : {}),
      ...(r.properties ? { childKeys: Object.keys(r.properties).slice(0, 80) } : {}),
      description: describeKey([rootKey, ...parts], node, dialect, schema),
    });
  },
};

// ---------------------------------------------------------------- runs

const runsTool: AgentTool = {
  name: 'agentjet_runs',
  title: 'List AgentJet runs',
  description:
    'Lists the AgentJet/ASTuner experiments under a project or experiment root (saved_experiments, launcher_record): status (running, finished, failed, stopped, interrupted, ended, empty) with the evidence that decided it, latest training step and mean reward, checkpoints, sessions, hosts and exception counts. Newest first.',
  inputSchema: {
    type: 'object',
    properties: {
      root: pathArg('Optional: a project folder or an experiment root (default: the workspace).'),
      status: { type: 'string', maxLength: 20, description: 'Optional: only runs with this status.' },
      ...PAGE,
    },
    additionalProperties: false,
  },
  runsWorkspaceCode: false,
  async run(args, env) {
    let folders: string[];
    if (str(args, 'root') !== undefined) folders = [await insideRoots(env, str(args, 'root'))];
    else folders = env.runRoots ? await env.runRoots() : env.roots;
    const { rows, rootsFound, errors } = await collectRuns(folders);
    const status = str(args, 'status');
    const keep = rows.filter((r) => !status || r.status === status);
    const p = page(keep, args, 30);
    return json({
      roots: rootsFound.map((r) => shown(env, r)),
      ...(rootsFound.length
        ? {}
        : { note: t('no saved_experiments or launcher_record folder under {0}', folders.map((f) => shown(env, f)).join(', ')) }),
      total: p.total,
      runs: p.items.map((r) => ({
        experiment: r.experiment,
        path: shown(env, r.path),
        status: r.status,
        ...(r.reason ? { reason: r.reason } : {}),
        evidence: r.evidence.map((e) => (e.file ? `${e.text} (${shown(env, e.file)})` : e.text)),
        started: r.started,
        ...(r.latestStep !== undefined ? { latestStep: r.latestStep } : {}),
        ...(r.totalSteps !== undefined ? { totalSteps: r.totalSteps } : {}),
        ...(r.latestReward !== undefined ? { latestMeanReward: r.latestReward } : {}),
        checkpoints: r.checkpoints.length ? { count: r.checkpoints.length, lastStep: r.checkpoints.at(-1) } : { count: 0 },
        sessions: r.sessions.length,
        hosts: r.hosts,
        exceptions: r.exceptions,
      })),
      ...(p.note ? { more: p.note } : {}),
      ...(errors.length ? { errors } : {}),
    });
  },
};

// ---------------------------------------------------------------- one run

/** The snapshot's keys flattened to `a.b.c: value` (scalars only, lists as their length), in file order. */
function flattenSnapshot(text: string, max: number): { keys: Record<string, string>; total: number } {
  const doc = parseDocument(text, { uniqueKeys: false });
  const keys: Record<string, string> = {};
  let total = 0;
  const walk = (n: Node | null | undefined, path: string): void => {
    if (isMap(n)) {
      for (const it of n.items) {
        const k = isScalar(it.key) ? String(it.key.value) : String(it.key);
        walk(it.value as Node, path ? `${path}.${k}` : k);
      }
    } else if (isSeq(n)) {
      total++;
      if (total <= max)
        keys[path] = n.items.every((x) => isScalar(x))
          ? JSON.stringify(n.items.map((x) => (isScalar(x) ? x.value : null))).slice(0, 300)
          : `[${n.items.length} items]`;
    } else if (isScalar(n)) {
      total++;
      if (total <= max) keys[path] = String(n.value).slice(0, 300);
    }
  };
  walk(doc.contents as Node, '');
  return { keys, total };
}

/** The per-step reward curve in a few numbers an agent can reason with. */
export function summariseCurve(points: readonly StepPoint[], maxPoints = 40): Record<string, unknown> {
  const withReward = points.filter((p) => p.meanReward !== undefined);
  if (!withReward.length) return { steps: points.length };
  const round = (v: number | undefined) => (v === undefined ? undefined : Math.round(v * 10000) / 10000);
  let best = withReward[0]!,
    worst = withReward[0]!;
  for (const p of withReward) {
    if (p.meanReward! > best.meanReward!) best = p;
    if (p.meanReward! < worst.meanReward!) worst = p;
  }
  // The steepest fall from one step to the next: where a collapse starts.
  let drop: { from: number; to: number; by: number } | undefined;
  for (let i = 1; i < withReward.length; i++) {
    const d = withReward[i - 1]!.meanReward! - withReward[i]!.meanReward!;
    if (d > 0 && (!drop || d > drop.by)) drop = { from: withReward[i - 1]!.step, to: withReward[i]!.step, by: round(d)! };
  }
  const every = Math.max(1, Math.ceil(points.length / maxPoints));
  const sampled = points.filter((_, i) => i % every === 0 || i === points.length - 1);
  return {
    steps: points.length,
    first: { step: withReward[0]!.step, meanReward: round(withReward[0]!.meanReward) },
    last: { step: withReward.at(-1)!.step, meanReward: round(withReward.at(-1)!.meanReward) },
    best: { step: best.step, meanReward: round(best.meanReward) },
    worst: { step: worst.step, meanReward: round(worst.meanReward) },
    ...(drop ? { steepestFall: drop } : {}),
    ...(every > 1 ? { sampledEvery: every } : {}),
    points: sampled.map((p) => ({
      step: p.step,
      records: p.records,
      meanReward: round(p.meanReward),
      ...(p.successRate !== undefined ? { successRate: round(p.successRate) } : {}),
      ...(p.meanResponseLength !== undefined ? { meanResponseLength: Math.round(p.meanResponseLength) } : {}),
    })),
  };
}

const runSummaryTool: AgentTool = {
  name: 'agentjet_run_summary',
  title: 'Summarise one AgentJet run',
  description:
    "One experiment folder in depth: status and its evidence, the config snapshot's settings (yaml_backup.yaml), sessions and hosts, the per-step reward curve summarised (first, last, best, worst, steepest fall, sampled points with success rate and response length), evaluation results, exceptions with their tracebacks, and checkpoints. Use it to find why a run failed or why its reward fell.",
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg('The experiment folder (saved_experiments/<experiment>), as agentjet_runs lists it.'),
      exceptions: { type: 'integer', minimum: 0, maximum: 50, description: 'How many of the latest exceptions to show (default 5).' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  runsWorkspaceCode: false,
  async run(args, env, signal) {
    const dir = await insideRoots(env, str(args, 'path'));
    if ((await fileOrFolder(dir, str(args, 'path')!)) !== 'dir') throw new ToolError(t('{0} is not an experiment folder', shown(env, dir)));
    const fs = syncNodeFs();
    const entry = await readExperimentEntry(fs, dirname(dir), basename(dir));
    if (!entry) throw new ToolError(t('{0} is not an experiment folder', shown(env, dir)));
    const info = await inspectExperiment(fs, entry);
    const curves = new RolloutCurves(dir, {
      cache: new FactsCache(env.logCacheDir ?? defaultLogCacheDir()),
      ...(env.workers !== undefined ? { workers: env.workers } : {}),
    });
    await curves.refresh(signal);
    const collector = new RunCollector(dir, undefined, { followRollout: false });
    await collector.poll(fs);
    const series = collector.series();
    let snapshot: Record<string, unknown> | undefined;
    const snapPath = entry.snapshot;
    if (snapPath && (await resolveInside(snapPath, env.roots)).ok) {
      const { readFile } = await import('node:fs/promises');
      const st = await stat(snapPath).catch(() => undefined);
      if (st && st.isFile() && st.size <= 4 * 1024 * 1024) {
        const flat = flattenSnapshot(await readFile(snapPath, 'utf8'), 150);
        snapshot = {
          file: shown(env, snapPath),
          settings: flat.keys,
          ...(flat.total > 150 ? { more: t('{0} of {1} settings shown; read the file for the rest', 150, flat.total) } : {}),
        };
      } else snapshot = { file: shown(env, snapPath), note: t('too large to summarise; read it directly') };
    }
    // The traceback behind a "traceback" evidence (the launcher's output VS Code kept, a regular.log), from its end.
    const tracebacks: { file: string; text: string }[] = [];
    for (const e of info.evidence)
      if (e.kind === 'traceback' && e.file && (await resolveInside(e.file, env.roots)).ok) {
        const st = await stat(e.file).catch(() => undefined);
        if (!st?.isFile()) continue;
        const from = Math.max(0, st.size - 64 * 1024);
        const tail = (await fs.readRange(e.file, from, st.size - from)).toString('utf8');
        const lines = lastTraceback(tail);
        if (lines) tracebacks.push({ file: shown(env, e.file), text: visible(lines.join('\n').trim()).slice(-4000) });
      }
    const nExc = int(args, 'exceptions', 5);
    const real = series.exceptions.filter((e) => !e.harmless);
    const latest = real.slice(-nExc);
    return json({
      experiment: entry.name,
      path: shown(env, dir),
      status: info.status,
      ...(info.reason ? { reason: info.reason } : {}),
      evidence: info.evidence.map((e) => (e.file ? `${e.text} (${shown(env, e.file)})` : e.text)),
      ...(info.totalSteps !== undefined ? { totalSteps: info.totalSteps } : {}),
      configSnapshot: snapshot ?? { note: t('no config snapshot (yaml_backup.yaml) in this run') },
      sessions: info.sessions.map((s) => ({
        name: s.name,
        status: s.status,
        hosts: s.hosts.map((h) => ({ name: h.name, status: h.status })),
      })),
      rewardCurve: summariseCurve(curves.points),
      ...(series.evals.length
        ? {
            evaluations: series.evals.slice(-10),
            ...(series.evals.length > 10 ? { evaluationsShown: t('the last 10 of {0}', series.evals.length) } : {}),
          }
        : {}),
      ...(tracebacks.length ? { tracebacks } : {}),
      exceptions: {
        count: real.length,
        harmlessNotes: series.exceptions.length - real.length,
        latest: latest.map((e) => ({ time: e.time, where: e.detail, file: shown(env, e.file), text: visible(e.title).slice(0, 4000) })),
        ...(real.length > latest.length
          ? { more: t('showing the latest {0} of {1}; call again with exceptions=N for more', latest.length, real.length) }
          : {}),
      },
      checkpoints: info.checkpoints.map((c) => ({ step: c.step, path: shown(env, c.path) })).slice(-20),
      ...(info.checkpoints.length > 20 ? { checkpointsShown: t('the last 20 of {0}', info.checkpoints.length) } : {}),
    });
  },
};

// ---------------------------------------------------------------- token logs

async function logMains(env: AgentToolEnv, requested: string | undefined): Promise<{ mains: string[]; target: string }> {
  const target = await insideRoots(env, requested);
  const kind = await fileOrFolder(target, requested ?? target);
  if (kind === 'file') return { mains: [target], target };
  const mains = await findRunLogs(target, 'rollout');
  if (!mains.length) throw new ToolError(t('no rollout.json.log under {0}: name a .json.log file or a run folder', shown(env, target)));
  return { mains, target };
}

const logStatsTool: AgentTool = {
  name: 'agentjet_log_stats',
  title: 'Token log statistics',
  description:
    "Statistics of a beast-logger token log (rollout.json.log, with its rotated siblings) or of every host's rollout log in a run folder: records, timelines, tokens and trained (loss-mask) tokens, records and mean reward per training step, corrupt records and where they are.",
  inputSchema: {
    type: 'object',
    properties: { path: pathArg('A .json.log file or a run folder.'), ...PAGE },
    required: ['path'],
    additionalProperties: false,
  },
  runsWorkspaceCode: false,
  async run(args, env, signal) {
    const { mains } = await logMains(env, str(args, 'path'));
    const cache = new FactsCache(env.logCacheDir ?? defaultLogCacheDir());
    const opened = await openLogs(mains, { cache, ...(signal ? { signal } : {}) });
    const facts = await collectFacts(opened, {
      cache,
      ...(signal ? { signal } : {}),
      ...(env.workers !== undefined ? { workers: env.workers } : {}),
    });
    const st = statsFromFacts(opened, facts);
    const steps = page(st.steps, args, 60);
    return json({
      ...st,
      files: st.files.map((f) => shown(env, f)),
      problems: st.problems.slice(0, 20).map((p) => ({ ...p, file: shown(env, p.file) })),
      corrupt: st.corrupt.slice(0, 20),
      steps: steps.items,
      ...(steps.note ? { more: steps.note } : {}),
    });
  },
};

/** Title, step, task and reward of some records of the opened logs (global record numbers). */
async function summaries(
  opened: Awaited<ReturnType<typeof openLogs>>,
  indices: number[],
): Promise<Map<number, ReturnType<typeof summarizePrefix>>> {
  const out = new Map<number, ReturnType<typeof summarizePrefix>>();
  let base = 0;
  for (const ix of opened.indexes) {
    for (const i of indices)
      if (i >= base && i < base + ix.count)
        await ix.readPrefixes(i - base, i - base + 1, 1536, (_j, bytes) => {
          out.set(i, summarizePrefix(bytes));
        });
    base += ix.count;
  }
  return out;
}

const logSearchTool: AgentTool = {
  name: 'agentjet_log_search',
  title: 'Search a token log',
  description:
    'Finds the records of a token log (or a run folder) whose decoded token text, title or task id contains the query (case-insensitive): record number, step, task id, reward, and where the first match is (timeline, token). Open one with agentjet_log_record.',
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg('A .json.log file or a run folder.'),
      query: { type: 'string', minLength: 1, maxLength: 1000, description: 'Text to find.' },
      ...PAGE,
    },
    required: ['path', 'query'],
    additionalProperties: false,
  },
  runsWorkspaceCode: false,
  async run(args, env, signal) {
    const { mains } = await logMains(env, str(args, 'path'));
    const opened = await openLogs(mains, signal ? { signal } : {});
    const { hits, counts } = await searchTasks(allTasks(opened), str(args, 'query')!, {
      ...(signal ? { signal } : {}),
      ...(env.workers !== undefined ? { workers: env.workers } : {}),
    });
    hits.sort((a, b) => a.index - b.index);
    const p = page(hits, args, 20);
    const info = await summaries(
      opened,
      p.items.map((h) => h.index),
    );
    return json({
      recordsSearched: counts.total,
      recordsMatching: counts.hits,
      matchesInTokenText: counts.matches,
      hits: p.items.map((h: SearchHitData) => {
        const s = info.get(h.index);
        return {
          index: h.index,
          ...(s?.step !== undefined ? { step: s.step } : {}),
          ...(s?.taskId !== undefined ? { taskId: s.taskId } : {}),
          ...(s?.reward !== undefined ? { reward: s.reward } : {}),
          ...(s?.title !== undefined ? { title: visible(s.title).slice(0, 200) } : {}),
          where: h.where,
          ...(h.timeline !== undefined ? { timeline: h.timeline, token: h.token } : {}),
          matches: h.matches,
        };
      }),
      ...(p.note ? { more: p.note } : {}),
      ...(mains.length > 1
        ? { note: t("record numbers run across the hosts' logs in this order: {0}", mains.map((m) => shown(env, m)).join(', ')) }
        : {}),
    });
  },
};

/** One rollout as text: its header, table, and each timeline's tokens in runs of one loss-mask value. */
export function renderRecord(index: number, file: string, r: RecordData): string {
  const lines: string[] = [];
  lines.push(`# ${t('Record {0} of {1}', index, file)}`);
  lines.push(`time: ${r.time}  kind: ${r.kind}`);
  if (r.title) lines.push(`title: ${visible(r.title)}`);
  const facts = [
    r.step !== undefined ? `step: ${r.step}` : '',
    r.taskId !== undefined ? `task: ${visible(r.taskId)}` : '',
    r.reward !== undefined ? `reward: ${r.reward}` : '',
    r.outcome !== undefined ? `outcome: ${visible(r.outcome)}` : '',
  ].filter(Boolean);
  if (facts.length) lines.push(facts.join('  '));
  for (const w of r.warnings) lines.push(`! ${w}`);
  if (r.table.length) {
    lines.push('', '## table');
    for (const [k, v] of r.table) lines.push(`${visible(k)}: ${visible(v)}`);
  }
  if (r.content && !r.timelines.length) lines.push('', '## content', visible(r.content));
  r.timelines.forEach((tl, n) => {
    lines.push('', `## timeline ${n + 1}/${r.timelines.length}: ${visible(tl.key)}`);
    const nums = [
      `outcome: ${visible(tl.outcome)}`,
      tl.rawReward !== undefined ? `raw_reward: ${tl.rawReward}` : '',
      tl.stepReward !== undefined ? `step_reward: ${tl.stepReward}` : '',
      tl.advantage !== undefined ? `advantage: ${tl.advantage}` : '',
      tl.lenPrompt !== undefined ? `len_prompt: ${tl.lenPrompt}` : '',
      tl.lenResponse !== undefined ? `len_response: ${tl.lenResponse}` : '',
    ].filter(Boolean);
    lines.push(nums.join('  '));
    const trained = tl.mask.filter((m) => m === 1).length;
    lines.push(t('{0} tokens, {1} trained (loss mask 1)', tl.text.length, trained));
    for (const w of tl.warnings) lines.push(`! ${w}`);
    // Runs of tokens with one mask value: the prompt and tool output (0) and what the model is trained on (1).
    let i = 0;
    while (i < tl.text.length) {
      const m = tl.mask[i] ?? -1;
      let j = i;
      let text = '';
      while (j < tl.text.length && (tl.mask[j] ?? -1) === m) text += tl.text[j++] ?? '';
      const label = m === 1 ? 'trained, loss mask 1' : m === 0 ? 'context, loss mask 0' : 'loss mask unknown';
      lines.push(`--- ${label} (${j - i} tokens) ---`, visible(text));
      i = j;
    }
  });
  return lines.join('\n');
}

const logRecordTool: AgentTool = {
  name: 'agentjet_log_record',
  title: 'Read one rollout record',
  description:
    "One record of a token log as readable text: its title, step, task, reward and outcome, and every timeline's messages as the model saw them, split where the loss mask changes (trained tokens vs context), with raw reward, step reward and advantage. Pick it by record number (index, 0-based as agentjet_log_search gives it) or by task id (the first record of that task). Long records come in pages: call again with offset.",
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg('A .json.log file (a run folder with one host works too).'),
      index: { type: 'integer', minimum: 0, maximum: 1e9, description: 'Record number (0-based).' },
      taskId: { type: 'string', minLength: 1, maxLength: 500, description: 'Task id: the first record of this task.' },
      offset: { type: 'integer', minimum: 0, maximum: 1e10, description: 'Character offset into the record text (for the next page).' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  runsWorkspaceCode: false,
  async run(args, env, signal) {
    const { mains } = await logMains(env, str(args, 'path'));
    if (mains.length > 1)
      throw new ToolError(
        t('the run folder has {0} logs; name one of them: {1}', mains.length, mains.map((m) => shown(env, m)).join(', ')),
      );
    const session = new LogSession(mains[0]!);
    await session.update(signal ? { signal } : {});
    const taskId = str(args, 'taskId');
    let index = typeof args.index === 'number' ? args.index : undefined;
    if (index === undefined && taskId === undefined) throw new ToolError(t('give index or taskId'));
    if (index === undefined) {
      await session.summarize(signal ? { signal } : {});
      const found: number[] = [];
      for (let i = 0; i < session.count && found.length < 50; i++) if (session.row(i).taskId === taskId) found.push(i);
      if (!found.length)
        throw new ToolError(t('no record of task {0} in {1} ({2} records)', taskId!, shown(env, mains[0]!), session.count));
      index = found[0]!;
    }
    if (index >= session.count)
      throw new ToolError(
        t('record {0} does not exist: {1} has {2} records (0 to {3})', index, shown(env, mains[0]!), session.count, session.count - 1),
      );
    const r = await session.record(index);
    if (!r) throw new ToolError(t('record {0} could not be read', index));
    if (!r.ok) throw new ToolError(t('record {0} could not be read: {1}', index, r.error));
    const text = renderRecord(index, shown(env, mains[0]!), r.record);
    const offset = int(args, 'offset', 0);
    const budget = MAX_ANSWER_CHARS - 400;
    const part = text.slice(offset, offset + budget);
    const end = offset + part.length;
    return end < text.length
      ? `${part}\n\n${t('[characters {0}-{1} of {2}; call again with offset={3} for the rest]', offset, end, text.length, end)}`
      : part || t('nothing after offset {0}: the record text has {1} characters', offset, text.length);
  },
};

// ---------------------------------------------------------------- swarm and doctor

const swarmStatusTool: AgentTool = {
  name: 'agentjet_swarm_status',
  title: 'AgentJet swarm server status',
  description:
    "Asks an AgentJet swarm server (ajet-swarm start) for its state: engine status (ENGINE.OFFLINE, BOOTING, ROLLING, ROLLING_POST, WEIGHT_SYNCING, WEIGHT_EXPORTING), global step, experiment folder, model path and the current batch's rollout pool. Read-only (HTTP GET).",
  inputSchema: {
    type: 'object',
    properties: { url: { type: 'string', maxLength: 2000, description: `The server (default ${DEFAULT_SWARM_URL}).` } },
    additionalProperties: false,
  },
  runsWorkspaceCode: false,
  network: true,
  async run(args, _env, signal) {
    let url: string;
    try {
      url = normalizeSwarmUrl(str(args, 'url') || DEFAULT_SWARM_URL);
    } catch (e) {
      throw new ToolError(e instanceof Error ? e.message : String(e));
    }
    try {
      const s = await fetchStatus(new SwarmApi(url, { timeoutMs: 2500 }), signal);
      return `${statusText(s)}\n${json(s)}`;
    } catch (e) {
      throw new ToolError((e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').trim());
    }
  },
};

const doctorTool: AgentTool = {
  name: 'agentjet_doctor',
  title: 'Check the AgentJet environment',
  description:
    "Checks the Python environment AgentJet runs in (runs the workspace's interpreter): Python, ajet/astuner and its launcher, debugpy, vLLM, verl, trinity, Ray, NVIDIA GPUs and the vLLM port; each problem with a fix, and which AgentJet judges configs here.",
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  runsWorkspaceCode: true,
  async run(_args, env, signal) {
    const root = env.roots[0]!;
    const python = (await env.python?.()) ?? resolveInterpreter({ folder: root }, existsSync).path;
    const [{ gather }, { evaluate, summary }, { toText }, { DOCTOR_PROBE }] = await Promise.all([
      import('../doctor/run'),
      import('../doctor/checks'),
      import('../doctor/report'),
      import('../doctor/script'),
    ]);
    const input = await gather({ python, script: DOCTOR_PROBE, cwd: root, port: 18000, trusted: true, ...(signal ? { signal } : {}) });
    const checks = evaluate(input);
    const service = new AgentJetFactsService({ cacheDir: env.factsCacheDir ?? defaultFactsCacheDir(), fallbackPython: '' });
    service.setFolder(root, python);
    const judge = (await service.ready(root))?.label ?? baseFacts().label;
    return `${toText(checks, python)}${t('Configs are judged by {0}.', judge)}\n${json({ python, ...summary(checks) })}`;
  },
};

/** Every tool, in the order agents see them. */
export const AGENT_TOOLS: readonly AgentTool[] = [
  lintTool,
  explainKeyTool,
  runsTool,
  runSummaryTool,
  logStatsTool,
  logSearchTool,
  logRecordTool,
  swarmStatusTool,
  doctorTool,
];

function findTool(name: string): AgentTool | undefined {
  return AGENT_TOOLS.find((x) => x.name === name);
}

/**
 * Calls a tool by name: arguments checked against its schema, the answer bounded, every failure
 * (a bad argument, a refused path, an unreadable file, a bug) an error answer with a message.
 */
export async function callTool(name: string, rawArgs: unknown, env: AgentToolEnv, signal?: AbortSignal): Promise<AgentToolAnswer> {
  const tool = findTool(name);
  if (!tool) return { isError: true, text: t('no tool named {0}; the tools are {1}', name, AGENT_TOOLS.map((x) => x.name).join(', ')) };
  if (tool.runsWorkspaceCode && !env.mayRunPython)
    return { isError: true, text: t("{0} runs the workspace's Python interpreter, which waits until the workspace is trusted", name) };
  const checked = checkArgs(tool.inputSchema, rawArgs);
  if (!checked.ok) return { isError: true, text: t('{0}: {1}', name, checked.problem) };
  try {
    const text = await tool.run(checked.args, env, signal);
    return { isError: false, text: bound(text) };
  } catch (err) {
    if (signal?.aborted) return { isError: true, text: t('{0} was cancelled', name) };
    const msg = err instanceof ToolError ? err.message : `${t('{0} failed', name)}: ${err instanceof Error ? err.message : String(err)}`;
    return { isError: true, text: bound(msg, 4000) };
  }
}
