// Debugging training on Ray: the Paused workers view, auto-attach as child sessions of a launch,
// manual Attach, "Debug training with this tag" (CodeLens on bp("TAG") and a quick pick), and the
// Ray line on a run's row. Nothing starts before a launch with rayDebug/debugTags, the view being
// shown, or a command.
import * as vscode from 'vscode';
import type { Services } from '../services';
import { PausedWorkersView } from './pausedView';
import { BpCodeLensProvider, RayConfigCodeLensProvider, workspaceTags } from './bpCodeLens';
import { onDidChangeRayRunInfo, setRayRunInfo } from './runsRow';
import { DebugTagCompletionProvider } from './tagCompletion';
import { SessionLogWatcher } from '../../core/ray/watcher';
import { listPausedWorkers } from '../../core/ray/stateApi';
import {
  dashboardFromOutput,
  defaultDashboardFor,
  latestSession,
  parseRayAddress,
  rayTempRoot,
  sessionFromOutput,
} from '../../core/ray/session';
import { parseDriverLine } from '../../core/ray/workerLog';
import { debugTagsArg } from '../../core/ray/tags';
import { validPathMappings, type PathMapping, type PausedWorker } from '../../core/ray/types';
import { RayRun, wantsRay } from './rayRun';
import { EVENT_EXPERIMENT, type ExperimentEventBody } from '../../core/protocol/debug';
import { EVENT_RAY_PAUSE, REQUEST_CONSOLE, type ConsoleRequestArguments, type RayPauseEventBody } from '../../core/protocol/ray';
import { maxSessions, nameKey, selectWorkers, workerPatterns, type ListeningWorker } from '../../core/ray/breakpoints';
import { DEBUG_TYPE, debugConfigurationFor, findAgentJetConfigs, type AgentJetDebugConfiguration } from '../debug/configs';

/** What the extension-host tests see of the Ray feature (on the API, not in the command list). */
export interface RayProbe {
  /** The workers the Paused workers view lists. */
  pausedWorkers(): PausedWorker[];
}

export function registerRayFeature(context: vscode.ExtensionContext, services: Services): RayProbe {
  const view = new PausedWorkersView();
  const tree = vscode.window.createTreeView('agentjet.rayPaused', { treeDataProvider: view });
  const runs = new Map<string, RayRun>();
  /** Without a launch: the newest local session, and the dashboard setting, while the view is visible. */
  let idleWatcher: SessionLogWatcher | undefined;
  let idleTimer: NodeJS.Timeout | undefined;

  const cfg = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('agentjet');
  const pathMappings = (): PathMapping[] => validPathMappings(cfg().get<unknown>('ray.pathMappings'));

  const updateMessage = (): void => {
    const n = view.all().length;
    tree.badge = n ? { value: n, tooltip: vscode.l10n.t('{0} Ray worker(s) paused', n) } : undefined;
    tree.message = n
      ? undefined
      : (view.message ??
        vscode.l10n.t(
          'No Ray worker is paused. Launch with "rayDebug": true or a bp() tag; workers that stop at a breakpoint or an uncaught exception appear here.',
        ));
  };

  const attach = async (
    w: Pick<PausedWorker, 'host' | 'port' | 'name' | 'pid'> & { doorbell?: boolean },
    parent?: vscode.DebugSession,
    run?: RayRun,
  ): Promise<boolean> => {
    if (!services.trust.require('run-process', vscode.l10n.t('AgentJet: attaching a debugger needs a trusted workspace.'))) return false;
    const key = `${w.host}:${w.port}`;
    if (run?.attached.has(key)) return true;
    run?.attached.set(key, 'starting');
    const folder = parent?.workspaceFolder ?? vscode.workspace.workspaceFolders?.[0];
    const config: vscode.DebugConfiguration = {
      type: DEBUG_TYPE,
      request: 'attach',
      name: vscode.l10n.t('Ray: {0} (pid {1})', w.name ?? 'worker', String(w.pid ?? '?')),
      connect: { host: w.host, port: w.port },
      pathMappings: validPathMappings(parent?.configuration.pathMappings).length
        ? validPathMappings(parent?.configuration.pathMappings)
        : pathMappings(),
      justMyCode: false,
      rayWorker: w.name ?? undefined,
      agentjetRayWorker: key,
      // An editor-breakpoints worker: `connect` is its doorbell; the adapter rings it to start debugpy.
      ...(w.doorbell ? { rayDoorbell: true } : {}),
    };
    services.log.info(`ray: attaching to ${w.name ?? 'worker'} at ${key}${parent ? ` under ${parent.name}` : ''}`);
    const ok = await vscode.debug.startDebugging(
      folder,
      config,
      parent ? { parentSession: parent, lifecycleManagedByParent: false } : undefined,
    );
    if (!ok) {
      run?.attached.delete(key);
      services.log.info(`ray: attaching to ${key} failed`);
    }
    return ok;
  };

  const onPaused = (run: RayRun, workers: PausedWorker[], source: string): void => {
    view.set(`${run.session.id}:${source}`, workers);
    updateMessage();
    if (run.experiment) setRayRunInfo(run.experiment, run.info(workers.length));
    if (cfg().get<boolean>('ray.autoAttach') ?? true) {
      for (const w of workers) void attach(w, run.session, run);
    }
  };

  /** Editor-breakpoints mode: attach to the workers whose names match, up to the cap; say which were skipped. */
  const onListeners = (run: RayRun, workers: ListeningWorker[]): void => {
    const c = run.session.configuration;
    if (c.rayBreakpoints !== true) return;
    const cap = maxSessions(c.rayMaxSessions);
    const patterns = workerPatterns(c.rayBreakpointWorkers);
    const live = [...run.hookAttached].filter((k) => run.attached.has(k)).length;
    const sel = selectWorkers(workers, patterns, cap, live, run.decided);
    const say = (text: string): void => {
      run.session.customRequest(REQUEST_CONSOLE, { text } satisfies ConsoleRequestArguments).then(undefined, () => undefined);
    };
    for (const w of sel.attach) {
      run.decided.add(w.key);
      run.hookAttached.add(w.key);
      void attach({ host: w.host, port: w.port, name: w.names.join(', '), pid: w.pid, doorbell: true }, run.session, run);
    }
    for (const { worker: w, reason } of sel.skipped) {
      if (reason === 'name') {
        run.decided.add(nameKey(w));
        say(
          vscode.l10n.t(
            'AgentJet: Ray worker pid {0} ({1}) not attached: no name matches {2} (launch attribute "rayBreakpointWorkers").',
            String(w.pid ?? '?'),
            w.names.join(', '),
            patterns.join(', '),
          ),
        );
      } else if (!run.capNoted.has(w.key)) {
        run.capNoted.add(w.key);
        say(
          vscode.l10n.t(
            'AgentJet: Ray worker pid {0} ({1}) not attached yet: {2} sessions already attached (launch attribute "rayMaxSessions").',
            String(w.pid ?? '?'),
            w.names.join(', '),
            cap,
          ),
        );
      }
    }
    const now = Date.now();
    view.set(
      `${run.session.id}:bp`,
      workers
        .filter((w) => run.hookAttached.has(w.key))
        .map((w) => ({
          id: `bp:${w.key}`,
          source: 'log' as const,
          name: w.names.join(', '),
          role: w.role,
          node: w.host,
          pid: w.pid,
          workerId: undefined,
          host: w.host,
          port: w.port,
          kind: 'attached' as const,
          tag: undefined,
          since: now,
          origin: run.sessionDir ?? '',
        })),
    );
    updateMessage();
  };

  const startIdle = (): void => {
    if (idleTimer || runs.size) return;
    const tick = async (): Promise<void> => {
      const dir = latestSession(rayTempRoot());
      if (dir && idleWatcher?.sessionDir !== dir) {
        idleWatcher?.dispose();
        idleWatcher = new SessionLogWatcher(dir).start();
        idleWatcher.on('change', (w: PausedWorker[]) => {
          view.set('idle:log', w);
          updateMessage();
        });
      }
      const dash = parseRayAddress(cfg().get<string>('ray.dashboardAddress') || process.env.RAY_ADDRESS);
      const url = dash.dashboard ?? (dash.gcs ? defaultDashboardFor(dash.gcs) : undefined);
      if (url) {
        try {
          view.set('idle:api', await listPausedWorkers(url, { timeoutMs: 2500 }));
          view.setNote(undefined);
        } catch (e) {
          view.set('idle:api', []);
          view.setNote(e instanceof Error ? e.message : String(e));
        }
        updateMessage();
      }
    };
    idleTimer = setInterval(() => void tick(), 2000);
    void tick();
  };
  const stopIdle = (): void => {
    if (idleTimer) clearInterval(idleTimer);
    idleTimer = undefined;
    idleWatcher?.dispose();
    idleWatcher = undefined;
    view.set('idle:log', []);
    view.set('idle:api', []);
  };

  /** The launch to start: our launch.json entry (asked when several), else a config of the workspace with backbone verl. */
  const chooseBase = async (folder: vscode.WorkspaceFolder | undefined, what: string): Promise<vscode.DebugConfiguration | undefined> => {
    // A launch.json entry of ours first, else a config found in the workspace.
    const launches = (vscode.workspace.getConfiguration('launch', folder).get<vscode.DebugConfiguration[]>('configurations') ?? []).filter(
      (c) => c.type === DEBUG_TYPE && c.request === 'launch',
    );
    let base: vscode.DebugConfiguration | undefined;
    if (launches.length === 1) base = launches[0];
    else if (launches.length > 1) {
      const p = await vscode.window.showQuickPick(
        launches.map((c) => ({ label: String(c.name), c })),
        { title: vscode.l10n.t('Launch which configuration with {0}?', what) },
      );
      base = p?.c;
      if (!base) return undefined;
    } else {
      const found = await findAgentJetConfigs(folder);
      const uri =
        found.length === 1
          ? found[0]
          : (
              await vscode.window.showQuickPick(
                found.map((u) => ({ label: vscode.workspace.asRelativePath(u), u })),
                { title: vscode.l10n.t('Train which config with {0}?', what) },
              )
            )?.u;
      if (!uri) {
        if (!found.length)
          void vscode.window.showErrorMessage(
            vscode.l10n.t('AgentJet: no AgentJet config (YAML with an `ajet:` root) in the workspace to train.'),
          );
        return undefined;
      }
      const c: AgentJetDebugConfiguration = { ...debugConfigurationFor(uri, folder), backbone: 'verl', openTokenLogOnFinish: false };
      base = c;
    }
    return base;
  };

  const debugWithBreakpoints = async (from?: vscode.Uri): Promise<boolean> => {
    if (!services.trust.require('run-process', vscode.l10n.t('AgentJet: launching needs a trusted workspace.'))) return false;
    const folder = (from && vscode.workspace.getWorkspaceFolder(from)) ?? vscode.workspace.workspaceFolders?.[0];
    // From a config's CodeLens: that config, trained with verl; otherwise ask.
    const base =
      from && /\.ya?ml$/i.test(from.fsPath)
        ? ({ ...debugConfigurationFor(from, folder), backbone: 'verl', openTokenLogOnFinish: false } as AgentJetDebugConfiguration)
        : await chooseBase(folder, vscode.l10n.t('editor breakpoints in Ray workers'));
    if (!base) return false;
    const config: vscode.DebugConfiguration = {
      ...base,
      name: vscode.l10n.t('{0} (Ray breakpoints)', String(base.name)),
      rayBreakpoints: true,
    };
    services.log.info(`ray: launching ${config.name} with editor breakpoints in Ray workers`);
    return vscode.debug.startDebugging(folder, config);
  };

  const debugWithTag = async (tag?: string, from?: vscode.Uri): Promise<boolean> => {
    if (!services.trust.require('run-process', vscode.l10n.t('AgentJet: launching needs a trusted workspace.'))) return false;
    let chosen = tag;
    if (!chosen) {
      const tags = await workspaceTags();
      const picked = await vscode.window.showQuickPick(
        [...tags.entries()].map(([t, locs]) => ({
          label: t,
          description: vscode.l10n.t('{0} call(s)', locs.length),
          detail: locs
            .slice(0, 3)
            .map((l) => `${vscode.workspace.asRelativePath(l.uri)}:${l.range.start.line + 1}`)
            .join(', '),
        })),
        {
          title: vscode.l10n.t('Debug training with which bp() tag?'),
          placeHolder: tags.size ? undefined : vscode.l10n.t('No bp("TAG") call found in the workspace'),
        },
      );
      chosen = picked?.label;
    }
    if (!chosen) return false;
    const folder = (from && vscode.workspace.getWorkspaceFolder(from)) ?? vscode.workspace.workspaceFolders?.[0];
    const base = await chooseBase(folder, vscode.l10n.t('tag {0}', chosen));
    if (!base) return false;
    const tags = [...new Set([...((base.debugTags as string[] | undefined) ?? []), chosen])];
    const config: vscode.DebugConfiguration = {
      ...base,
      name: vscode.l10n.t('{0} (bp {1})', String(base.name), chosen),
      rayDebug: true,
      debugTags: tags,
    };
    services.log.info(`ray: launching ${config.name} with --debug ${debugTagsArg(tags)}`);
    return vscode.debug.startDebugging(folder, config);
  };

  const rayConfigLens = new RayConfigCodeLensProvider(services.trust);
  context.subscriptions.push(
    view,
    tree,
    vscode.languages.registerCodeLensProvider({ language: 'python', scheme: 'file' }, new BpCodeLensProvider()),
    rayConfigLens,
    vscode.languages.registerCodeLensProvider({ language: 'yaml', scheme: 'file' }, rayConfigLens),
    vscode.languages.registerCompletionItemProvider({ pattern: '**/.vscode/launch.json' }, new DebugTagCompletionProvider(), '"', '['),
    vscode.commands.registerCommand('agentjet.ray.attach', async (w?: PausedWorker) => {
      const target =
        w ??
        (
          await vscode.window.showQuickPick(
            view.all().map((p) => ({ label: p.name ?? String(p.pid), description: `${p.host}:${p.port}`, p })),
            { title: vscode.l10n.t('Attach to which paused Ray worker?') },
          )
        )?.p;
      if (!target) return false;
      // An editor-breakpoints row (`bp:`) gives the worker's doorbell, not debugpy's port.
      const doorbell = target.id.startsWith('bp:');
      const run = [...runs.values()].find(
        (r) =>
          r.watcher?.paused.some((p) => p.port === target.port && p.host === target.host) ||
          (doorbell && r.hookAttached.has(`${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`)),
      );
      return attach({ ...target, doorbell }, run?.session, run);
    }),
    vscode.commands.registerCommand('agentjet.ray.refresh', () => {
      for (const r of runs.values()) r.watcher?.scan();
      idleWatcher?.scan();
      updateMessage();
    }),
    vscode.commands.registerCommand('agentjet.ray.debugWithBreakpoints', (uri?: vscode.Uri) =>
      debugWithBreakpoints(uri instanceof vscode.Uri ? uri : undefined),
    ),
    vscode.commands.registerCommand('agentjet.ray.debugWithTag', (tag?: string, uri?: vscode.Uri) =>
      debugWithTag(typeof tag === 'string' ? tag : undefined, uri),
    ),
    tree.onDidChangeVisibility((e) => {
      if (e.visible) startIdle();
      else if (!runs.size) stopIdle();
    }),
    vscode.debug.onDidStartDebugSession((s) => {
      if (s.type !== DEBUG_TYPE) return;
      if (s.configuration.request === 'attach' && typeof s.configuration.agentjetRayWorker === 'string') {
        for (const r of runs.values())
          if (r.attached.get(s.configuration.agentjetRayWorker) === 'starting') r.attached.set(s.configuration.agentjetRayWorker, s);
        return;
      }
      if (!wantsRay(s.configuration)) return;
      stopIdle();
      const env = { ...process.env, ...((s.configuration.env as Record<string, string> | undefined) ?? {}) };
      const args = (s.configuration.args as string[] | undefined) ?? [];
      const joins = !!env.RAY_ADDRESS || args.includes('--with-ray-cluster');
      runs.set(s.id, new RayRun(s, env, joins, onPaused, onListeners));
      services.log.info(
        `ray: following Ray for ${s.name} (temp root ${rayTempRoot(env)}${env.RAY_ADDRESS ? `, RAY_ADDRESS ${env.RAY_ADDRESS}` : ''})`,
      );
    }),
    vscode.debug.onDidTerminateDebugSession((s) => {
      const run = runs.get(s.id);
      if (run) {
        run.dispose();
        runs.delete(s.id);
        // Stop detaches every worker session of the launch (workers of a cluster go on).
        for (const child of run.attached.values()) if (child !== 'starting') void vscode.debug.stopDebugging(child);
        for (const src of [run.sessionDir, run.dashboard, 'bp']) if (src) view.set(`${s.id}:${src}`, []);
        updateMessage();
        if (tree.visible && !runs.size) startIdle();
        return;
      }
      // A child attach ended (Stop = detach): it may be attached again from the view.
      const key = s.configuration.agentjetRayWorker;
      if (typeof key === 'string') for (const r of runs.values()) if (r.attached.get(key) === s) r.attached.delete(key);
    }),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
      if (e.session.type !== DEBUG_TYPE) return;
      if (e.event === EVENT_RAY_PAUSE) {
        const b = e.body as RayPauseEventBody;
        const c = e.session.configuration.connect as { host?: string; port?: number } | undefined;
        if (c?.host && c.port) view.learn(c.host, c.port, { kind: b.kind, tag: b.tag });
        services.log.info(
          `ray: ${e.session.name} stopped (${b.kind}${b.tag ? `, tag ${b.tag}` : ''}) at ${b.file ?? '?'}:${b.line ?? '?'}`,
        );
      } else if (e.event === EVENT_EXPERIMENT) {
        const run = runs.get(e.session.id);
        if (run) {
          run.experiment = (e.body as ExperimentEventBody).folder;
          setRayRunInfo(run.experiment, run.info(run.watcher?.paused.length ?? 0));
        }
      }
    }),
    // A worker session is ready once its configuration is done (the editor's breakpoints are set by then).
    vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
      createDebugAdapterTracker(s) {
        if (typeof s.configuration.agentjetRayWorker !== 'string') return undefined;
        return {
          onDidSendMessage(m: { type?: string; command?: string; success?: boolean }) {
            if (m.type === 'response' && m.command === 'configurationDone')
              services.log.info(`ray: breakpoints set in ${s.name} (${String(s.configuration.agentjetRayWorker)})`);
          },
        };
      },
    }),
    // The launch's console: where Ray says which session and dashboard it uses.
    vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
      createDebugAdapterTracker(s) {
        if (!wantsRay(s.configuration)) return undefined;
        let buf = '';
        return {
          onDidSendMessage(m: { type?: string; event?: string; body?: { output?: string } }) {
            if (m.type !== 'event' || m.event !== 'output' || typeof m.body?.output !== 'string') return;
            const run = runs.get(s.id);
            if (!run) return;
            const lines = (buf + m.body.output).split('\n');
            buf = lines.pop()!.slice(-4000);
            for (const line of lines) {
              const dir = sessionFromOutput(line);
              if (dir) run.useSession(dir);
              const dash = dashboardFromOutput(line);
              if (dash) run.useDashboard(dash);
              if (parseDriverLine(line)?.event === 'waiting') run.watcher?.scan();
              run.feedOutput(line);
            }
          },
        };
      },
    }),
    // The run's row shows the Ray line: redraw the Runs view when it changes (rare: pauses, nodes).
    onDidChangeRayRunInfo(() => {
      try {
        services.get('runs').refresh();
      } catch (err) {
        services.report(vscode.l10n.t('refreshing the Runs view'), err);
      }
    }),
    {
      dispose: () => {
        stopIdle();
        for (const r of runs.values()) r.dispose();
        runs.clear();
      },
    },
  );
  updateMessage();
  return { pausedWorkers: () => view.all() };
}
