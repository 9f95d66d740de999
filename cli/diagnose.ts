// `agentjet diagnose LOG|EXP_DIR [--format json]`: why a run failed, with what to change.
import { formatDiagnosis } from '../core/diagnose/format';
import { diagnoseExperiment, diagnoseFile, defaultRayRoot } from '../core/diagnose';
import { syncNodeFs, fsErrorText } from '../core/fs/seam';
import type { CliCommand } from './commands';
import { commandArgs } from './args';
import { t } from '../core/l10n';

const help = () =>
  t(
    `Usage: agentjet diagnose LOG | EXP_DIR [options]

Tells why a run failed and what to change: out of GPU memory (torch, vLLM's KV cache), out of host
memory (Ray's memory monitor, the kernel's OOM killer), NCCL, a port in use, the environment
AgentJet refuses (verl version, debugpy, SWANLAB_API_KEY), an invalid config key, a missing dataset,
or an exception in your workflow code, each with the line that shows it.

  LOG            a log file (launcher output, a Ray worker log, a vLLM log ...)
  EXP_DIR        an experiment folder (saved_experiments/<name>): reads the launcher output VS Code
                 kept, the latest session's logs, this node's Ray worker logs of the run's time and
                 its vLLM companion's log
  --format       text (default) or json ({"causes": [{code, line, message, fix, evidence}], "read": [...]})
  --ray-root D   Ray's temp folder (default: {0})
  --no-ray       do not read Ray worker logs
  --agentjet D   the AgentJet package (…/ajet) whose launch checks apply (default: found from the log)
`,
    defaultRayRoot(),
  );

export const diagnoseCommand: CliCommand = {
  name: 'diagnose',
  summary: 'why a run failed: the cause in its logs, with what to change',
  async run(args) {
    const parsed = commandArgs(
      'diagnose',
      args,
      {
        format: { type: 'string', choices: ['text', 'json'] },
        'ray-root': { type: 'string' },
        'no-ray': { type: 'boolean' },
        agentjet: { type: 'string' },
      },
      help,
    );
    if (typeof parsed === 'number') return parsed;
    const { values: o, positionals } = parsed;
    if (positionals.length !== 1) {
      process.stderr.write(`agentjet diagnose: ${t('give one log file or experiment folder (see --help)')}\n`);
      return 2;
    }
    const target = positionals[0]!;
    const fs = syncNodeFs();
    let isDir: boolean;
    try {
      const st = await fs.stat(target);
      isDir = st.isDirectory();
    } catch (err) {
      process.stderr.write(`agentjet diagnose: ${target}: ${fsErrorText(err)}\n`);
      return 1;
    }
    const opts = {
      ...(o['ray-root'] ? { rayRoot: o['ray-root'] } : {}),
      ...(o['no-ray'] ? { ray: false } : {}),
      ...(o.agentjet ? { ajetDir: o.agentjet } : {}),
    };
    const d = isDir ? await diagnoseExperiment(fs, target, opts) : await diagnoseFile(fs, target, opts);
    if (o.format === 'json') process.stdout.write(`${JSON.stringify(d, null, 2)}\n`);
    else process.stdout.write(formatDiagnosis(d));
    return d.read.length || d.causes.length ? 0 : 1;
  },
};
