import type * as vscode from 'vscode';
import type { Services } from '../services';

/** Slot for the debug feature; its issue fills this in. */
export function registerDebugFeature(_context: vscode.ExtensionContext, _services: Services): void {
  // intentionally empty until the feature lands
}
