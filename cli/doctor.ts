// `agentjet doctor [--python PATH] [--port N] [--format text|json]`: the environment check.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliCommand } from './commands';
import { evaluate, summary } from '../core/doctor/checks';
import { gather } from '../core/doctor/run';
import { toText } from '../core/doctor/report';
import { resolveInterpreter } from '../core/process/resolveInterpreter';
import { t } from '../core/l10n';
import { commandArgs } from './args';
import { AgentJetFactsService, defaultCacheDir } from '../core/config/agentjetFacts';
import { bundledReleases } from '../core/config/releases';
import { WorkspaceTrust } from '../core/trust/policy';

function help(): string {
  return t(
    'Usage: agentjet doctor [options]\n\nChecks the Python environment AgentJet runs in: Python, ajet/astuner and its launcher, debugpy,\nvLLM, verl, trinity, Ray, NVIDIA GPUs and the vLLM port. Each problem comes with a fix.\n\nOptions:\n  --python PATH       interpreter to check (default: .venv/venv in the folder, else python3)\n  --port N            the vLLM port (ajet.debug.debug_vllm_port, default 18000)\n  --format text|json  output format (default: text)\n  --lang en|zh-cn     language of the messages (default: from LANG)\n\nExit status: 0 when nothing is wrong, 1 when a check failed, 2 on bad usage.\n',
  );
}

export async function runDoctor(
  args: string[],
  write: (s: string) => void = (s) => process.stdout.write(s),
  writeErr: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  const parsed = commandArgs(
    'doctor',
    args,
    { python: { type: 'string' }, port: { type: 'string' }, format: { type: 'string', choices: ['text', 'json'] } },
    help,
    write,
    writeErr,
  );
  if (typeof parsed === 'number') return parsed;
  const { values: o, positionals } = parsed;
  if (positionals.length) {
    writeErr(t('agentjet doctor: unknown option {0}', positionals[0]!) + '\n');
    return 2;
  }
  const python = o.python;
  const format = o.format === 'json' ? 'json' : 'text';
  const port = o.port === undefined ? 18000 : Number(o.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    writeErr(t('agentjet doctor: --port must be a port number (1-65535), not {0}', o.port ?? '') + '\n');
    return 2;
  }
  const cwd = process.cwd();
  const interp = python ? { path: python, source: 'setting' as const } : resolveInterpreter({ folder: cwd }, existsSync);
  const { DOCTOR_PROBE } = await import('../core/doctor/script');
  // Which AgentJet judges configs here: the folder's checkout, else the interpreter's package, else
  // bundled facts. Asked alongside the probe: an interpreter that does not answer costs one deadline.
  // A person typed `agentjet doctor` here: the interpreter it names (or finds) is theirs to run.
  const agentjets = new AgentJetFactsService({
    cacheDir: process.env.AGENTJET_FACTS_CACHE ?? defaultCacheDir(),
    trust: new WorkspaceTrust(true),
  });
  agentjets.setFolder(resolve(cwd), interp.path);
  const input = await gather({
    python: interp.path,
    pythonSource: python ? '--python' : interp.source,
    script: DOCTOR_PROBE,
    cwd: resolve(cwd),
    port,
    imports: true,
  });
  const checks = evaluate(input);
  const bundled = bundledReleases()
    .map((f) => `AgentJet ${f.release ?? '?'}${f.date ? ` (${f.date})` : ''}`)
    .join(', ');
  const own = (await agentjets.ready(resolve(cwd)))?.label;
  const why = agentjets.problem(resolve(cwd));
  const judge =
    own ??
    (why
      ? t("bundled facts of {0}, the newest that knows a file's keys ({1})", bundled, why)
      : t("bundled facts of {0}, the newest that knows a file's keys (no AgentJet found here or in {1})", bundled, interp.path));
  if (format === 'json') write(JSON.stringify({ python: interp.path, configsJudgedBy: judge, checks, ...summary(checks) }, null, 2) + '\n');
  else write(toText(checks, interp.path) + t('Configs are judged by {0}.', judge) + '\n');
  return summary(checks).errors > 0 ? 1 : 0;
}

export const doctorCommand: CliCommand = {
  name: 'doctor',
  summary: 'check the Python environment (ajet, debugpy, vLLM, GPUs, port)',
  run: (args) => runDoctor(args),
};
