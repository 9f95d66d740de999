// `agentjet log` alone (dist/cli-log.js): the launcher (cli/entry.ts) loads this small bundle
// for `log`, so stats, export and search on a large log do not first compile the whole CLI.
import { logCommand } from './log';
import { runCli } from './run';

runCli([logCommand]);
