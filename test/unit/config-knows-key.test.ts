// knowsKey keeps its answers per schema: asked again, in any order, it answers as the first time; the
// release chosen for a config is the one knowsKey's answers pick.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMap, isScalar, parseDocument, type YAMLMap } from 'yaml';
import { baseFacts, bundledFor, bundledReleases, knowsKey, type JudgingFacts } from '../../core/config/releases';
import { parseConfig } from '../../core/config/parse';
import { check, fc } from '../util/fc';

test('knowsKey answers the same when asked again, a dotted key apart from the path its dots make', () => {
  const f = baseFacts();
  const listed = new Set(f.schema['x-versionKeys']?.agentjet ?? []);
  // A schema path whose dotted spelling the code's key list does not hold.
  const path = Object.entries(f.schema.properties?.ajet?.properties ?? {})
    .flatMap(([s, v]) => Object.keys(v.properties ?? {}).map((k) => [s, k]))
    .find(([s, k]) => !listed.has(`${s}.${k}`));
  assert.ok(path);
  for (let i = 0; i < 2; i++) {
    assert.equal(knowsKey(f, path), true);
    assert.equal(knowsKey(f, [path.join('.')]), false, 'one segment holding a dot is not the path');
    assert.equal(knowsKey(f, [path[0]!, 'no_such_key_zz']), false);
  }
});

test('the bundled release chosen for a config is the newest that knows most of its keys, on random configs', () => {
  // The reference: every key path the config sets, asked of knowsKey one by one (the walk beside the schema
  // replaced it).
  const reference = (text: string): string | undefined => {
    const root = (parseDocument(text).contents as YAMLMap | null)?.get('ajet', true);
    const keys: string[][] = [];
    const walk = (m: YAMLMap, path: string[]) => {
      if (path.length > 12) return;
      for (const pair of m.items) {
        if (!isScalar(pair.key)) continue;
        const k = [...path, String(pair.key.value)];
        keys.push(k);
        if (isMap(pair.value)) walk(pair.value, k);
      }
    };
    if (isMap(root)) walk(root, []);
    let best: JudgingFacts | undefined;
    let least = Infinity;
    for (const f of bundledReleases()) {
      const missing = keys.filter((k) => !knowsKey(f, k)).length;
      if (missing < least) [best, least] = [f, missing];
      if (missing === 0) break;
    }
    return (best ?? baseFacts()).release;
  };
  // Key paths (sections and their keys) of every release, and unknown ones; a config sets a few of them.
  const paths: string[][] = [];
  for (const f of bundledReleases())
    for (const [s, v] of Object.entries(f.schema.properties?.ajet?.properties ?? {}))
      paths.push([s], ...Object.keys(v.properties ?? {}).map((k) => [s, k]), [s, 'zz_unknown']);
  // And the keys only the code reads (its key list, not its schema).
  const inSchema = (f: JudgingFacts, k: string[]) => {
    let n = f.schema.properties?.ajet;
    for (const seg of k) n = n?.properties?.[seg];
    return !!n;
  };
  const codeOnly = bundledReleases().flatMap((f) =>
    (f.schema['x-versionKeys']?.agentjet ?? []).map((k) => k.split('.')).filter((k) => k.length <= 2 && !inSchema(f, k)),
  );
  assert.ok(codeOnly.length > 0, 'a key only the code reads');
  const differ = paths.filter((p) => new Set(bundledReleases().map((f) => knowsKey(f, p))).size > 1);
  assert.ok(differ.length > 5, 'the releases differ in some keys');
  const pick = fc.oneof(fc.constantFrom(...paths), fc.constantFrom(...differ), fc.constantFrom(...codeOnly));
  check(
    fc.property(fc.array(pick, { maxLength: 10 }), (picked) => {
      const tree = new Map<string, Set<string>>();
      for (const [s, k] of picked) {
        const kids = tree.get(s as string) ?? new Set<string>();
        if (k) kids.add(k);
        tree.set(s as string, kids);
      }
      const lines = ['ajet:'];
      for (const [s, kids] of tree) lines.push(kids.size ? `  ${s}:` : `  ${s}: 1`, ...[...kids].map((k) => `    ${k}: 1`));
      const text = lines.join('\n') + '\n';
      assert.equal(bundledFor(parseConfig(text)).release, reference(text), text);
    }),
    300,
  );
});
