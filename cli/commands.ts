import { lintCommand } from './lint';
import { logCommand } from './log';
import { runsCommand } from './runs';
import { newCommand } from './new';
import { doctorCommand } from './doctor';
import { swarmCommand } from './swarm';
import { debugTaskCommand } from './debugTask';
import { mcpCommand } from './mcp';
import { stacksCommand } from './stacks';
import { metricsCommand } from './metrics';
import { compareCommand } from './compare';
import { diagnoseCommand } from './diagnose';
/** A subcommand of the `agentjet` CLI. Each feature adds one entry below. */
export interface CliCommand {
  readonly name: string;
  readonly summary: string;
  /** Returns the process exit code. */
  run(args: string[]): Promise<number>;
}

export const commands: CliCommand[] = [
  // lint (config issue), log (token log issue), runs (runs issue)
  lintCommand,
  logCommand,
  runsCommand,
  newCommand,
  doctorCommand,
  swarmCommand,
  debugTaskCommand,
  mcpCommand,
  stacksCommand,
  metricsCommand,
  compareCommand,
  diagnoseCommand,
];
