// The config schema: a JSON Schema subset plus `x-` annotations the validator reads. The JSON file
// is generated (scripts/gen-schema.ts) and shipped; nothing here reads the framework's files.
import schemaJson from '../../schemas/agentjet.schema.json';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';
import { familyOf, type Family, type FrameworkVersion } from '../agentjet/dialect';

/** Schema annotations speak of generations: AgentJet, or the ASTuner era (ASTuner and ASTune). */
export type { Family } from '../agentjet/dialect';
export type Scalar = string | number | boolean | null;

export interface SchemaNode {
  type?: JsonType | JsonType[];
  description?: string;
  markdownDescription?: string;
  default?: unknown;
  enum?: Scalar[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean;
  items?: SchemaNode;
  deprecated?: boolean;
  $ref?: string;
  /** Extra keys: 'info' gives an information note (a warning when close to a known key). */
  'x-open'?: 'info' | true;
  'x-enumSeverity'?: 'warning';
  /** The value the code uses instead of one outside `enum` (it logs and goes on). */
  'x-enumFallback'?: string;
  'x-enumRenamed'?: Record<string, string>;
  'x-dialect'?: Family;
  /** A key no version of the framework reads: the message says what is read instead. */
  'x-unread'?: string;
  /** Allowed values per framework version, read from each version's code by `npm run gen:schema`. */
  'x-enumByVersion'?: Partial<Record<FrameworkVersion, string[]>>;
  'x-renamedTo'?: string;
  'x-movedTo'?: string;
  'x-deprecatedMessage'?: string;
  'x-classRef'?: 'workflow' | 'judge';
  'x-pathKind'?: 'file' | 'dir' | 'model' | 'files';
  'x-selects'?: Record<string, string | null>;
  /** Which default file the key comes from. */
  'x-source'?: string;
}

export interface ConfigSchema extends SchemaNode {
  /** Key paths under the root each framework version declares or reads (from its code). */
  'x-versionKeys'?: Partial<Record<FrameworkVersion, string[]>>;
  /** Per-version defaults of the few keys whose default changes a check (from each defaults YAML). */
  'x-versionDefaults'?: Partial<Record<FrameworkVersion, Record<string, string>>>;
  /**
   * The AgentJet these facts are of, its verl conversion table (from its code), and `has`: the
   * `def:`/`file:` facts of core/config/releaseRules.ts it has.
   */
  'x-release'?: { release?: string; date?: string; verlConversions?: Record<string, string[]>; has?: string[] };
  $schema?: string;
  $id?: string;
  title?: string;
}

export const schema: ConfigSchema = schemaJson as ConfigSchema;

export { familyOf };

export function typesOf(node: SchemaNode): JsonType[] {
  if (!node.type) return [];
  return Array.isArray(node.type) ? node.type : [node.type];
}

export function resolveRef(node: SchemaNode, root: SchemaNode = schema): SchemaNode {
  let n = node;
  for (let i = 0; i < 8 && n.$ref; i++) {
    const parts = n.$ref.replace(/^#\//, '').split('/');
    let cur: unknown = root;
    for (const p of parts) cur = (cur as Record<string, unknown> | undefined)?.[p];
    if (!cur || typeof cur !== 'object') return {};
    n = cur as SchemaNode;
  }
  return n;
}

/** The schema of `key` under `parent`, or undefined when it is not declared. */
export function childSchema(parent: SchemaNode | undefined, key: string, root: SchemaNode = schema): SchemaNode | undefined {
  if (!parent) return undefined;
  const p = resolveRef(parent, root);
  const c = p.properties?.[key];
  return c ? resolveRef(c, root) : undefined;
}

/** Walks a path of keys (list indexes use the item schema). */
export function schemaAt(path: readonly (string | number)[], root: SchemaNode = schema): SchemaNode | undefined {
  let cur: SchemaNode | undefined = root;
  for (const seg of path) {
    if (!cur) return undefined;
    if (typeof seg === 'number') cur = cur.items ? resolveRef(cur.items, root) : undefined;
    else cur = childSchema(cur, seg, root);
  }
  return cur;
}

/** Does this key belong to the given dialect? */
export function inDialect(node: SchemaNode, dialect: Family): boolean {
  return !node['x-dialect'] || node['x-dialect'] === dialect;
}
