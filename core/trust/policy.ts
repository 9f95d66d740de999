// The one place that decides what a workspace the user has not trusted (VS Code's Restricted Mode)
// may do. Reading is always allowed: YAML, JSONC and Python are parsed as text, never run. Anything
// that starts a process for the workspace (an interpreter of its own, a probe of installed
// packages, the folder's AgentJet code, a launch) waits until the user grants trust; trust is
// granted at most once (VS Code reloads the window when it is taken back).
//
// The language server holds one of these (set from `initializationOptions.trusted` and the grant
// notification, core/protocol/config.ts); the extension's trust service (extension/trust.ts)
// holds another, fed by `vscode.workspace.isTrusted`. Everything else asks them.
import { t } from '../l10n';

/** VS Code's own command that opens the workspace trust editor (where the user grants trust). */
export const TRUST_COMMAND = 'workbench.trust.manage';

/** What needs trust. Text reading is not on the list: it is always allowed. */
export type TrustedWork =
  /** Choose the folder's interpreter (`.venv`/`venv`, a workspace setting, one inside the folder). */
  | 'resolve-interpreter'
  /** Run an interpreter to ask where packages are installed (any interpreter, even one on PATH). */
  | 'probe-packages'
  /** Run anything else for the workspace: the environment check, launches, servers, dataset export. */
  | 'run-process';

export interface Disposable {
  dispose(): void;
}

export class WorkspaceTrust {
  private granted: boolean;
  private readonly listeners = new Set<() => void>();

  constructor(trusted: boolean) {
    this.granted = trusted;
  }

  get trusted(): boolean {
    return this.granted;
  }

  /** The decision: every kind of work that needs trust gets it only in a trusted workspace. */
  allows(work: TrustedWork): boolean {
    void work; // one answer for every kind today; callers still say which so the log and tests can tell
    return this.granted;
  }

  /** The user granted trust: listeners run once, in order, and are then forgotten. */
  grant(): void {
    if (this.granted) return;
    this.granted = true;
    const all = [...this.listeners];
    this.listeners.clear();
    for (const fn of all) fn();
  }

  /** Calls `fn` when trust is granted (never, when it already is: the caller acts at once then). */
  onGrant(fn: () => void): Disposable {
    if (this.granted) return { dispose: () => undefined };
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }
}

/** Why an installed-package check did not happen, for diagnostics and hovers. */
export function waitsForTrustMessage(): string {
  return t('Installed packages are checked once you trust this folder (Restricted Mode runs nothing of the workspace).');
}

/** A reference to a module that is not in the workspace, unchecked in Restricted Mode. */
export function referenceWaitsForTrust(target: string): string {
  return t(
    '`{0}` was not checked: installed packages are checked once you trust this folder (Restricted Mode runs nothing of the workspace).',
    target,
  );
}

/** The title of the action that opens VS Code's trust editor. */
export function trustActionTitle(): string {
  return t('Trust this folder…');
}
