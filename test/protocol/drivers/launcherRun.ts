// The task path's launch (core/launch/launcherRun.ts, what LauncherTerminal runs in the extension
// host) in a process of its own, for the stop tests: a stand-in extension host that can be killed.
// argv[2]: the launch attributes as JSON. Prints the launcher's output, then `ended <json>`.
import { LauncherRun } from '../../../core/launch/launcherRun';
import { resolveAttributes, type AgentJetLaunchAttributes } from '../../../core/launch/attributes';

const attrs = JSON.parse(process.argv[2] ?? '{}') as AgentJetLaunchAttributes;
const run = new LauncherRun({ launch: resolveAttributes(attrs), via: 'task' }, { output: (text) => process.stdout.write(text) });
void run.start().then((end) => process.stdout.write(`ended ${JSON.stringify(end)}\n`));
