// Launch orchestration of an AgentJet config (F5, a task, a CodeLens): the plan (config, dialect,
// interpreter), the one preflight probe (debugpy, the launcher the installed AgentJet has, the vLLM
// port) while debugpy's adapter starts, then the launcher under debugpy (our launch rewritten into
// debugpy's) or without it. Every step goes through the launch's owner, so a stop ends it.
import { Event, OutputEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { mergedEnv, resolveAttributes, type AgentJetLaunchAttributes, type ResolvedLaunch } from '../core/launch/attributes';
import { type LauncherTarget } from '../core/launch/plan';
import { shellCommand } from '../core/process/quote';
import { commandLine, describeTarget, planLaunch, preflightLaunch } from '../core/launch/lifecycle';
import { EVENT_LAUNCH_RECORD, LAUNCH_ERRORS, type LaunchRecordEventBody } from '../core/protocol/debug';
import { rayLaunchAdditions } from '../core/ray/tags';
import { ensureHookDir, hookSource, rayBreakpointsEnv } from '../core/ray/breakpoints';
import { t } from '../core/l10n';
import { debugpyLaunch, trace } from './debugpy';
import type { LaunchHost } from './host';
import { startWithoutDebugger } from './noDebug';

const ERR = LAUNCH_ERRORS;

/** The attributes of a launch as the client sends them (Ray's included). */
export type LaunchArgs = DebugProtocol.LaunchRequestArguments &
  AgentJetLaunchAttributes & { rayDebug?: boolean; debugTags?: string[]; rayBreakpoints?: boolean };

/** An AgentJet launch: plan, preflight (debugpy's adapter starting meanwhile), then the launcher with or without debugpy. */
export async function launchAgentJet(s: LaunchHost, request: DebugProtocol.Request): Promise<void> {
  const a = (request.arguments ?? {}) as LaunchArgs;
  if (typeof a.config !== 'string' || !a.config.trim()) {
    s.fail(request, ERR.args, t('The launch configuration has no "config" (the AgentJet YAML file to run).'));
    return;
  }
  const r = resolveAttributes(a);
  // Ray debugging (`rayDebug`, `debugTags`): RAY_DEBUG=1 and AgentJet's --debug tags.
  const ray = rayLaunchAdditions(a.rayDebug, a.debugTags, r.args, mergedEnv(r));
  Object.assign(r.envAdditions, ray.env);
  r.args.push(...ray.args);
  // Editor breakpoints in Ray workers: the start-up hook on the driver's path (core/ray/breakpoints.ts).
  if (a.rayBreakpoints === true) {
    try {
      const add = rayBreakpointsEnv(ensureHookDir(await hookSource()), mergedEnv(r));
      Object.assign(r.envAdditions, add);
      r.envRemovals = r.envRemovals.filter((k) => !(k in add));
    } catch (e) {
      s.sendEvent(new OutputEvent(`AgentJet: ${t('Editor breakpoints in Ray workers are off: {0}', String(e))}\n`, 'important'));
    }
  }
  s.launch = r;
  s.procs.launch = r;
  const owner = s.procs.owner;
  // 1. config, dialect, interpreter
  const planned = await owner.step('plan', () => planLaunch(r));
  trace('plan done');
  if (!planned.ok) {
    s.fail(request, planned.refusal.code, planned.refusal.message);
    return;
  }
  const plan = planned.plan;
  s.plan = plan;
  // From here on the run has a live record: the Runs view and `agentjet runs` say what it does.
  s.record.beginLive(owner, r, plan, r.noDebug ? 'run' : 'debug', {
    written: (folder) => s.sendEvent(new Event(EVENT_LAUNCH_RECORD, { folder } satisfies LaunchRecordEventBody)),
    error: (message) => s.sendEvent(new OutputEvent(`AgentJet: ${t('could not record the launch: {0}', message)}\n`, 'stderr')),
  });
  // 2. debugpy, the launcher the installed version has, the vLLM port (debug backbone): one probe.
  // debugpy's adapter (idle until it gets our launch) starts while the probe runs: that hides
  // most of the probe's cost. The launcher itself never starts before the preflight passed, and
  // a refused launch ends the idle adapter.
  const adapterReady = r.noDebug ? undefined : s.relay.spawn(r, plan.env);
  const pre = await owner.step('preflight', (signal) => preflightLaunch(plan, !r.noDebug, { signal }));
  trace('probe done');
  if (!pre.ok) {
    if (adapterReady) await s.procs.killDebugpy();
    s.fail(request, pre.refusal.code, pre.refusal.message);
    return;
  }
  for (const w of pre.warnings) s.sendEvent(new OutputEvent(`AgentJet: ${w}\n`, 'important'));
  const cmd = commandLine(plan, pre.target);
  s.record.command = [cmd.command, ...cmd.args];
  s.record.where = { ...(pre.layout ? { layout: pre.layout } : {}), args: r.args ?? [], env: plan.env };
  s.sendEvent(
    new OutputEvent(
      `AgentJet: ${shellCommand(s.record.command)}  (${describeTarget(pre.target)}; cwd ${r.cwd}${r.envFile ? `, env from ${r.envFile}` : ''})\n`,
      'console',
    ),
  );
  const launcherOwnArgs = cmd.args.slice(pre.target.kind === 'script' ? 1 : 2);
  if (r.noDebug || !adapterReady) startWithoutDebugger(s, request, r, cmd.command, cmd.args, plan.env);
  else {
    const init = await owner.step('debugpy', () => adapterReady);
    await startUnderDebugpy(s, request, r, pre.target, launcherOwnArgs, init, pre.probe.debugpy);
  }
}

/** Our launch to debugpy once its adapter answered `initialize` (`init`, or why it could not start). */
export async function startUnderDebugpy(
  s: LaunchHost,
  request: DebugProtocol.Request,
  r: ResolvedLaunch,
  target: LauncherTarget,
  args: string[],
  init: DebugProtocol.Response | string,
  debugpyVersion: string | null,
): Promise<void> {
  if (typeof init === 'string' || !init.success) {
    await s.procs.killDebugpy();
    s.fail(request, ERR.start, typeof init === 'string' ? init : t('debugpy refused to initialize: {0}', init.message ?? ''));
    return;
  }
  trace('debugpy initialized');
  if (init.body) s.sendEvent(new Event('capabilities', { capabilities: init.body as DebugProtocol.Capabilities }));
  const { launchArgs, warning } = debugpyLaunch(r, target, args, debugpyVersion);
  if (warning) s.sendEvent(new OutputEvent(`AgentJet: ${warning}\n`, 'important'));
  const shim = s.shim.write();
  if (shim) launchArgs.debugLauncherPath = shim;
  // The last moment a stop can keep the launcher from starting.
  s.procs.owner.check('launcher');
  s.record.startedAt = Date.now();
  s.procs.owner.running();
  s.relay.sendLaunch(request, launchArgs);
  s.startSweep();
}
