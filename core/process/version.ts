// Version comparison, the one rule for the product: Python, debugpy, AgentJet releases. Python
// packages number their versions by PEP 440 (what pip and AgentJet's own checks go by), so this reads
// its forms: epoch `1!`, release `1.8.0` (trailing zeros do not count), pre-releases `a`/`b`/`rc`
// (and their long spellings), `.postN`, `.devN`, a local part `+cu121`, a leading `v`. A string that
// is not PEP 440 is compared by its leading dotted numbers; no version (undefined) sorts first.

export interface ParsedVersion {
  epoch: number;
  release: number[];
  /** Pre-release phase (0 a, 1 b, 2 rc) and number. */
  pre?: [number, number];
  post?: number;
  dev?: number;
  local?: (number | string)[];
}

const PEP440 =
  /^\s*v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?(\d*))?(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d*))?(?:[-_.]?(dev)[-_.]?(\d*))?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$/i;

const PHASE: Record<string, number> = { a: 0, alpha: 0, b: 1, beta: 1, c: 2, rc: 2, pre: 2, preview: 2 };

/** The version's parts by PEP 440, or undefined when `text` is not a PEP 440 version. */
export function parseVersion(text: string): ParsedVersion | undefined {
  const m = PEP440.exec(text);
  if (!m) return undefined;
  const num = (s: string | undefined) => (s ? Number(s) : 0);
  const out: ParsedVersion = { epoch: num(m[1]), release: m[2]!.split('.').map(Number) };
  if (m[3]) out.pre = [PHASE[m[3].toLowerCase()]!, num(m[4])];
  if (m[5] !== undefined) out.post = Number(m[5]);
  else if (m[6]) out.post = num(m[7]);
  if (m[8]) out.dev = num(m[9]);
  if (m[10]) out.local = m[10].split(/[-_.]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p.toLowerCase()));
  return out;
}

/** Leading dotted numbers of a string that is not PEP 440 ("2.1.0-custom" -> 2.1.0). */
function lenient(text: string): ParsedVersion {
  const m = /(\d+(?:\.\d+)*)/.exec(text);
  return { epoch: 0, release: m ? m[1]!.split('.').map(Number) : [] };
}

function cmpNum(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function cmpRelease(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = cmpNum(a[i] ?? 0, b[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** PEP 440's order of the parts after the release: dev < pre < final < post; .devN of each comes first. */
function cmpSuffix(a: ParsedVersion, b: ParsedVersion): number {
  // A release that is only a dev release sorts before its pre-releases.
  const preKey = (v: ParsedVersion): [number, number] =>
    v.pre ?? (v.dev !== undefined && v.post === undefined ? [-1, 0] : [Number.POSITIVE_INFINITY, 0]);
  const [pa, pb] = [preKey(a), preKey(b)];
  const pre = cmpNum(pa[0], pb[0]) || cmpNum(pa[1], pb[1]);
  if (pre) return pre;
  const post = cmpNum(a.post ?? -1, b.post ?? -1);
  if (post) return post;
  return cmpNum(a.dev ?? Number.POSITIVE_INFINITY, b.dev ?? Number.POSITIVE_INFINITY);
}

/** PEP 440: a local version sorts after the same public one; its parts: numbers above strings. */
function cmpLocal(a: ParsedVersion['local'], b: ParsedVersion['local']): number {
  if (!a || !b) return a ? 1 : b ? -1 : 0;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i],
      y = b[i];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (typeof x !== typeof y) return typeof x === 'number' ? 1 : -1;
    const d = typeof x === 'number' ? cmpNum(x, y as number) : x < (y as string) ? -1 : x > (y as string) ? 1 : 0;
    if (d) return d;
  }
  return 0;
}

/** -1, 0 or 1 as version `a` is older than, the same as, or newer than `b` (see the file's head). */
export function compareVersions(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  const x = parseVersion(a) ?? lenient(a),
    y = parseVersion(b) ?? lenient(b);
  return cmpNum(x.epoch, y.epoch) || cmpRelease(x.release, y.release) || cmpSuffix(x, y) || cmpLocal(x.local, y.local);
}

/** Is `version` at least `min`? */
export function versionAtLeast(version: string | undefined, min: string): boolean {
  return compareVersions(version, min) >= 0;
}
