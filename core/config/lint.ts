// MINIMAL placeholder for the config feature's linter (issue 3 replaces this file at merge).
// Same signature as agreed in CONTRACTS.md; checks only what the debug preflight needs:
// YAML syntax errors, a missing root key and a missing workflow reference.
import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument, isMap } from 'yaml';

export interface LintDiagnostic {
  code: string;
  severity: 'error' | 'warning' | 'information' | 'hint';
  message: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

export async function lintFile(path: string, opts?: { root?: string }): Promise<LintDiagnostic[]> {
  void opts;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    return [diag('file-unreadable', `cannot read ${path}: ${(e as Error).message}`, 0, 0)];
  }
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: false });
  const out: LintDiagnostic[] = [];
  for (const e of doc.errors) {
    const pos = lc.linePos(e.pos[0]);
    out.push(diag('yaml-syntax', e.message.split('\n')[0]!, pos.line - 1, pos.col - 1));
  }
  if (out.length) return out;
  const top = doc.contents;
  const rootKey = ['ajet', 'astuner', 'astune'].find((k) => isMap(top) && isMap(top.get(k, true)));
  if (!rootKey) return [diag('missing-root', 'no `ajet:` (or `astuner:`) root key: this is not an AgentJet config', 0, 0)];
  const wf = rootKey === 'ajet'
    ? doc.getIn(['ajet', 'rollout', 'user_workflow'])
    : doc.getIn([rootKey, 'rollout', 'agentscope_workflow']) ?? doc.getIn([rootKey, 'rollout', 'agentscope_learn_protocol']);
  if (typeof wf !== 'string' || !wf.trim()) {
    const key = rootKey === 'ajet' ? 'ajet.rollout.user_workflow' : `${rootKey}.rollout.agentscope_workflow`;
    out.push(diag('missing-workflow', `${key} is not set: the launcher has no workflow to run`, 0, 0));
  }
  return out;
}

function diag(code: string, message: string, line: number, character: number): LintDiagnostic {
  return { code, severity: 'error', message, range: { start: { line, character }, end: { line, character: character + 1 } } };
}
