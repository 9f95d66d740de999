// What the launch paths (launch.ts, swarmLaunch.ts, noDebug.ts) use of the debug session: its
// processes and record, the relay to debugpy, and how it answers the client.
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { ResolvedLaunch } from '../core/launch/attributes';
import type { LaunchPlan } from '../core/launch/lifecycle';
import type { LauncherShim } from './debugpy';
import type { DebugpyRelay, DebugpyRelayHost } from './relay';

export interface LaunchHost extends DebugpyRelayHost {
  readonly relay: DebugpyRelay;
  readonly shim: LauncherShim;
  /** The launch being run (set once its attributes are resolved). */
  launch: ResolvedLaunch | undefined;
  /** Its plan (an AgentJet launch; a swarm client has none). */
  plan: LaunchPlan | undefined;
  reply(request: DebugProtocol.Request, extra?: Partial<DebugProtocol.Response>): void;
  fail(request: DebugProtocol.Request, id: number, message: string): void;
  /** Every 2 s of a debug run: note new process groups, end what a killed debuggee left. */
  startSweep(): void;
}
