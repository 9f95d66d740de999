// The Ray cluster a run uses, for the Runs tree: the run's experiment folder -> what the Ray
// feature knows (session, dashboard, nodes alive, workers paused). The Runs tree calls
// `decorateRunItem` for experiment rows (one line in extension/runs/tree.ts).
import * as vscode from 'vscode';
import type { RayClusterInfo } from '../../core/ray/types';
import { describeRay as describeLine, rayDescription, type RayLineWords } from '../../core/ray/runLine';

const WORDS: RayLineWords = {
  nodesAlive: (n) => vscode.l10n.t('{0} node(s) alive', n),
  workersPaused: (n) => vscode.l10n.t('{0} worker(s) paused', n),
  paused: (n) => vscode.l10n.t('{0} paused', n),
};

const byExperiment = new Map<string, RayClusterInfo>();
const changed = new vscode.EventEmitter<string>();
/** Fires with the experiment folder whose Ray info changed. */
export const onDidChangeRayRunInfo = changed.event;

export function setRayRunInfo(experimentFolder: string, info: RayClusterInfo): void {
  const before = byExperiment.get(experimentFolder);
  byExperiment.set(experimentFolder, info);
  if (!before || describeRay(before) !== describeRay(info)) changed.fire(experimentFolder);
}

export function rayRunInfo(experimentFolder: string): RayClusterInfo | undefined {
  return byExperiment.get(experimentFolder);
}

export function describeRay(info: RayClusterInfo): string {
  return describeLine(info, WORDS);
}

/** Adds the run's Ray line to an experiment row's tooltip and description. */
export function decorateRunItem(experimentFolder: string, item: vscode.TreeItem): void {
  const info = byExperiment.get(experimentFolder);
  if (!info) return;
  const line = describeRay(info);
  const description = rayDescription(typeof item.description === 'string' ? item.description : undefined, info, WORDS);
  if (description !== undefined && info.paused > 0) item.description = description;
  if (item.tooltip instanceof vscode.MarkdownString) item.tooltip.appendMarkdown('\n\n').appendText(line);
  else item.tooltip = `${item.tooltip ?? ''}\n${line}`.trim();
}
