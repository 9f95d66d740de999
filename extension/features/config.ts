import type * as vscode from 'vscode';
import type { Services } from '../services';

/** Slot for the config feature; its issue fills this in. */
export function registerConfigFeature(_context: vscode.ExtensionContext, _services: Services): void {
  // intentionally empty until the feature lands
}
