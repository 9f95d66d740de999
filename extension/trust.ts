// The extension's one owner of workspace trust: VS Code's `isTrusted` and its grant event, fed into
// the pure policy (core/trust/policy.ts). Features ask this service before they start a process,
// resolve the workspace's interpreter or run anything the workspace holds; the config language
// server gets the same state at start and the grant as a notification (extension/config).
import * as vscode from 'vscode';
import { TRUST_COMMAND, WorkspaceTrust, type TrustedWork } from '../core/trust/policy';

export interface TrustService {
  /** True when the user trusts the workspace. */
  isTrusted(): boolean;
  /** Whether `work` may happen now (the policy's answer). */
  allows(work: TrustedWork): boolean;
  /** Fires once, when the user grants trust (VS Code reloads the window when trust is taken back). */
  readonly onDidGrant: vscode.Event<void>;
  /**
   * True when `work` may happen; otherwise says (as information, not as an error) what waits for
   * trust, with a Trust action that opens VS Code's trust editor. `what` is a whole sentence.
   */
  require(work: TrustedWork, what: string): boolean;
  /** Opens VS Code's trust editor. */
  manage(): Thenable<unknown>;
}

export function createTrustService(context: vscode.ExtensionContext): TrustService {
  const policy = new WorkspaceTrust(vscode.workspace.isTrusted);
  const granted = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    granted,
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      policy.grant();
    }),
  );
  policy.onGrant(() => granted.fire());
  const manage = () => vscode.commands.executeCommand(TRUST_COMMAND);
  // VS Code's flag is the truth: a grant it reports before its event reaches us counts at once.
  const sync = () => {
    if (!policy.trusted && vscode.workspace.isTrusted) policy.grant();
  };
  return {
    isTrusted: () => {
      sync();
      return policy.trusted;
    },
    allows: (work) => {
      sync();
      return policy.allows(work);
    },
    onDidGrant: granted.event,
    require(work, what) {
      if (this.allows(work)) return true;
      const trust = vscode.l10n.t('Trust…');
      void vscode.window.showInformationMessage(what, trust).then((pick) => (pick === trust ? manage() : undefined));
      return false;
    },
    manage,
  };
}
