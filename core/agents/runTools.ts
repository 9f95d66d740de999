// The agent tools about runs: the runs list (runs/list) and one run's summary (its snapshot,
// curves and last traceback).
import { latestStackReport } from '../stacks/saved';
import { frameLocation, groupTitle } from '../stacks/format';
import { basename, dirname } from 'node:path';
import { parseDocument, isMap, isScalar, isSeq, type Node } from 'yaml';
import { t } from '../l10n';
import { readInside } from '../fs/inside';
import { collectRuns } from '../runs/list';
import { syncNodeFs } from '../fs/seam';
import { inspectExperiment, readExperimentEntry } from '../runs/discover';
import { RolloutCurves } from '../runs/curves';
import { RunCollector } from '../runs/collector';
import type { StepPoint } from '../runs/types';
import { FactsCache, defaultCacheDir as defaultLogCacheDir } from '../logs/cache';
import { lastTraceback } from '../agentjet/launchRecord';
import { diagnoseExperiment } from '../diagnose/experiment';
import { experimentHealth, stallMinutesOf } from '../runs/health';
import { ToolError, str, int, PAGE, pathArg, json, shown, insideRoots, fileOrFolder, fittedPage, visible, type AgentTool } from './toolkit';

export const runsTool: AgentTool = {
  name: 'agentjet_runs',
  title: 'List AgentJet runs',
  description:
    'Lists the AgentJet/ASTuner experiments under a project or experiment root (saved_experiments, launcher_record): status (running, finished, failed, stopped, interrupted, ended, empty) with the evidence that decided it, latest training step and mean reward, checkpoints, sessions, hosts and exception counts; a running run has health (state "stalled" when it has written nothing for several of its step times and the stall setting, else "progressing", "starting", "validating", "saving-checkpoint" or "loading-model"). Newest first.',
  inputSchema: {
    type: 'object',
    properties: {
      root: pathArg('Optional: a project folder or an experiment root (default: the workspace).'),
      status: { type: 'string', maxLength: 20, description: 'Optional: only runs with this status.' },
      ...PAGE,
    },
    additionalProperties: false,
  },
  runsWorkspaceCode: 'never',
  network: false,
  async run(args, env) {
    let folders: string[];
    // What the listing may read: the roots, and the Runs view's roots the user configured.
    let within = env.roots;
    if (str(args, 'root') !== undefined) folders = [await insideRoots(env, str(args, 'root'))];
    else {
      folders = env.runRoots ? await env.runRoots() : env.roots;
      within = [...env.roots, ...folders];
    }
    const { rows, rootsFound, errors } = await collectRuns(folders, {
      within,
      ...(env.stallMinutes !== undefined ? { stallMinutes: env.stallMinutes } : {}),
    });
    const status = str(args, 'status');
    const keep = rows.filter((r) => !status || r.status === status);
    return fittedPage(keep, args, 30, (p) =>
      json({
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
          ...(r.health ? { health: r.health } : {}),
        })),
        ...(p.note ? { more: p.note } : {}),
        ...(errors.length ? { errors } : {}),
      }),
    );
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

export const runSummaryTool: AgentTool = {
  name: 'agentjet_run_summary',
  title: 'Summarise one AgentJet run',
  description:
    "One experiment folder in depth: status and its evidence, the config snapshot's settings (yaml_backup.yaml), sessions and hosts, the per-step reward curve summarised (first, last, best, worst, steepest fall, sampled points with success rate and response length), evaluation results, exceptions with their tracebacks, the causes of a failed, interrupted or stalled run (code, message, fix, evidence line), the last stacks taken of it (Show Stacks, `agentjet stacks`: where its threads waited, grouped), and checkpoints. Use it to find why a run failed or why its reward fell.",
  inputSchema: {
    type: 'object',
    properties: {
      path: pathArg('The experiment folder (saved_experiments/<experiment>), as agentjet_runs lists it.'),
      exceptions: { type: 'integer', minimum: 0, maximum: 50, description: 'How many of the latest exceptions to show (default 5).' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  runsWorkspaceCode: 'never',
  network: false,
  async run(args, env, signal) {
    const dir = await insideRoots(env, str(args, 'path'));
    if ((await fileOrFolder(dir, str(args, 'path')!)) !== 'dir') throw new ToolError(t('{0} is not an experiment folder', shown(env, dir)));
    const fs = syncNodeFs({ within: env.roots });
    const entry = await readExperimentEntry(fs, dirname(dir), basename(dir));
    if (!entry) throw new ToolError(t('{0} is not an experiment folder', shown(env, dir)));
    const info = await inspectExperiment(fs, entry);
    const curves = new RolloutCurves(dir, {
      within: env.roots,
      cache: new FactsCache(env.logCacheDir ?? defaultLogCacheDir()),
      ...(env.workers !== undefined ? { workers: env.workers } : {}),
    });
    await curves.refresh(signal);
    const collector = new RunCollector(dir, undefined, { followRollout: false });
    await collector.poll(fs);
    const series = collector.series();
    let snapshot: Record<string, unknown> | undefined;
    const snapPath = entry.snapshot;
    // Opened once, checked where it is opened (a link out of the roots is not read).
    const snap = snapPath ? await readInside(snapPath, env.roots, 4 * 1024 * 1024 + 1).catch(() => undefined) : undefined;
    if (snapPath && snap) {
      if (snap.size <= 4 * 1024 * 1024) {
        const flat = flattenSnapshot(snap.bytes.toString('utf8'), 150);
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
      if (e.kind === 'traceback' && e.file) {
        const st = await fs.stat(e.file).catch(() => undefined);
        if (!st?.isFile()) continue;
        const from = Math.max(0, st.size - 64 * 1024);
        const tail = (await fs.readRange(e.file, from, st.size - from).catch(() => Buffer.alloc(0))).toString('utf8');
        const lines = lastTraceback(tail);
        if (lines) tracebacks.push({ file: shown(env, e.file), text: visible(lines.join('\n').trim()).slice(-4000) });
      }
    // Why it failed (or stalls): the causes in its own material, inside the roots.
    const stalled = info.status === 'running' && experimentHealth(info, Date.now(), stallMinutesOf(undefined))?.state === 'stalled';
    const causes =
      info.status === 'failed' || info.status === 'interrupted' || stalled
        ? (await diagnoseExperiment(fs, dir, { ray: false }).catch(() => undefined))?.causes
        : undefined;
    // Where it waited, when someone took its stacks (kept beside the run: core/stacks/saved.ts).
    const kept = await latestStackReport(fs, dir).catch(() => undefined);
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
      ...(causes?.length
        ? {
            causes: causes.map((c) => ({
              code: c.code,
              message: c.message,
              fix: c.fix,
              ...(c.file ? { file: shown(env, c.file) } : {}),
              line: c.line,
              evidence: c.evidence.map((e) => visible(e)),
              ...(c.action ? { action: c.action } : {}),
            })),
          }
        : {}),
      ...(kept
        ? {
            lastStacks: {
              takenAt: new Date(kept.report.takenAt).toISOString(),
              file: shown(env, kept.file),
              groups: kept.report.groups.slice(0, 8).map((g) => ({
                title: groupTitle(g),
                frames: g.frames.slice(0, 8).map((f) => `${f.func}  ${frameLocation(f)}`),
              })),
              ...(kept.report.groups.length > 8 ? { groupsShown: t('the first 8 of {0}', kept.report.groups.length) } : {}),
            },
          }
        : {}),
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
