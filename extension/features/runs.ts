import type * as vscode from 'vscode';
import type { Services } from '../services';

/** Slot for the runs feature; its issue fills this in. */
export function registerRunsFeature(_context: vscode.ExtensionContext, _services: Services): void {
  // intentionally empty until the feature lands
}
