// One Stop ends the whole launch. debugpy reports each launcher child process with a DAP
// `startDebugging` reverse request; VS Code starts that child session with `{ parentSession }`
// only (not `lifecycleManagedByParent`, which a reverse request cannot ask for). The child is an
// attach, so VS Code's Stop there (Shift+F5, the toolbar's Disconnect for attach sessions) is a
// `disconnect` to debugpy for that process alone: the launcher goes on and the user must Stop
// again. The extension watches each child session's messages with this and, on the user's Stop,
// stops the parent AgentJet session, which ends the launcher's whole process tree (sparing the
// companions, as ever).
import type { DebugProtocol } from '@vscode/debugprotocol';
import { RESUMING_REQUESTS } from '../protocol/debug';

/**
 * Watches one child session's traffic. `toAdapter` sees the client's messages (VS Code -> debugpy),
 * `fromAdapter` debugpy's. `toAdapter` answers true when the message is the user stopping the child:
 * a `terminate` or `disconnect` (VS Code 1.100 sends `disconnect { terminateDebuggee: false }` for
 * Shift+F5 on an attach session, `terminateDebuggee: true` for its Stop), not a restart, sent
 * before debugpy said the child ended (after `terminated`/`exited` VS Code disconnects on its own,
 * which is no Stop). While the parent itself stops, the extension ignores the children's answers.
 */
export class ChildStopWatcher {
  private ended = false;
  private forwarded = false;

  fromAdapter(m: DebugProtocol.ProtocolMessage): void {
    if (m.type === 'event') {
      const e = (m as DebugProtocol.Event).event;
      if (e === 'terminated' || e === 'exited') this.ended = true;
    }
  }

  toAdapter(m: DebugProtocol.ProtocolMessage): boolean {
    if (m.type !== 'request' || this.ended || this.forwarded) return false;
    const req = m as DebugProtocol.Request;
    if (req.command === 'terminate') {
      if ((req.arguments as DebugProtocol.TerminateArguments | undefined)?.restart) return false;
    } else if (req.command === 'disconnect') {
      if ((req.arguments as DebugProtocol.DisconnectArguments | undefined)?.restart) return false;
    } else {
      return false;
    }
    this.forwarded = true;
    return true;
  }

  /** The session ended without a Stop of the user (the adapter went away). */
  get childEnded(): boolean {
    return this.ended;
  }
}

/**
 * Whether one child session sits paused in the debugger (a breakpoint, a step), from its traffic:
 * debugpy's `stopped` pauses it; `continued`, its end, or a resuming request of the client lets it
 * go. Each method answers true when the state changed.
 */
export class ChildPauseWatcher {
  paused = false;

  fromAdapter(m: DebugProtocol.ProtocolMessage): boolean {
    if (m.type !== 'event') return false;
    const e = (m as DebugProtocol.Event).event;
    if (e === 'stopped') return this.set(true);
    if (e === 'continued' || e === 'terminated' || e === 'exited') return this.set(false);
    return false;
  }

  toAdapter(m: DebugProtocol.ProtocolMessage): boolean {
    if (m.type !== 'request') return false;
    const c = (m as DebugProtocol.Request).command;
    return RESUMING_REQUESTS.includes(c) || c === 'disconnect' || c === 'terminate' ? this.set(false) : false;
  }

  private set(paused: boolean): boolean {
    if (paused === this.paused) return false;
    this.paused = paused;
    return true;
  }
}
