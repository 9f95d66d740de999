// The whole CLI (every command): dist/cli-main.js, which the launcher (cli/entry.ts) loads for
// everything but `log`; run directly under tsx by the tests.
import { commands } from './commands';
import { runCli } from './run';

runCli(commands);
