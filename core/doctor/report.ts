// Renders checks as Markdown (the VS Code report) or plain text (the CLI).
import type { Check, Status } from './checks';
import { summary } from './checks';
import { t } from '../l10n';

// Plain symbols (not emoji): they render with the editor's usual fonts everywhere.
const ICON: Record<Status, string> = { ok: '✔', warning: '⚠', error: '✖', info: 'ℹ' };
// The text report's status column, in the display language, padded to one width (CJK takes two cells).
function statusText(s: Status): string {
  const words: Record<Status, string> = { ok: t('ok'), warning: t('warn'), error: t('ERROR'), info: t('info') };
  const cells = (w: string) => [...w].reduce((n, ch) => n + (/[\u2e80-\u9fff\uff00-\uffef]/.test(ch) ? 2 : 1), 0);
  const width = Math.max(...Object.values(words).map(cells));
  return words[s] + ' '.repeat(width - cells(words[s]));
}

function fixText(c: Check): string | undefined {
  if (!c.fix) return undefined;
  if (c.fix.kind === 'shell') return c.fix.value;
  if (c.fix.kind === 'setting') return t('setting {0}', c.fix.value);
  return t('command {0}', c.fix.value);
}

/** Escapes Markdown so paths and messages show as written. */
function md(s: string): string {
  return s.replace(/[\\`*_{}[\]<>#|]/g, (c) => `\\${c}`);
}

export function toMarkdown(checks: readonly Check[], python: string): string {
  const s = summary(checks);
  const lines = [
    `# ${t('AgentJet environment')}`,
    '',
    md(t('Interpreter: {0}', python)),
    '',
    s.errors || s.warnings ? md(t('{0} error(s), {1} warning(s).', s.errors, s.warnings)) : t('Everything AgentJet needs is in place.'),
    '',
  ];
  // Several findings share one fix (AgentJet's install brings vLLM and verl too): the command is
  // shown once, where it first applies, and the others point back to it.
  const shownAt = new Map<string, string>();
  for (const c of checks) {
    lines.push(`## ${ICON[c.status]} ${md(c.title)}`, '', md(c.detail), '');
    const first = c.fix?.kind === 'shell' ? shownAt.get(c.fix.value) : undefined;
    if (c.fix?.kind === 'shell' && first === undefined) shownAt.set(c.fix.value, c.title);
    if (first !== undefined) lines.push(md(t('The install command under "{0}" above fixes this too.', first)), '');
    else if (c.fix) {
      if (c.fix.kind === 'shell')
        lines.push(
          `${md(c.fix.label)}: [${md(t('Copy'))}](command:agentjet.copyInstallCommand?${encodeURIComponent(JSON.stringify([c.fix.value]))})`,
          '',
          '```sh',
          c.fix.value,
          '```',
          '',
        );
      else if (c.fix.kind === 'setting')
        lines.push(
          `${md(c.fix.label)}: [${md(c.fix.value)}](command:workbench.action.openSettings?${encodeURIComponent(JSON.stringify(c.fix.value))})`,
          '',
        );
      else lines.push(`[${md(c.fix.label)}](command:${c.fix.value})`, '');
    }
  }
  return lines.join('\n');
}

export function toText(checks: readonly Check[], python: string): string {
  const s = summary(checks);
  const out = [t('AgentJet environment (interpreter: {0})', python)];
  const shownAt = new Map<string, string>();
  for (const c of checks) {
    out.push(`  ${statusText(c.status)} ${c.title}: ${c.detail}`);
    const f = fixText(c);
    const first = f !== undefined && c.fix?.kind === 'shell' ? shownAt.get(f) : undefined;
    if (first !== undefined) out.push(`        ${t('fix')}: ${t('the install command under "{0}" above', first)}`);
    else if (f) {
      if (c.fix?.kind === 'shell') shownAt.set(f, c.title);
      out.push(`        ${t('fix')}: ${f}`);
    }
  }
  out.push(s.errors || s.warnings ? t('{0} error(s), {1} warning(s).', s.errors, s.warnings) : t('Everything AgentJet needs is in place.'));
  return out.join('\n') + '\n';
}
