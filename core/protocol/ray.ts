// Custom DAP events of the `agentjet` session's Ray attach path (debug-adapter/attach.ts).

/** The attached Ray worker stopped for the first time: what kind of pause and where. */
export const EVENT_RAY_PAUSE = 'agentjet.rayPause';
export interface RayPauseEventBody {
  kind: 'breakpoint' | 'post-mortem';
  /** The `bp("TAG")` tag on the paused line, when there is one. */
  tag: string | undefined;
  /** The first frame outside AgentJet's bp() helper and Ray's debugger glue. */
  file: string | undefined;
  line: number | undefined;
  /** debugpy's stopped reason. */
  reason: string;
}

/** Request to the launch session: print `text` in its Debug Console (e.g. which Ray workers were skipped). */
export const REQUEST_CONSOLE = 'agentjet.console';
export interface ConsoleRequestArguments {
  text: string;
}
