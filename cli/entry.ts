// `agentjet` (dist/cli.js): a launcher that loads the bundle the command needs. `log` has its
// own small bundle (dist/cli-log.js); every other command, help and version load the whole CLI
// (dist/cli-main.js). The bundles lie beside this one.
import { join } from 'node:path';
import { splitLangFlag } from '../core/l10n/langFlag';

const name = splitLangFlag(process.argv.slice(2)).rest[0];
// A path computed at run time: esbuild leaves the other bundle out of this one.
const bundle = join(__dirname, name === 'log' ? 'cli-log.js' : 'cli-main.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(bundle);
