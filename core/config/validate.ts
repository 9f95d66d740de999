// Semantic checks of an AgentJet/ASTuner config over the `yaml` parse tree, with exact ranges.
import { isMap, isSeq, isScalar, Scalar, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { schema as defaultSchema, childSchema, typesOf, resolveRef, type SchemaNode, type Family } from './schema';
import { parseConfig, deref, keyString, mapPairs, nodeAt, looksLikeConfig, MAX_SEMANTIC_BYTES, type ParsedConfig } from './parse';
import type { ConfigDiagnostic } from './diagnostics';
import { ClassResolver } from './classref';
import { CachedFs, type ConfigFs } from './fs';
import { DOCUMENT_SUGGEST_BUDGET, nodeRange, push, type Ctx } from './validateContext';
import { checkEssentials, checkCrossFields, checkFileName, checkRoot } from './rules';
import { closeChecks, keep, mark, openChecks, reuse, subtreeKey } from './checkCache';
import { checkEnum, checkClassRef, checkPath, checkInterpolations, reportEmpty, reportTypeMismatch } from './valueChecks';
import { ROOT_NAMES, checkKeyDialect, reportUnknownKey, versionReads } from './keyChecks';
import { PLACEHOLDER_RE, isTemplate, typeOk, valueType } from './valueTypes';
import { versionFromPath, type FrameworkVersion } from '../agentjet/dialect';
import { t } from '../l10n';
import type { ConfigSchema } from './schema';
import type { JudgingFacts } from './releases';
import { checkReleaseRules } from './rulesByRelease';

export interface ValidateOptions {
  /** Folder the launcher runs in: class references and relative paths resolve against it. */
  root?: string;
  fs?: ConfigFs;
  resolver?: ClassResolver;
  dialect?: Family;
  /** The installed framework version, when known; else it is guessed from the file (core/agentjet). */
  version?: FrameworkVersion;
  schema?: SchemaNode;
  /** The AgentJet that judges the file (user's own or bundled); its schema wins over `schema`. */
  facts?: JudgingFacts;
  /** The file's path, when known: run snapshots and the framework's default files are complete on their own. */
  fileName?: string;
}

const sharedFs = new CachedFs();
/** The file cache validation uses when it is given none (completion's trials record what they ask of it). */
export const sharedConfigFs: ConfigFs = sharedFs;

export function validateParsed(p: ParsedConfig, opts: ValidateOptions = {}): ConfigDiagnostic[] {
  const steps = validateSteps(p, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Checks made between two pauses of `validateSteps`. */
const STEP = 256;

/**
 * The validation as steps: it pauses (yields) every few hundred keys, so the language server can
 * answer other requests in between and drop the work when the document changed. `validateParsed`
 * runs it to the end.
 */
export function* validateSteps(p: ParsedConfig, opts: ValidateOptions = {}): Generator<void, ConfigDiagnostic[], void> {
  const out: ConfigDiagnostic[] = [];
  // Syntax errors of every document are reported, ours or not only when the file is ours.
  if (!p.doc) {
    if (p.docs.some((d) => d.errors.length) && looksLikeConfig(p.text)) reportSyntax(p, out);
    return out;
  }
  reportSyntax(p, out);
  if (p.docs.length > 1) {
    const second = p.docs[1] as Document.Parsed;
    const start = second.range?.[0] ?? 0;
    // Point at the `---` marker that starts the second document.
    let marker = p.text.lastIndexOf('\n---', Math.max(0, start));
    marker = marker < 0 ? (p.text.startsWith('---') ? 0 : start) : marker + 1;
    out.push({
      code: 'multi-document',
      severity: 'error',
      message: t('Hydra loads a config as a single YAML document; remove the `---` separated documents.'),
      range: p.index.range(marker, marker + 3),
    });
  }
  const fs = opts.fs ?? sharedFs;
  const schema = (opts.facts?.schema ?? opts.schema ?? defaultSchema) as ConfigSchema;
  const rootMap = p.rootMap as YAMLMap;
  const doc = p.doc;
  const dialect = opts.dialect ?? p.dialect;
  const inheritsDefaults = !!nodeAt(rootMap, doc, ['defaults']);
  const standalone = !!opts.fileName && isFrameworkFile(opts.fileName);
  // A forced dialect (lint --dialect) is judged by the newest version of that generation.
  const version =
    opts.version ??
    (p.rootKey ? versionFromPath(p.rootKey, opts.fileName) : undefined) ??
    (dialect === p.dialect && p.version ? p.version : dialect === 'agentjet' ? 'agentjet' : 'astuner-2025-12');
  const resolver = opts.resolver ?? new ClassResolver(fs);
  // An edited document: the subtrees whose text is the same reuse their last diagnostics (checkCache.ts).
  const sig = [schema, opts.facts, dialect, version, opts.root, standalone, fs, resolver, p.rootKey];
  const kept = p.checks ? openChecks(p, sig, fs, resolver) : undefined;
  // Every field set, in the order of Ctx: one object shape for every pass (fresh or edited, with or without facts).
  const ctx: Ctx = {
    p,
    doc,
    out,
    dialect,
    version,
    root: opts.root,
    fs: kept?.fs ?? fs,
    resolver: kept?.resolver ?? resolver,
    schema,
    facts: opts.facts,
    inheritsDefaults,
    standalone,
    fragment:
      standalone ||
      (!!opts.fileName && /(^|[\\/])default_config[\\/]/.test(opts.fileName)) ||
      (!inheritsDefaults && !setsAnyEssential(p, doc)),
    suggestBudget: DOCUMENT_SUGGEST_BUDGET,
    checks: kept?.session,
  };
  checkFileName(ctx, opts.fileName);
  yield;
  yield* checkMap(ctx, rootMap, schema, []);
  yield;
  checkRoot(ctx);
  checkEssentials(ctx);
  checkCrossFields(ctx);
  checkReleaseRules(ctx);
  closeChecks(ctx.checks);
  return out;
}

/** Run snapshots and the framework's own defaults files (`ajet_default.yaml`, `verl_default.yaml`, ...). */
function isFrameworkFile(fileName: string): boolean {
  return /(^|[\\/])(yaml_backup|\w+_default)\.ya?ml$/.test(fileName);
}

/** Does the document set any launch essential (model, workflow, task reader type)? */
function setsAnyEssential(p: ParsedConfig, doc: Document): boolean {
  const root = p.rootKey ?? 'ajet';
  return [
    ['model', 'path'],
    ['rollout', 'user_workflow'],
    ['rollout', 'agentscope_workflow'],
    ['rollout', 'agentscope_learn_protocol'],
    ['task_reader', 'type'],
  ].some((path) => !!nodeAt(p.rootMap, doc, [root, ...path]));
}

export function validateText(text: string, opts: ValidateOptions = {}): ConfigDiagnostic[] {
  if (text.length > MAX_SEMANTIC_BYTES) return [];
  return validateParsed(parseConfig(text, { dialect: opts.dialect }), opts);
}

function reportSyntax(p: ParsedConfig, out: ConfigDiagnostic[]): void {
  let n = 0;
  for (const d of p.docs) {
    for (const e of d.errors) {
      if (n++ >= 50) return;
      const [s, t] = e.pos ?? [0, 0];
      const msg = e.message.split('\n')[0] ?? e.message;
      let end = t;
      if (end <= s + 1) {
        // Zero-width positions (e.g. duplicate keys) widen to the token that starts there.
        const m = /^[^\s:,[\]{}#]+/.exec(p.text.slice(s, s + 200));
        end = s + (m ? m[0].length : 1);
      }
      out.push({ code: 'yaml-syntax', severity: 'error', message: msg, range: p.index.range(s, Math.min(end, p.text.length)) });
    }
  }
}

let stepCount = 0;

/** Calls of the inner checks, for the test that validation cost grows linearly with the document. */
export const validationWork = { maps: 0, values: 0 };

function* checkMap(ctx: Ctx, map: YAMLMap, sch: SchemaNode, path: string[]): Generator<void, void, void> {
  validationWork.maps++;
  const s = resolveRef(sch);
  const open = s['x-open'];
  const fullyOpen = open === true || (!s.properties && s.additionalProperties !== false);
  const seen = new Map<string, Pair>();
  for (const { pair, merged } of mapPairs(map, ctx.doc)) {
    if (++stepCount % STEP === 0) yield;
    const key = keyString(pair);
    if (key === undefined) continue;
    if (!merged) seen.set(key, pair);
    const keyNode = pair.key as Node;
    const child = childSchema(s, key);
    const value = deref(pair.value, ctx.doc);
    const keyRange = nodeRange(ctx, keyNode);
    // Keys this version's own defaults or code use are right whatever the AgentJet schema says.
    const versionKnows = ROOT_NAMES.has(path[0] ?? '') && versionReads(ctx, [...path.slice(1), key]);
    if (!child) {
      if (merged || fullyOpen || versionKnows) continue;
      reportUnknownKey(ctx, s, key, keyRange, path, open);
      continue;
    }
    if (!merged && !(versionKnows && child['x-dialect'])) checkKeyDialect(ctx, key, child, keyRange, path);
    if (!merged && child['x-unread'] && !ctx.standalone) push(ctx, 'unread-key', 'warning', t(child['x-unread']), keyRange);
    const at = ctx.checks && subtreeKey(ctx.checks, ctx.p, pair, path, key);
    if (at && ctx.checks && reuse(ctx.checks, at, ctx.out)) continue;
    const before = ctx.checks && mark(ctx.checks, ctx.out);
    yield* checkValue(ctx, value, child, [...path, key], pair);
    if (at && before && ctx.checks) keep(ctx.checks, at, before, ctx.out);
  }
  void seen;
}

function* checkValue(ctx: Ctx, value: Node | null, sch: SchemaNode, path: string[], pair?: Pair): Generator<void, void, void> {
  validationWork.values++;
  const s = resolveRef(sch);
  const raw = pair ? (pair.value as Node | null) : value;
  const range = raw?.range ? nodeRange(ctx, raw) : pair ? nodeRange(ctx, pair.key as Node) : nodeRange(ctx, value);
  const name = path.join('.');
  if (isTemplate(ctx, value)) {
    push(ctx, 'placeholder', 'information', t('Template placeholder in `{0}`: fill it in before launching.', name), range);
    return;
  }
  const types = typesOf(s);
  const vt = valueType(value);
  const str = isScalar(value) && typeof value.value === 'string' ? value.value : undefined;

  if (str !== undefined && str.includes('${')) {
    checkInterpolations(ctx, value as Scalar, path);
    if (/^\$\{[^}]*\}$/.test(str.trim())) return; // whole value comes from elsewhere
  }

  if (vt === 'null') {
    reportEmpty(ctx, raw, s, types, name, range, pair);
    return;
  }

  if (types.length && !typeOk(vt, types, ctx, value)) {
    reportTypeMismatch(ctx, value, str, vt, types, name, range);
    return;
  }

  if (isScalar(value) && s.enum && (vt === 'string' || vt === 'integer' || vt === 'number' || vt === 'boolean'))
    checkEnum(ctx, value, s, name, range);
  if (str !== undefined) {
    // Defaults files hold placeholders by design: the user's config replaces them.
    if (PLACEHOLDER_RE.test(str.trim())) {
      if (!ctx.standalone)
        push(ctx, 'placeholder', 'warning', t('`{0}` still holds the placeholder `{1}`; set a real value.', name, str), range);
    } else if (s['x-classRef']) checkClassRef(ctx, value as Scalar, str);
    else if (s['x-pathKind']) checkPath(ctx, value as Scalar, str, s['x-pathKind']);
  }
  if (isMap(value)) {
    if (types.length === 0 || types.includes('object') || s.properties) yield* checkMap(ctx, value, s, path);
  } else if (isSeq(value)) {
    const item = s.items ? resolveRef(s.items) : undefined;
    for (let i = 0; i < value.items.length; i++) {
      if (++stepCount % STEP === 0) yield;
      const n = deref(value.items[i], ctx.doc);
      if (item) yield* checkValue(ctx, n, item, [...path, String(i)], undefined);
      // With an item schema, checkValue has checked the item's interpolations (relative to the item).
      if (!item && isScalar(n) && typeof n.value === 'string' && n.value.includes('${')) checkInterpolations(ctx, n as Scalar, path);
      if (
        isScalar(n) &&
        typeof n.value === 'string' &&
        s['x-pathKind'] === 'files' &&
        !PLACEHOLDER_RE.test(n.value.trim()) &&
        !isTemplate(ctx, n)
      )
        checkPath(ctx, n as Scalar, n.value, 'file');
    }
  }
}

export { nodeAt };
