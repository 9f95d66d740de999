// Show Stacks: where a running run (a Runs row) or a launch the editor started waits. The report
// (core/stacks) opens as a read-only document whose frames link to their file and line. Signalling
// a process or reading it with py-spy runs nothing of the folder; looking for py-spy beside the
// run's interpreter (which may be the folder's environment) waits for the trust owner.
import * as vscode from 'vscode';
import { isAbsolute } from 'node:path';
import { collectStacks } from '../../core/stacks/collect';
import { formatStackReport } from '../../core/stacks/format';
import { interpretersOf } from '../../core/stacks/pyspy';
import { runPids } from '../../core/stacks/target';
import { saveStackReport } from '../../core/stacks/saved';
import { EVENT_EXPERIMENT } from '../../core/protocol/debug';

import type { RunsModel } from '../../core/runs/model';
import { rayRunInfo } from '../ray/runsRow';
import type { RunNode } from './tree';
import type { Services } from '../services';

export const STACKS_SCHEME = 'agentjet-stacks';
const FRAME_LINE = /^ {4}(\S.*?) {2}(.+):(\d+)$/;

/** The document links of a report's text: each `    func  /abs/file.py:LINE` frame line. */
export function stackLinks(text: string): { line: number; start: number; end: number; file: string; lineNo: number }[] {
  const out: { line: number; start: number; end: number; file: string; lineNo: number }[] = [];
  text.split('\n').forEach((l, i) => {
    const m = FRAME_LINE.exec(l);
    if (!m || !isAbsolute(m[2]!)) return;
    const start = l.length - m[2]!.length - m[3]!.length - 1;
    out.push({ line: i, start, end: l.length, file: m[2]!, lineNo: Number(m[3]) });
  });
  return out;
}

interface Target {
  title: string;
  pids: number[];
  raySessions: string[];
  /** The run's folder: the report is kept there (core/stacks/saved.ts) for the CLI and agents. */
  experiment?: string;
}

/** Registers `agentjet.runs.showStacks`; the command resolves with the report (tests, other callers). */
/** `ensureRoots` configures the Runs model's roots (the Runs view may never have been opened). */
export function registerStacksCommand(
  context: vscode.ExtensionContext,
  services: Services,
  model: RunsModel,
  ensureRoots: () => void,
): void {
  const docs = new Map<string, string>();
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const launches = new Map<string, { name: string; pid: number; experiment?: string }>();

  context.subscriptions.push(
    changed,
    vscode.workspace.registerTextDocumentContentProvider(STACKS_SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (u) => docs.get(u.toString()) ?? '',
    }),
    vscode.languages.registerDocumentLinkProvider(
      { scheme: STACKS_SCHEME },
      {
        provideDocumentLinks: (doc) =>
          stackLinks(doc.getText()).map(
            (l) =>
              new vscode.DocumentLink(
                new vscode.Range(l.line, l.start, l.line, l.end),
                vscode.Uri.file(l.file).with({ fragment: `L${l.lineNo}` }),
              ),
          ),
      },
    ),
    // The launcher's pid of each AgentJet launch the editor runs (the adapter's `process` event).
    vscode.debug.registerDebugAdapterTrackerFactory('agentjet', {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (m: { type?: string; event?: string; body?: { systemProcessId?: number; folder?: string } }) => {
          const pid = m?.type === 'event' && m.event === 'process' ? m.body?.systemProcessId : undefined;
          if (typeof pid === 'number' && pid > 0) launches.set(session.id, { ...launches.get(session.id), name: session.name, pid });
          // The run folder the launch announced: its reports are kept there too.
          const known = launches.get(session.id);
          if (known && m?.type === 'event' && m.event === EVENT_EXPERIMENT && typeof m.body?.folder === 'string')
            known.experiment = m.body.folder;
        },
        onExit: () => launches.delete(session.id),
        onWillStopSession: () => launches.delete(session.id),
      }),
    }),
  );

  const ofRun = async (node: RunNode & { kind: 'experiment' }): Promise<Target | string> => {
    const info = await model.info(node.entry);
    const pids = runPids(info);
    if (!pids.length) return vscode.l10n.t('{0} has no live process on this machine; nothing to read.', node.entry.name);
    const ray = rayRunInfo(node.path)?.sessionDir;
    return { title: node.entry.name, pids, raySessions: ray ? [ray] : [], experiment: node.entry.path };
  };

  const pick = async (): Promise<Target | string | undefined> => {
    const items: (vscode.QuickPickItem & { target: () => Promise<Target | string> })[] = [];
    for (const l of launches.values())
      items.push({
        label: l.name,
        description: vscode.l10n.t('launch, process {0}', l.pid),
        target: async () => ({ title: l.name, pids: [l.pid], raySessions: [], ...(l.experiment ? { experiment: l.experiment } : {}) }),
      });
    ensureRoots();
    const entries = await model.experiments();
    // Statuses the view has not read yet are read now (shared with the view's own reads).
    const infos = await Promise.all(entries.map((e) => model.cachedInfo(e.path) ?? model.info(e).catch(() => undefined)));
    for (const [i, e] of entries.entries()) {
      const info = infos[i];
      if (info?.status === 'running')
        items.push({
          label: e.name,
          description: vscode.l10n.t('running run'),
          target: () => ofRun({ kind: 'experiment', path: e.path, entry: e }),
        });
    }
    if (!items.length) return vscode.l10n.t('No running run or launch to read stacks from.');
    const chosen = items.length === 1 ? items[0] : await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Show Stacks of') });
    return chosen ? chosen.target() : undefined;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('agentjet.runs.showStacks', async (arg?: RunNode | vscode.Uri | { pids: number[]; title?: string }) => {
      let target: Target | string | undefined;
      if (arg && !(arg instanceof vscode.Uri) && 'pids' in arg && Array.isArray(arg.pids))
        target = { title: arg.title ?? arg.pids.join(','), pids: arg.pids.filter((p) => Number.isInteger(p) && p > 0), raySessions: [] };
      else if (arg && !(arg instanceof vscode.Uri) && 'kind' in arg && arg.kind === 'experiment') target = await ofRun(arg);
      else if (arg instanceof vscode.Uri) {
        // An experiment folder (`resourceUri` of a row, or a caller that knows the path).
        ensureRoots();
        const entry = (await model.experiments()).find((e) => e.path === arg.fsPath);
        target = entry
          ? await ofRun({ kind: 'experiment', path: entry.path, entry })
          : vscode.l10n.t('{0} is not a run the Runs view shows.', arg.fsPath);
      } else target = await pick();
      if (target === undefined) return undefined;
      if (typeof target === 'string') {
        void vscode.window.showInformationMessage(target);
        return undefined;
      }
      const t = target;
      // The run's interpreter may hold py-spy; it may be the folder's own environment: trust decides.
      const interpreters = services.trust.isTrusted() ? (await Promise.all(t.pids.map(interpretersOf))).flat() : [];
      const report = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Reading the stacks of {0}…', t.title), cancellable: true },
        (_p, token) => {
          const abort = new AbortController();
          token.onCancellationRequested(() => abort.abort());
          return collectStacks({ roots: t.pids, raySessions: t.raySessions, interpreters, signal: abort.signal });
        },
      );

      const stamp = new Date(report.takenAt).toISOString().slice(11, 19).replace(/:/g, '-');
      const uri = vscode.Uri.from({ scheme: STACKS_SCHEME, path: `/${t.title.replace(/[\\/]/g, '_')} stacks ${stamp}.txt` });
      const text = formatStackReport(report);
      // Kept beside the run: `agentjet stacks EXP_DIR --last` and the agents' run summary read it.
      const kept = t.experiment ? await saveStackReport(t.experiment, report, text).catch(() => undefined) : undefined;
      docs.set(uri.toString(), kept ? `${text}\n${vscode.l10n.t('Kept in {0}', kept)}\n` : text);
      changed.fire(uri);
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: false });
      if (!report.processes.some((p) => !p.error))
        void vscode.window.showWarningMessage(vscode.l10n.t('No stacks could be read: see the document for why.'));
      return report;
    }),
  );
}
