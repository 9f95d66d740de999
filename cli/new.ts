// `agentjet new <template> <folder>`: writes a project from a template (core/templates).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { CliCommand } from './commands';
import { ALL_TEMPLATES as TEMPLATES, conflicts, findTemplate, renderTemplate } from '../core/templates';
import { t } from '../core/l10n';
import { commandArgs } from './args';

function help(): string {
  const list = TEMPLATES.map((x) => `  ${x.id.padEnd(8)} ${t(x.title)}: ${t(x.description)}`).join('\n');
  return t(
    'Usage: agentjet new <template> <folder>\n\nCreates an AgentJet project (config, workflow, judge, task data, README) in <folder>.\nExisting files are never overwritten.\n\nTemplates:\n{0}\n',
    list,
  );
}

export async function runNew(
  args: string[],
  write: (s: string) => void = (s) => process.stdout.write(s),
  writeErr: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  const parsed = commandArgs('new', args, { list: { type: 'boolean' } }, help, write, writeErr);
  if (typeof parsed === 'number') return parsed;
  if (parsed.values.list) {
    for (const x of TEMPLATES) write(`${x.id}\t${t(x.title)}\n`);
    return 0;
  }
  const positional = parsed.positionals;
  const [id, folder] = positional;
  if (!id || !folder || positional.length > 2) {
    writeErr(help());
    return 2;
  }
  const template = findTemplate(id);
  if (!template) {
    writeErr(t("agentjet new: unknown template '{0}' (templates: {1})", id, TEMPLATES.map((x) => x.id).join(', ')) + '\n');
    return 2;
  }
  const dir = resolve(folder);
  const files = renderTemplate(template.id, basename(dir));
  const clash = conflicts(files, (rel) => existsSync(join(dir, rel)));
  if (clash.length) {
    writeErr(t('agentjet new: {0} already has {1}; nothing was written.', dir, clash.join(', ')) + '\n');
    return 1;
  }
  for (const [rel, text] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text, { flag: 'wx' });
  }
  write(t('Created {0} ({1}, {2} files).', dir, t(template.title), Object.keys(files).length) + '\n');
  if (template.id === 'swarm')
    write(t('Next: start a swarm server (ajet-swarm start), then cd {0} && python swarm_client.py (see README.md).', folder) + '\n');
  else
    write(t('Next: cd {0} && agentjet lint config.yaml, then open the folder in VS Code and press F5 to debug a rollout.', folder) + '\n');
  return 0;
}

export const newCommand: CliCommand = {
  name: 'new',
  summary: 'create a project from a template (math, tools, game, swarm)',
  run: (args) => runNew(args),
};
