// Semantic checks of an AgentJet/ASTuner config over the `yaml` parse tree, with exact ranges.
import { isMap, isSeq, isScalar, isAlias, Scalar, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { isAbsolute, join } from 'node:path';
import { schema as defaultSchema, childSchema, typesOf, resolveRef, inDialect, type SchemaNode, type Family, type JsonType } from './schema';
import { parseConfig, deref, keyString, mapPairs, nodeAt, looksLikeConfig, MAX_SEMANTIC_BYTES, type ParsedConfig } from './parse';
import { suggest, type Range } from './text';
import type { ConfigDiagnostic, Fix, Severity } from './diagnostics';
import { ClassResolver, parseClassRef } from './classref';
import { CachedFs, type ConfigFs } from './fs';
import { frameworkName, type FrameworkVersion } from '../agentjet/dialect';

export interface ValidateOptions {
  /** Folder the launcher runs in: class references and relative paths resolve against it. */
  root?: string;
  fs?: ConfigFs;
  resolver?: ClassResolver;
  dialect?: Family;
  /** The installed framework version, when known; else it is guessed from the file (core/agentjet). */
  version?: FrameworkVersion;
  schema?: SchemaNode;
  /** The file's path, when known: run snapshots and the framework's default files are complete on their own. */
  fileName?: string;
}

interface Ctx {
  p: ParsedConfig;
  doc: Document;
  out: ConfigDiagnostic[];
  dialect: Family;
  /** The framework version whose code reads this file. */
  version: FrameworkVersion;
  root?: string;
  fs: ConfigFs;
  resolver: ClassResolver;
  schema: SchemaNode;
  inheritsDefaults: boolean;
  /** A run snapshot or a framework defaults file: complete on its own, written by the framework. */
  standalone: boolean;
  /** A piece merged into or read by something else (defaults file, Hydra piece, data-generation
   * config): the launch essentials are not demanded of it. */
  fragment: boolean;
}

const sharedFs = new CachedFs();

function nodeRange(ctx: Ctx, n: { range?: [number, number, number?] | null } | null | undefined, fallback?: Range): Range {
  if (n?.range) return ctx.p.index.range(n.range[0], n.range[1]);
  return fallback ?? ctx.p.index.range(0, 0);
}

function push(ctx: Ctx, code: string, severity: Severity, message: string, range: Range, fixes?: Fix[]): void {
  const d: ConfigDiagnostic = { code, severity, message, range };
  if (fixes?.length) d.fixes = fixes;
  ctx.out.push(d);
}

function valueType(n: Node | null): JsonType {
  if (n === null || n === undefined) return 'null';
  if (isMap(n)) return 'object';
  if (isSeq(n)) return 'array';
  if (isScalar(n)) {
    const v = n.value;
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'boolean') return 'boolean';
    if (typeof v === 'number' || typeof v === 'bigint') return Number.isInteger(Number(v)) ? 'integer' : 'number';
    return 'string';
  }
  return 'null';
}

function srcText(ctx: Ctx, n: Node | null): string {
  return n?.range ? ctx.p.text.slice(n.range[0], n.range[1]) : '';
}

/** `{{NAME}}` template markers (jinja-style) that another tool fills in before launch. */
function isTemplate(ctx: Ctx, n: Node | null): boolean {
  if (!n) return false;
  if (isScalar(n)) return typeof n.value === 'string' && /\{\{\s*[\w.-]+\s*\}\}/.test(n.value);
  // Unquoted `{{NAME}}` parses as a flow mapping holding a flow mapping.
  return isMap(n) && !!n.flow && /^\{\{\s*[\w.-]+\s*\}\}$/.test(srcText(ctx, n).trim());
}

const PLACEHOLDER_RE = /^\/path\/to\/|^your[_-]|\/your[_-]|^xxx+(\.|$)/i;

/** Validates a parsed config. Returns [] for a document that is not an AgentJet/ASTuner config. */
export function validateParsed(p: ParsedConfig, opts: ValidateOptions = {}): ConfigDiagnostic[] {
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
    out.push({ code: 'multi-document', severity: 'error', message: 'Hydra loads a config as a single YAML document; remove the `---` separated documents.', range: p.index.range(marker, marker + 3) });
  }
  const fs = opts.fs ?? sharedFs;
  const schema = opts.schema ?? defaultSchema;
  const rootMap = p.rootMap as YAMLMap;
  const doc = p.doc;
  const dialect = opts.dialect ?? p.dialect;
  const inheritsDefaults = !!nodeAt(rootMap, doc, ['defaults']);
  const standalone = !!opts.fileName && isFrameworkFile(opts.fileName);
  const ctx: Ctx = {
    p, doc, out, dialect, root: opts.root, fs,
    // A forced dialect (lint --dialect) is judged by the newest version of that generation.
    version: opts.version ?? (dialect === p.dialect && p.version ? p.version : dialect === 'agentjet' ? 'agentjet' : 'astuner-2025-12'),
    resolver: opts.resolver ?? new ClassResolver(fs), schema,
    inheritsDefaults, standalone,
    fragment: standalone || (!!opts.fileName && /(^|[\\/])default_config[\\/]/.test(opts.fileName)) || (!inheritsDefaults && !setsAnyEssential(p, doc)),
  };
  checkFileName(ctx, opts.fileName);
  checkMap(ctx, rootMap, schema, []);
  checkRoot(ctx);
  checkEssentials(ctx);
  checkCrossFields(ctx);
  return out;
}

/** Run snapshots and the framework's own defaults files (`ajet_default.yaml`, `verl_default.yaml`, ...). */
function isFrameworkFile(fileName: string): boolean {
  return /(^|[\\/])(yaml_backup|\w+_default)\.ya?ml$/.test(fileName);
}

/** Does the document set any launch essential (model, workflow, task reader type)? */
function setsAnyEssential(p: ParsedConfig, doc: Document): boolean {
  const root = p.rootKey ?? 'ajet';
  return [['model', 'path'], ['rollout', 'user_workflow'], ['rollout', 'agentscope_workflow'], ['rollout', 'agentscope_learn_protocol'], ['task_reader', 'type']]
    .some((path) => !!nodeAt(p.rootMap, doc, [root, ...path]));
}

/** The launchers of every version assert `yaml_path.endswith(".yaml")` (utils/config_utils.py). */
function checkFileName(ctx: Ctx, fileName: string | undefined): void {
  if (!fileName || !/\.yml$/i.test(fileName) || ctx.standalone || ctx.fragment) return;
  const root = nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx)]);
  push(ctx, 'launcher/yml-extension', 'error', `The ${frameworkName(ctx.version)} launcher only accepts files ending in \`.yaml\` (it asserts \`yaml_path.endswith(".yaml")\`); rename this file to \`.yaml\` to launch it.`, nodeRange(ctx, root?.pair.key as Node));
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

function checkRoot(ctx: Ctx): void {
  const key = ctx.p.rootKey;
  if (!key || key === 'ajet') return;
  if (ctx.dialect === 'agentjet') {
    const pair = nodeAt(ctx.p.rootMap, ctx.doc, [key]);
    if (pair) push(ctx, 'renamed-key', 'warning', `\`${key}:\` is the ASTuner root; AgentJet reads \`ajet:\`.`, nodeRange(ctx, pair.pair.key as Node), [{ title: 'Rename to `ajet`', newText: 'ajet', preferred: true }]);
  }
}

/** Labels of the keys under a schema node that exist in this dialect. */
function knownKeys(node: SchemaNode, dialect: Family): string[] {
  return Object.entries(resolveRef(node).properties ?? {}).filter(([, v]) => inDialect(v, dialect)).map(([k]) => k);
}

function checkMap(ctx: Ctx, map: YAMLMap, sch: SchemaNode, path: string[]): void {
  const s = resolveRef(sch);
  const open = s['x-open'];
  const fullyOpen = open === true || (!s.properties && s.additionalProperties !== false);
  const seen = new Map<string, Pair>();
  for (const { pair, merged } of mapPairs(map, ctx.doc)) {
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
      const sugg = suggest(key, knownKeys(s, ctx.dialect));
      const where = path.length ? `\`${path.join('.')}\`` : 'the top level';
      const home = !sugg.length && ROOT_NAMES.has(path[0] ?? '') ? homesOf(ctx.schema, key, ctx.dialect) : [];
      if (home.length) {
        push(ctx, 'unknown-key', 'warning', `\`${key}\` is not a key of ${where}; it belongs under \`${home.map((h) => `${path[0]}.${h}`).join('` or `')}\`.`, keyRange);
      } else if (sugg.length) {
        push(ctx, 'unknown-key', 'warning', `Unknown key \`${key}\` in ${where}. Did you mean \`${sugg[0]}\`?`, keyRange,
          sugg.map((x, i) => ({ title: `Change to \`${x}\``, newText: x, preferred: i === 0 })));
      } else if (open === 'info') {
        push(ctx, 'unknown-key', 'information', `\`${key}\` is not a setting the framework reads in ${where}; fine if your own code reads it.`, keyRange);
      } else {
        push(ctx, 'unknown-key', 'warning', `Unknown key \`${key}\` in ${where}; the framework ignores it.`, keyRange);
      }
      continue;
    }
    if (!merged && !(versionKnows && child['x-dialect'])) checkKeyDialect(ctx, key, child, keyRange, path);
    if (!merged && child['x-unread'] && !ctx.standalone) push(ctx, 'unread-key', 'warning', child['x-unread'], keyRange);
    checkValue(ctx, value, child, [...path, key], pair);
  }
  void seen;
}

const ROOT_NAMES = new Set(['ajet', 'astuner', 'astune']);
const versionKeySets = new WeakMap<SchemaNode, Map<string, Set<string>>>();

/** Does this framework version declare or read `<root>.<rel>` (x-versionKeys, from its code)? */
function versionReads(ctx: Ctx, rel: string[]): boolean {
  const all = (ctx.schema as { 'x-versionKeys'?: Record<string, string[]> })['x-versionKeys'];
  if (!all) return false;
  let byVersion = versionKeySets.get(ctx.schema);
  if (!byVersion) { byVersion = new Map(); versionKeySets.set(ctx.schema, byVersion); }
  let set = byVersion.get(ctx.version);
  if (!set) { set = new Set(all[ctx.version] ?? []); byVersion.set(ctx.version, set); }
  return set.has(rel.join('.'));
}
let homeIndex: { schema: SchemaNode; dialect: Family; map: Map<string, string[]> } | undefined;

/** Sections of the ajet tree that declare `key` (for keys put in the wrong section). */
function homesOf(root: SchemaNode, key: string, dialect: Family): string[] {
  if (homeIndex?.schema !== root || homeIndex.dialect !== dialect) {
    const map = new Map<string, string[]>();
    const walk = (n: SchemaNode, path: string[], depth: number) => {
      if (depth > 6) return;
      for (const [k, v] of Object.entries(resolveRef(n).properties ?? {})) {
        if (!inDialect(v, dialect) || v.deprecated) continue;
        if (path.length) map.set(k, [...(map.get(k) ?? []), path.join('.')]);
        walk(v, [...path, k], depth + 1);
      }
    };
    const ajet = childSchema(root, 'ajet');
    if (ajet) walk(ajet, [], 0);
    homeIndex = { schema: root, dialect, map };
  }
  const homes = homeIndex.map.get(key) ?? [];
  return homes.length <= 3 ? homes : [];
}

function checkKeyDialect(ctx: Ctx, key: string, child: SchemaNode, keyRange: Range, path: string[]): void {
  const d = child['x-dialect'];
  if (d && d !== ctx.dialect) {
    const other = child['x-movedTo'] ?? child['x-renamedTo'];
    const theirs = d === 'astuner' ? 'ASTuner' : 'AgentJet';
    const ours = ctx.dialect === 'astuner' ? 'ASTuner' : 'AgentJet';
    if (child['x-movedTo'] && ctx.dialect === 'agentjet') {
      push(ctx, 'renamed-key', 'warning', `\`${key}\` is the ${theirs} name; ${ours} reads \`${other}\` instead.`, keyRange);
    } else if (other) {
      push(ctx, 'renamed-key', 'warning', `\`${key}\` is the ${theirs} name; ${ours} reads \`${other}\`.`, keyRange, [{ title: `Rename to \`${other}\``, newText: other, preferred: true }]);
    } else {
      push(ctx, 'deprecated-key', 'warning', child['x-deprecatedMessage'] ?? `\`${key}\` is only read by ${theirs}.`, keyRange);
    }
    return;
  }
  // The framework's own defaults files and run snapshots list every key, old ones included.
  if (child.deprecated && !d && ctx.dialect === 'agentjet' && !ctx.standalone) push(ctx, 'deprecated-key', 'warning', child['x-deprecatedMessage'] ?? `\`${[...path, key].join('.')}\` is deprecated.`, keyRange);
}

function checkValue(ctx: Ctx, value: Node | null, sch: SchemaNode, path: string[], pair?: Pair): void {
  const s = resolveRef(sch);
  const raw = pair ? (pair.value as Node | null) : value;
  const range = raw?.range ? nodeRange(ctx, raw) : pair ? nodeRange(ctx, pair.key as Node) : nodeRange(ctx, value);
  const name = path.join('.');
  if (isTemplate(ctx, value)) {
    push(ctx, 'placeholder', 'information', `Template placeholder in \`${name}\`: fill it in before launching.`, range);
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
    const empty = !raw || (isScalar(raw) && srcText(ctx, raw).trim() === '');
    const expectsScalar = types.length > 0 && !types.includes('null') && !types.includes('object') && !types.includes('array');
    if (empty && expectsScalar && s.default !== null && s.default !== undefined) {
      const keyNode = pair?.key as Node | undefined;
      const fixes: Fix[] = [];
      if (keyNode?.range) {
        // Replace `key:` with `key: default`.
        const colon = ctx.p.text.indexOf(':', keyNode.range[1]);
        if (colon >= 0) fixes.push({ title: `Set the default (${JSON.stringify(s.default)})`, newText: `${srcText(ctx, keyNode)}: ${yamlScalar(s.default)}`, range: ctx.p.index.range(keyNode.range[0], colon + 1), preferred: true });
      }
      push(ctx, 'empty-value', 'warning', `\`${name}\` has no value, so it becomes null; the default is \`${JSON.stringify(s.default)}\`.`, keyNode ? nodeRange(ctx, keyNode) : range, fixes);
    }
    return;
  }

  if (types.length && !typeOk(vt, types, ctx, value)) {
    const want = types.filter((t) => t !== 'null').join(' or ');
    if (str !== undefined && /^(none|null|~)$/i.test(str.trim())) {
      push(ctx, 'type-mismatch', 'warning', `\`${str}\` is read as the string "${str}", not as null; write \`null\`.`, range, [{ title: 'Write `null`', newText: 'null', preferred: true }]);
      return;
    }
    const soft = types.includes('string') && (vt === 'integer' || vt === 'number' || vt === 'boolean');
    const fixes: Fix[] = [];
    if (vt === 'string' && str !== undefined) {
      const coerced = coerce(str, types);
      if (coerced !== undefined) fixes.push({ title: `Write ${coerced} without quotes`, newText: coerced, preferred: true });
    }
    push(ctx, 'type-mismatch', soft ? 'warning' : 'error', `\`${name}\` expects ${want}, got ${describe(vt)}${isScalar(value) ? ` \`${srcText(ctx, value)}\`` : ''}.`, range, fixes);
    return;
  }

  if (isScalar(value) && s.enum && (vt === 'string' || vt === 'integer' || vt === 'number' || vt === 'boolean')) checkEnum(ctx, value, s, name, range);
  if (str !== undefined) {
    // Defaults files hold placeholders by design: the user's config replaces them.
    if (PLACEHOLDER_RE.test(str.trim())) { if (!ctx.standalone) push(ctx, 'placeholder', 'warning', `\`${name}\` still holds the placeholder \`${str}\`; set a real value.`, range); }
    else if (s['x-classRef']) checkClassRef(ctx, value as Scalar, str);
    else if (s['x-pathKind']) checkPath(ctx, value as Scalar, str, s['x-pathKind']);
  }
  if (isMap(value)) {
    if (types.length === 0 || types.includes('object') || s.properties) checkMap(ctx, value, s, path);
  } else if (isSeq(value)) {
    const item = s.items ? resolveRef(s.items) : undefined;
    value.items.forEach((it, i) => {
      const n = deref(it, ctx.doc);
      if (item) checkValue(ctx, n, item, [...path, String(i)], undefined);
      if (isScalar(n) && typeof n.value === 'string' && n.value.includes('${')) checkInterpolations(ctx, n as Scalar, path);
      if (isScalar(n) && typeof n.value === 'string' && s['x-pathKind'] === 'files' && !PLACEHOLDER_RE.test(n.value.trim()) && !isTemplate(ctx, n)) checkPath(ctx, n as Scalar, n.value, 'file');
    });
  }
}

function typeOk(vt: JsonType, types: JsonType[], ctx: Ctx, value: Node | null): boolean {
  if (types.includes(vt)) {
    // `1.0` where an integer is expected is a float in Python.
    if (vt === 'integer' && !types.includes('number') && /[.eE]/.test(srcText(ctx, value)) && !/^0x/i.test(srcText(ctx, value))) return false;
    return true;
  }
  if (vt === 'integer' && types.includes('number')) return true;
  if (vt === 'number' && types.includes('integer')) return false;
  return false;
}

function describe(t: JsonType): string {
  return t === 'object' ? 'a mapping' : t === 'array' ? 'a list' : t === 'integer' ? 'an integer' : `a ${t}`;
}

function coerce(s: string, types: JsonType[]): string | undefined {
  const t = s.trim();
  if ((types.includes('integer') || types.includes('number')) && /^[-+]?\d+$/.test(t)) return t;
  if (types.includes('number') && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return t;
  if (types.includes('boolean') && /^(true|false)$/i.test(t)) return t.toLowerCase();
  return undefined;
}

export function yamlScalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return /^[\w./@+-]*$/.test(v) && !/^(true|false|null|yes|no|on|off|~|[-+.\d].*)$/i.test(v) && v !== '' ? v : JSON.stringify(v);
  if (Array.isArray(v) || typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function checkEnum(ctx: Ctx, value: Scalar, s: SchemaNode, name: string, range: Range): void {
  const v = value.value as string | number | boolean;
  // The values the code of this version accepts, when known; else the schema's (AgentJet's) list.
  const byVersion = s['x-enumByVersion']?.[ctx.version];
  const allowed: (string | number | boolean | null)[] = byVersion ?? s.enum ?? [];
  if (allowed.includes(v)) return;
  const soft = s['x-enumSeverity'] === 'warning';
  const renamed = s['x-enumRenamed'] ?? {};
  const sv = String(v);
  // A spelling of another version: the code of this one rejects it (an error when the code raises).
  const to = sv in renamed ? renamed[sv] as string : Object.entries(renamed).find(([, b]) => b === sv)?.[0];
  if (to !== undefined) {
    if (!byVersion && ctx.dialect === 'astuner' && sv in renamed) return; // no per-version list: the ASTuner spelling stands
    if (!byVersion || allowed.includes(to)) {
      const other = sv in renamed ? 'the older (ASTuner) spelling' : 'the newer (AgentJet) spelling';
      push(ctx, 'renamed-value', soft ? 'warning' : byVersion ? 'error' : 'warning', `\`${sv}\` is ${other}; ${frameworkName(ctx.version)} expects \`${to}\`${byVersion && !soft ? ' (any other value stops the run)' : ''}.`, range, [{ title: `Change to \`${to}\``, newText: to, preferred: true }]);
      return;
    }
  }
  const sugg = suggest(sv, allowed.map(String));
  push(ctx, 'enum', soft ? 'warning' : 'error', `\`${sv}\` is not a valid \`${name}\`${byVersion ? ` in ${frameworkName(ctx.version)}` : ''}; expected one of ${allowed.map((a) => `\`${String(a)}\``).join(', ')}.${sugg.length ? ` Did you mean \`${sugg[0]}\`?` : ''}`, range,
    sugg.map((x, i) => ({ title: `Change to \`${x}\``, newText: x, preferred: i === 0 })));
}

/** Offset of the value's text inside the scalar's source (quoted scalars start one later). */
function contentStart(ctx: Ctx, n: Scalar): number {
  const start = n.range?.[0] ?? 0;
  const c = ctx.p.text[start];
  return c === '"' || c === "'" ? start + 1 : start;
}

function checkClassRef(ctx: Ctx, n: Scalar, str: string): void {
  const base = contentStart(ctx, n);
  const quoted = base !== (n.range?.[0] ?? 0);
  const whole = nodeRange(ctx, n);
  const ref = parseClassRef(str);
  if ('error' in ref) {
    push(ctx, 'class-ref/syntax', 'error', `Bad class reference: ${ref.error}.`, whole);
    return;
  }
  if (!ctx.root) return;
  // Offsets inside the value map 1:1 onto the source unless escapes were used in a quoted string.
  const exact = !quoted || !ctx.p.text.slice(base, base + str.length).includes('\\');
  const sub = (a: number, b: number) => (exact ? ctx.p.index.range(base + a, base + b) : whole);
  const r = ctx.resolver.resolve(ref, ctx.root);
  if (r.ok === true || r.ok === 'skip') return;
  const fixes: Fix[] = [];
  if (r.code === 'class-ref/missing-class') {
    const file = ref.form === 'file' ? (isAbsolute(ref.target) ? ref.target : join(ctx.root, ref.target)) : ctx.resolver.moduleFile(ctx.root, ref.target);
    const mod = file ? ctx.resolver.module(file) : undefined;
    const close = mod ? suggest(ref.className, mod.classes.keys()) : [];
    // A reference can only name a class of that module: offer them all when none is close.
    const sugg = close.length ? close : [...(mod?.classes.keys() ?? [])].slice(0, 5);
    const range = sub(ref.classStart, ref.classEnd);
    sugg.forEach((x, i) => fixes.push({ title: `Change to \`${x}\``, newText: x, range, preferred: i === 0 }));
  }
  push(ctx, r.code, r.severity, r.message, r.part === 'class' ? sub(ref.classStart, ref.classEnd) : sub(ref.targetStart, ref.targetEnd), fixes);
}

function checkPath(ctx: Ctx, n: Scalar, str: string, kind: 'file' | 'dir' | 'model' | 'files'): void {
  const v = str.trim();
  if (ctx.standalone || !ctx.root || !v || /^[a-z]+:\/\//i.test(v)) return;
  // A model may be a hub id (`Qwen/Qwen2.5-7B`); only local-looking paths are checked.
  if (kind === 'model' && !(isAbsolute(v) || v.startsWith('./') || v.startsWith('../') || v.startsWith('~'))) return;
  if (v.startsWith('~')) return;
  const abs = isAbsolute(v) ? v : join(ctx.root, v);
  if (ctx.fs.kind(abs)) return;
  push(ctx, 'path-missing', 'warning', `\`${v}\` does not exist on this machine${isAbsolute(v) ? '' : ` (relative to ${ctx.root})`}; fine if the job runs where it does.`, nodeRange(ctx, n));
}

/** Paths the merged config is known to have: the document plus the framework defaults. */
function interpolationTargetExists(ctx: Ctx, path: string[]): boolean {
  if (nodeAt(ctx.p.rootMap, ctx.doc, path)) return true;
  // The ASTuner roots are the same tree as ajet.
  let sch: SchemaNode | undefined = ctx.schema;
  for (const seg of path) {
    if (!sch) return false;
    const r = resolveRef(sch);
    const c: SchemaNode | undefined = childSchema(r, seg);
    if (!c) {
      // Inside an open subtree we cannot know every key that will exist.
      return r['x-open'] === true || (!r.properties && r.additionalProperties !== false && !r.type);
    }
    sch = c;
  }
  return true;
}

function checkInterpolations(ctx: Ctx, n: Scalar, path: string[]): void {
  const str = n.value as string;
  const base = contentStart(ctx, n);
  const exact = !ctx.p.text.slice(base, base + str.length).includes('\\');
  const re = /\$\{([^}]*)(\}|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(str))) {
    const inner = (m[1] ?? '').trim();
    const range = exact ? ctx.p.index.range(base + m.index, base + m.index + m[0].length) : nodeRange(ctx, n);
    if (m[2] !== '}') { push(ctx, 'bad-interpolation', 'error', 'Unclosed `${` interpolation.', range); break; }
    if (!inner) { push(ctx, 'bad-interpolation', 'error', 'Empty `${}` interpolation.', range); continue; }
    if (inner.includes(':') || inner.includes('${')) continue; // resolvers (oc.env:..., now:...) are not checked
    let target: string[];
    if (inner.startsWith('.')) {
      const dots = (/^\.+/.exec(inner) as RegExpExecArray)[0].length;
      target = [...path.slice(0, Math.max(0, path.length - dots)), ...inner.slice(dots).split('.')];
    } else target = inner.split('.');
    if (target.some((t) => !t)) { push(ctx, 'bad-interpolation', 'error', `\`${inner}\` is not a valid key path.`, range); continue; }
    if (!interpolationTargetExists(ctx, target)) {
      const parent = target.slice(0, -1);
      const last = target[target.length - 1] as string;
      const parentNode = parent.length ? nodeAt(ctx.p.rootMap, ctx.doc, parent) : undefined;
      const cands = new Set<string>();
      if (parentNode && isMap(parentNode.node)) for (const e of mapPairs(parentNode.node, ctx.doc)) { const k = keyString(e.pair); if (k) cands.add(k); }
      const ps = parent.reduce<SchemaNode | undefined>((acc, seg) => (acc ? childSchema(acc, seg) : undefined), ctx.schema);
      for (const k of Object.keys(ps?.properties ?? {})) cands.add(k);
      const sugg = suggest(last, cands);
      push(ctx, 'bad-interpolation', 'error', `\`\${${inner}}\` points to a key that does not exist in this file or the framework defaults.${sugg.length ? ` Did you mean \`${[...parent, sugg[0]].join('.')}\`?` : ''}`, range,
        sugg.slice(0, 1).map((x) => ({ title: `Change to \${${[...parent, x].join('.')}}`, newText: `\${${[...parent, x].join('.')}}`, preferred: true })));
    }
  }
}

// ---------------------------------------------------------------- essentials and cross-field rules

interface Eff { value: unknown; pair?: Pair; node?: Node | null; inFile: boolean }

function rootName(ctx: Ctx): string { return ctx.p.rootKey ?? 'ajet'; }

/** Effective value of an ajet.* path: the file's, else the framework default. */
function eff(ctx: Ctx, rel: string[], alts: string[][] = []): Eff {
  for (const r of [rel, ...alts]) {
    const hit = nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx), ...r]);
    if (hit) {
      const n = hit.node;
      return { value: isScalar(n) ? n.value : n ? n.toJSON() : null, pair: hit.pair, node: n, inFile: true };
    }
  }
  const byVersion = (ctx.schema as { 'x-versionDefaults'?: Record<string, Record<string, string>> })['x-versionDefaults']?.[ctx.version]?.[rel.join('.')];
  if (byVersion !== undefined) return { value: byVersion, inFile: false };
  let s: SchemaNode | undefined = childSchema(ctx.schema, 'ajet');
  for (const seg of rel) s = s ? childSchema(s, seg) : undefined;
  return { value: s?.default, inFile: false };
}

function num(e: Eff): number | undefined {
  return typeof e.value === 'number' && Number.isFinite(e.value) ? e.value : undefined;
}

function anchorRange(ctx: Ctx, ...cands: (Eff | string[])[]): Range {
  for (const c of cands) {
    if (Array.isArray(c)) {
      const hit = nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx), ...c]);
      if (hit) return nodeRange(ctx, hit.pair.key as Node);
    } else if (c.inFile && c.pair) {
      return nodeRange(ctx, (c.pair.value as Node | null) ?? (c.pair.key as Node));
    }
  }
  const root = nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx)]);
  return nodeRange(ctx, root?.pair.key as Node);
}

function checkEssentials(ctx: Ctx): void {
  if (ctx.fragment) return;
  const sev: Severity = ctx.inheritsDefaults ? 'error' : 'warning';
  const model = eff(ctx, ['model', 'path']);
  if (!model.inFile) push(ctx, 'missing-required', sev, `No \`model.path\`: set the model to train${ctx.inheritsDefaults ? ' (the default is a placeholder)' : ''}.`, anchorRange(ctx, ['model'], []));
  const wf = eff(ctx, ['rollout', 'user_workflow'], [['rollout', 'agentscope_workflow'], ['rollout', 'agentscope_learn_protocol']]);
  if (!wf.inFile) push(ctx, 'missing-required', sev, 'No workflow: set `rollout.user_workflow` to `module.path->YourWorkflow`.', anchorRange(ctx, ['rollout'], []));
  const type = eff(ctx, ['task_reader', 'type']);
  if (!type.inFile && type.value !== 'env_service') {
    // An EnvService default reads tasks from the service the config points at; a dataset default
    // reads the placeholder dataset of the defaults file.
    push(ctx, 'missing-required', 'warning', `No \`task_reader.type\`: the default reads the \`${String(type.value)}\` dataset of the defaults, which is rarely what you want.`, anchorRange(ctx, ['task_reader'], []));
  } else if (type.inFile && typeof type.value === 'string') {
    const sel = childSchema(childSchema(childSchema(ctx.schema, 'ajet'), 'task_reader'), 'type')?.['x-selects'] ?? {};
    const section = sel[type.value];
    if (section && !nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx), 'task_reader', section])) {
      push(ctx, 'missing-required', 'warning', `\`task_reader.type: ${type.value}\` reads the \`task_reader.${section}\` section, which this file does not set.`, anchorRange(ctx, type));
    }
  }
  if (!ctx.inheritsDefaults && !nodeAt(ctx.p.rootMap, ctx.doc, ['hydra']) && ctx.p.rootKey) {
    const root = nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx)]);
    push(ctx, 'missing-defaults', 'information', 'No Hydra `defaults:` list: the framework defaults are not merged under this file.', nodeRange(ctx, root?.pair.key as Node));
  }
}

function checkCrossFields(ctx: Ctx): void {
  const prompt = eff(ctx, ['data', 'max_prompt_length']);
  const resp = eff(ctx, ['data', 'max_response_length']);
  const mml = eff(ctx, ['rollout', 'max_model_len']);
  const [a, b, c] = [num(prompt), num(resp), num(mml)];
  if (a !== undefined && b !== undefined && c !== undefined && (prompt.inFile || resp.inFile || mml.inFile) && a + b > c) {
    push(ctx, 'cross-field/max-model-len', 'error', `data.max_prompt_length + data.max_response_length = ${a} + ${b} = ${a + b} exceeds rollout.max_model_len = ${c}.`, anchorRange(ctx, mml, resp, prompt));
  }
  const engines = eff(ctx, ['rollout', 'n_vllm_engine']);
  const tp = eff(ctx, ['rollout', 'tensor_model_parallel_size']);
  const gpn = eff(ctx, ['trainer_common', 'n_gpus_per_node']);
  const nodes = eff(ctx, ['trainer_common', 'nnodes']);
  const [e, t, g, nn] = [num(engines), num(tp), num(gpn), num(nodes)];
  if (e !== undefined && t !== undefined && g !== undefined && nn !== undefined && (engines.inFile || tp.inFile || gpn.inFile || nodes.inFile) && e * t > g * nn) {
    push(ctx, 'cross-field/gpus', 'error', `rollout.n_vllm_engine x rollout.tensor_model_parallel_size = ${e} x ${t} = ${e * t} GPUs, but the job has trainer_common.n_gpus_per_node x nnodes = ${g} x ${nn} = ${g * nn}.`, anchorRange(ctx, engines, tp, gpn, nodes));
  }
  const dtp = eff(ctx, ['debug', 'debug_tensor_parallel_size']);
  const d = num(dtp);
  if (d !== undefined && g !== undefined && (dtp.inFile || gpn.inFile) && d > g) {
    push(ctx, 'cross-field/debug-tp', 'warning', `debug.debug_tensor_parallel_size = ${d}${dtp.inFile ? '' : ' (default)'} needs ${d} GPUs, more than trainer_common.n_gpus_per_node = ${g}; the debug vLLM server will not start on such a machine.`, anchorRange(ctx, dtp, ['debug'], gpn));
  }
  const jt = eff(ctx, ['task_judge', 'judge_type']);
  if (jt.value === 'rubrics_auto_grader' && !nodeAt(ctx.p.rootMap, ctx.doc, [rootName(ctx), 'task_judge', 'rubrics_auto_grader'])) {
    push(ctx, 'cross-field/rubrics-section', ctx.inheritsDefaults ? 'warning' : 'error', '`judge_type: rubrics_auto_grader` without a `task_judge.rubrics_auto_grader` section: the grader runs with the default model and data settings.', anchorRange(ctx, jt));
  }
  const jp = eff(ctx, ['task_judge', 'judge_protocol']);
  const rt = eff(ctx, ['task_reader', 'type']);
  if ((jt.value === 'customized_protocol' || jt.value === 'customized_protocal') && !jp.inFile && rt.inFile && rt.value !== 'env_service' && typeof jp.value === 'string' && jp.value.includes('env_service') && !workflowSetsReward(ctx)) {
    push(ctx, 'cross-field/judge', 'warning', `No \`task_judge.judge_protocol\`: the default judge (\`${jp.value}\`) asks an EnvService for rewards, but \`task_reader.type\` is \`${String(rt.value)}\`.`, anchorRange(ctx, ['task_judge'], rt));
  }
}

/** Used by hover/definition: alias-aware value node of a key path. */
export { nodeAt };
export function isAliasNode(n: unknown): boolean { return isAlias(n); }

/**
 * The runner asks the judge only when the workflow's output has no reward
 * (`if workflow_output.reward is not None` in ajet/task_runner/general_runner.py). True when the
 * workflow's module builds `WorkflowOutput(reward=<not None>)` or assigns `.reward`, or when the workflow
 * cannot be read (then nothing is claimed).
 */
function workflowSetsReward(ctx: Ctx): boolean {
  const wf = eff(ctx, ['rollout', 'user_workflow'], [['rollout', 'agentscope_workflow'], ['rollout', 'agentscope_learn_protocol']]);
  if (typeof wf.value !== 'string' || !ctx.root) return true;
  const ref = parseClassRef(wf.value);
  if ('error' in ref) return true;
  const r = ctx.resolver.resolve(ref, ctx.root);
  if (r.ok !== true) return true;
  const text = ctx.fs.read(r.file);
  if (text === undefined) return true;
  return /\bWorkflowOutput\s*\([^)]*\breward\s*=\s*(?!None\b)[^\s,)]/.test(text) || /\.reward\s*=(?!=)\s*(?!None\b)\S/.test(text);
}
