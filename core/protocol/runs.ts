// Plain data shapes of run discovery and dashboard aggregation, shared with the dashboard webview.
// The protocol layer owns them (it imports nothing); core/runs re-exports them.

/**
 * `ended`: the process exited and nothing shows whether it completed (see core/agentjet/status.ts).
 * `stopped`: the user asked for the stop (Stop in a debug session, Terminate Task, Ctrl+C in its terminal).
 */
export type RunStatus = 'running' | 'finished' | 'failed' | 'stopped' | 'interrupted' | 'ended' | 'empty';

export interface StepPoint {
  step: number;
  records: number;
  meanReward?: number;
  /** Share of records whose reward is at least 1 (a fully successful task). */
  successRate?: number;
  /** Mean `len_response_ids` over the record's timelines. */
  meanResponseLength?: number;
  /** Header time of the step's first record (local, as written). */
  firstTime: string;
}

export interface EvalPoint {
  index: number;
  time: string;
  header: string;
  metrics: Record<string, number>;
  /** Every row as written, numbers included, for the table view. */
  rows: [string, string][];
}

export interface ExceptionItem {
  time: string;
  title: string;
  detail: string;
  source: 'exception' | 'regular';
  file: string;
  /**
   * A note AgentJet writes to exception.json.log and carries on after (prompt token mismatch):
   * the same rule as the Runs tree's "harmless notes" (core/agentjet/status.ts `isHarmlessException`).
   */
  harmless?: boolean;
}
