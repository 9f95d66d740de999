// Completion proposes what the schema knows (a key's default, its allowed values); the checker also
// knows rules across keys (LoRA needs `layered_summon: true`). So that completion never inserts a
// value the checker then rejects, candidates are tried: the document with the candidate in place is
// validated, and a value that draws a problem on its own line is left out (a value) or replaced by
// what the checker's fix sets, else left blank for the user (a key's snippet). One validation for all
// key candidates of a request (they are siblings), one per value candidate (a short list).
import { trial } from './completionTrials';
import type { ConfigDiagnostic } from './diagnostics';
import type { FeatureContext } from './context';

/** Codes about the key itself, not its value: they say nothing of the candidate. */
const KEY_CODES = new Set([
  'unknown-key',
  'unread-key',
  'renamed-key',
  'deprecated-key',
  'missing-required',
  'missing-defaults',
  'yaml-syntax',
]);

/** At most this many value candidates are tried (an enum longer than this is shown as it is). */
const MAX_VALUE_TRIALS = 16;

/** Problems of a value on `line` (0-based), with the value a fix on that line would write. */
function problemsOn(diags: ConfigDiagnostic[], line: number): { rejected: boolean; fixValue?: string } {
  const own = diags.filter(
    (d) => (d.severity === 'error' || d.severity === 'warning') && !KEY_CODES.has(d.code) && d.range.start.line === line,
  );
  if (!own.length) return { rejected: false };
  for (const d of own)
    for (const f of d.fixes ?? [])
      if (f.range && f.range.start.line === line && !f.newText.includes('\n') && f.newText.trim())
        return { rejected: true, fixValue: f.newText };
  return { rejected: true };
}

/**
 * Value candidates at [from, to) of `text`: the ones the checker accepts there. When it rejects
 * every one, all are kept (nothing better to offer; the problem then shows).
 */
export function acceptedValues(text: string, from: number, to: number, values: readonly string[], ctx: FeatureContext): Set<string> {
  if (values.length > MAX_VALUE_TRIALS) return new Set(values);
  const line = text.slice(0, from).split('\n').length - 1;
  const ok = new Set<string>();
  for (const v of values) if (!problemsOn(trial(text.slice(0, from) + v + text.slice(to), ctx), line).rejected) ok.add(v);
  return ok.size ? ok : new Set(values);
}

/**
 * Keys about to be offered at `indent` on the line [lineFrom, lineTo) of `text`, each with the value
 * its snippet would write: for each key the checker rejects with that value, the value its fix
 * writes instead ('' when there is none: the snippet leaves the value blank).
 */
export function rejectedDefaults(
  text: string,
  lineFrom: number,
  lineTo: number,
  indent: string,
  candidates: ReadonlyMap<string, string>,
  ctx: FeatureContext,
): Map<string, string> {
  const out = new Map<string, string>();
  if (!candidates.size) return out;
  const keys = [...candidates.keys()];
  const lines = keys.map((k) => `${indent}${k}: ${candidates.get(k) ?? ''}`);
  const firstLine = text.slice(0, lineFrom).split('\n').length - 1;
  const diags = trial(text.slice(0, lineFrom) + lines.join('\n') + text.slice(lineTo), ctx);
  keys.forEach((k, i) => {
    const r = problemsOn(diags, firstLine + i);
    if (r.rejected) out.set(k, r.fixValue ?? '');
  });
  return out;
}
