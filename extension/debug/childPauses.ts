// Which AgentJet launches sit paused in one of their child sessions (the launcher's sub-processes,
// which VS Code talks to straight, so the launch's own session never sees their pauses): told to the
// launch's session, whose live launch record then reads "paused in the debugger since HH:MM".
import * as vscode from 'vscode';
import { REQUEST_CHILDREN_PAUSED, type ChildrenPausedArguments } from '../../core/protocol/debug';
import type { Services } from '../services';

export class ChildPauses {
  /** Launch session id -> child session id -> paused. */
  private readonly byRoot = new Map<string, Map<string, boolean>>();
  private readonly told = new Map<string, boolean>();

  constructor(private readonly services: Services) {}

  set(root: vscode.DebugSession, child: string, paused: boolean): void {
    const children = this.byRoot.get(root.id) ?? new Map<string, boolean>();
    this.byRoot.set(root.id, children);
    children.set(child, paused);
    const any = [...children.values()].some(Boolean);
    if (this.told.get(root.id) === any) return;
    this.told.set(root.id, any);
    const args: ChildrenPausedArguments = { paused: any };
    root.customRequest(REQUEST_CHILDREN_PAUSED, args).then(undefined, (err: unknown) => {
      // The launch's session may be ending: nothing to tell any more.
      this.services.log.info(`debug: could not tell ${root.name} its child paused=${any}: ${String(err)}`);
    });
  }

  forget(root: string): void {
    this.byRoot.delete(root);
    this.told.delete(root);
  }
}
