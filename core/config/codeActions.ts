// Quick fixes and refactorings (migrate an ASTuner config, add Hydra boilerplate).
import { isMap, isScalar, type Node, type YAMLMap, type Document } from 'yaml';
import { schema, childSchema, type SchemaNode } from './schema';
import { deref, keyString, nodeAt, type ParsedConfig } from './parse';
import type { Range } from './text';
import type { Fix } from './diagnostics';
import { t } from '../l10n';
import { changesFor, newestBundled, updateEdits } from './rulesByRelease';
import type { JudgingFacts } from './releases';

// ---------------------------------------------------------------- code actions

export interface TextEditOffsets {
  start: number;
  end: number;
  newText: string;
}
export interface Action {
  title: string;
  kind: 'quickfix' | 'refactor.rewrite';
  edits: { range: Range; newText: string }[];
  preferred?: boolean;
  diagnosticCode?: string;
}

/** Quick fixes carried by diagnostics (typo fixes, renames, enum fixes). */
export function fixActions(diags: { code: string; range: Range; fixes?: Fix[] }[]): Action[] {
  const out: Action[] = [];
  for (const d of diags)
    for (const f of d.fixes ?? [])
      out.push({
        title: f.title,
        kind: 'quickfix',
        edits: [{ range: f.range ?? d.range, newText: f.newText }],
        preferred: f.preferred,
        diagnosticCode: d.code,
      });
  return out;
}

/** Edits that rewrite an ASTuner config (or one with ASTuner names) into AgentJet's dialect. */
export function migrateEdits(p: ParsedConfig): { range: Range; newText: string }[] {
  const edits: TextEditOffsets[] = [];
  if (!p.doc || !p.rootMap) return [];
  const doc = p.doc;
  const text = p.text;
  const rootPair = p.rootMap.items.find((x) => keyString(x) === p.rootKey);
  if (rootPair && p.rootKey !== 'ajet' && (rootPair.key as Node).range) {
    const r = (rootPair.key as Node).range as [number, number, number];
    edits.push({ start: r[0], end: r[1], newText: 'ajet' });
  }
  const visit = (map: YAMLMap, sch: SchemaNode | undefined, depth: number) => {
    if (depth > 16) return;
    for (const pair of map.items) {
      const key = keyString(pair);
      if (key === undefined) continue;
      const ks = sch ? childSchema(sch, key) : undefined;
      const kr = (pair.key as Node).range;
      if (ks?.['x-dialect'] === 'astuner' && kr) {
        if (ks['x-renamedTo'] && !ks['x-movedTo']) edits.push({ start: kr[0], end: kr[1], newText: ks['x-renamedTo'] });
        else if (ks.deprecated) {
          // Drop a single-line key the new dialect does not read (e.g. use_agentscope_protocol).
          const v = pair.value as Node | null;
          const end = v?.range ? v.range[1] : kr[1];
          const ls = text.lastIndexOf('\n', kr[0] - 1) + 1;
          let le = text.indexOf('\n', end);
          le = le < 0 ? text.length : le + 1;
          if (!text.slice(kr[0], end).includes('\n') && /^\s*$/.test(text.slice(ls, kr[0])))
            edits.push({ start: ls, end: le, newText: '' });
        }
      }
      const v = pair.value as Node | null;
      if (isMap(v)) visit(v, ks, depth + 1);
      else if (isScalar(v) && typeof v.value === 'string' && v.range && ks) {
        const ren = ks['x-enumRenamed']?.[v.value];
        const quoted = text[v.range[0]] === '"' || text[v.range[0]] === "'";
        const s0 = v.range[0] + (quoted ? 1 : 0);
        if (ren) edits.push({ start: s0, end: s0 + v.value.length, newText: ren });
        else if (ks['x-classRef'] && /^(astuner|astune)\./.test(v.value)) {
          const n = (/^(astuner|astune)/.exec(v.value) as RegExpExecArray)[0].length;
          edits.push({ start: s0, end: s0 + n, newText: 'ajet' });
        }
      }
    }
  };
  const rootVal = rootPair ? deref(rootPair.value, doc) : null;
  if (isMap(rootVal)) visit(rootVal, childSchema(schema, 'ajet'), 0);
  // Hydra wiring: search path and defaults name the ASTuner package.
  const re = /(file:\/\/)(astuner|astune)(\/default_config)|^(\s*-\s*)(astuner_default|astune_default)\b/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const [, scheme, pkg = '', , dash = '', name = ''] = m;
    if (scheme) edits.push({ start: m.index + scheme.length, end: m.index + scheme.length + pkg.length, newText: 'ajet' });
    else edits.push({ start: m.index + dash.length, end: m.index + dash.length + name.length, newText: 'ajet_default' });
  }
  edits.sort((a, b) => a.start - b.start);
  const clean = edits.filter((e, i) => i === 0 || e.start >= (edits[i - 1] as TextEditOffsets).end);
  return clean.map((e) => ({ range: p.index.range(e.start, e.end), newText: e.newText }));
}

export function hasAstunerContent(p: ParsedConfig): boolean {
  if (p.dialect === 'astuner' || (p.rootKey && p.rootKey !== 'ajet')) return true;
  return migrateEdits(p).length > 0;
}

/** Appends the Hydra `searchpath` and `defaults` blocks a composed config needs. */
export function hydraBoilerplateEdit(p: ParsedConfig): { range: Range; newText: string } | undefined {
  if (!p.rootMap || !p.doc) return undefined;
  const doc: Document = p.doc;
  const hasHydra = !!nodeAt(p.rootMap, doc, ['hydra', 'searchpath']);
  const hasDefaults = !!nodeAt(p.rootMap, doc, ['defaults']);
  if (hasHydra && hasDefaults) return undefined;
  const eol = p.text.includes('\r\n') ? '\r\n' : '\n';
  const pkg = p.dialect === 'astuner' ? 'astuner' : 'ajet';
  const parts: string[] = [];
  if (!hasHydra && !nodeAt(p.rootMap, doc, ['hydra']))
    parts.push(
      [
        'hydra:',
        '  searchpath:',
        `    - file://${pkg}/default_config`,
        `    - file://${pkg}/default_config/verl`,
        `    - file://${pkg}/default_config/trinity`,
      ].join(eol),
    );
  if (!hasDefaults) parts.push(['defaults:', '  - verl_default', '  - trinity_default', `  - ${pkg}_default`, '  - _self_'].join(eol));
  if (!parts.length) return undefined;
  const end = p.text.length;
  const lead = p.text.length === 0 || p.text.endsWith('\n') ? '' : eol;
  return { range: p.index.range(end, end), newText: lead + eol + parts.join(eol + eol) + eol };
}

export function refactorActions(p: ParsedConfig, facts?: JudgingFacts): Action[] {
  const out: Action[] = [];
  // Keys the judging AgentJet (else the newest bundled one) renamed or dropped, rewritten at once;
  // nothing is offered when it still reads them (core/config/releaseRules.ts KEY_CHANGES).
  const target = facts ?? newestBundled();
  const up = updateEdits(p, target);
  if (up.length) {
    const release = target.release ?? changesFor(target)[0]?.release ?? '?';
    out.push({ title: t('Update this config to AgentJet {0}', release), kind: 'refactor.rewrite', edits: up });
  }
  if (hasAstunerContent(p)) {
    const edits = migrateEdits(p);
    if (edits.length) out.push({ title: t('Migrate this ASTuner config to AgentJet'), kind: 'refactor.rewrite', edits });
  }
  const hb = hydraBoilerplateEdit(p);
  if (hb) out.push({ title: t('Add Hydra boilerplate (searchpath and defaults)'), kind: 'refactor.rewrite', edits: [hb] });
  return out;
}

/** All code actions for a range: fixes of the given diagnostics, then whole-file rewrites. */
export function codeActions(p: ParsedConfig, diags: { code: string; range: Range; fixes?: Fix[] }[], facts?: JudgingFacts): Action[] {
  const out = fixActions(diags);
  const hb = hydraBoilerplateEdit(p);
  for (const d of diags)
    if (d.code === 'missing-defaults' && hb)
      out.push({
        title: t('Add Hydra boilerplate (searchpath and defaults)'),
        kind: 'quickfix',
        edits: [hb],
        preferred: true,
        diagnosticCode: d.code,
      });
  return [...out, ...refactorActions(p, facts)];
}
