// The nodes of the Runs view (what each row stands for), its filter and sort, and the status icons.
import * as vscode from 'vscode';
import type { ExperimentEntry, ExperimentInfo, HostInfo, RunStatus, SessionInfo, TrackingLog } from '../../core/runs/discover';

export type RunNode =
  | { kind: 'experiment'; path: string; entry: ExperimentEntry }
  | { kind: 'snapshot'; path: string; parent: RunNode }
  | { kind: 'session'; path: string; session: SessionInfo; exp: string; parent: RunNode }
  | { kind: 'host'; path: string; host: HostInfo; exp: string; parent: RunNode }
  | { kind: 'log'; path: string; module: string; textLog?: string; size: number; parent: RunNode }
  | { kind: 'textlog'; path: string; label: string; parent: RunNode }
  | { kind: 'trajSplit'; path: string; split: string; parent: RunNode }
  | { kind: 'trajStep'; path: string; step: number; parent: RunNode }
  | { kind: 'trajFile'; path: string; parent: RunNode }
  | { kind: 'checkpoints'; path: string; info: ExperimentInfo; parent: RunNode }
  | { kind: 'checkpoint'; path: string; step: number; parent: RunNode }
  | { kind: 'tracking'; path: string; log: TrackingLog; parent: RunNode }
  | { kind: 'message'; path: string; text: string; icon?: string; parent?: RunNode };

export type SortKey = 'time' | 'name' | 'reward';

export interface RunsFilter {
  text: string;
  statuses: RunStatus[];
}

const STATUS_ICON: Record<RunStatus, [string, string | undefined]> = {
  running: ['sync~spin', 'charts.blue'],
  finished: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  stopped: ['debug-stop', 'descriptionForeground'],
  interrupted: ['debug-disconnect', 'charts.yellow'],
  ended: ['circle-large-filled', 'descriptionForeground'],
  empty: ['circle-outline', 'disabledForeground'],
};

/** A running run that stalled: a warning instead of the spinner (its status stays running). */
export function stalledIcon(): vscode.ThemeIcon {
  return new vscode.ThemeIcon('warning', new vscode.ThemeColor('charts.orange'));
}

export function statusIcon(status: RunStatus): vscode.ThemeIcon {
  const [id, color] = STATUS_ICON[status];
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

/** A run's row icon: paused in the debugger, stalled, else its status. */
export function runIcon(status: RunStatus, paused: boolean, stalled: boolean): vscode.ThemeIcon {
  return paused ? new vscode.ThemeIcon('debug-pause') : stalled ? stalledIcon() : statusIcon(status);
}
