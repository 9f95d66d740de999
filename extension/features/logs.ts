import type * as vscode from 'vscode';
import type { Services } from '../services';

/** Slot for the logs feature; its issue fills this in. */
export function registerLogsFeature(_context: vscode.ExtensionContext, _services: Services): void {
  // intentionally empty until the feature lands
}
