// Debugging training on Ray: the Paused workers view, auto-attach as child sessions of a launch,
// manual Attach, "Debug training with this tag" (CodeLens on bp("TAG") and a quick pick), and the
// Ray line on a run's row. Nothing starts before a launch with rayDebug/debugTags, the view being
// shown, or a command. The state lives in RayWorkers (workers.ts), the launch commands in
// launches.ts; this file wires them to VS Code.
import * as vscode from 'vscode';
import type { Services } from '../services';
import { BpCodeLensProvider } from './bpCodeLens';
import { onDidChangeRayRunInfo } from './runsRow';
import { DebugTagCompletionProvider } from './tagCompletion';
import { wantsRay } from './rayRun';
import { RayWorkers } from './workers';
import { debugWithBreakpoints, debugWithTag } from './launches';
import type { PausedWorker } from '../../core/ray/types';
import { DEBUG_TYPE } from '../debug/configs';

/** What the extension-host tests see of the Ray feature (on the API, not in the command list). */
export interface RayProbe {
  /** The workers the Paused workers view lists. */
  pausedWorkers(): PausedWorker[];
}

export function registerRayFeature(context: vscode.ExtensionContext, services: Services): RayProbe {
  const workers = new RayWorkers(services);
  context.subscriptions.push(
    workers,
    vscode.languages.registerCodeLensProvider({ language: 'python', scheme: 'file' }, new BpCodeLensProvider()),
    vscode.languages.registerCompletionItemProvider({ pattern: '**/.vscode/launch.json' }, new DebugTagCompletionProvider(), '"', '['),
    vscode.commands.registerCommand('agentjet.ray.attach', (w?: PausedWorker) => workers.attachFromView(w)),
    vscode.commands.registerCommand('agentjet.ray.refresh', () => workers.refresh()),
    vscode.commands.registerCommand('agentjet.ray.debugWithBreakpoints', (uri?: vscode.Uri) =>
      debugWithBreakpoints(services, uri instanceof vscode.Uri ? uri : undefined),
    ),
    vscode.commands.registerCommand('agentjet.ray.debugWithTag', (tag?: string, uri?: vscode.Uri) =>
      debugWithTag(services, typeof tag === 'string' ? tag : undefined, uri),
    ),
    workers.tree.onDidChangeVisibility((e) => workers.visibilityChanged(e.visible)),
    vscode.debug.onDidStartDebugSession((s) => workers.sessionStarted(s)),
    vscode.debug.onDidTerminateDebugSession((s) => workers.sessionTerminated(s)),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => workers.customEvent(e)),
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
            if (!workers.follows(s.id)) return;
            const lines = (buf + m.body.output).split('\n');
            buf = lines.pop()!.slice(-4000);
            for (const line of lines) workers.consoleLine(s.id, line);
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
  );
  workers.updateMessage();
  return { pausedWorkers: () => workers.view.all() };
}
