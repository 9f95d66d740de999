// Python facts read from syntax trees (core/config/pyfacts.ts, tree-sitter-python through
// web-tree-sitter) against the regular expressions they replaced (test/util/codefactsRegex.ts, kept
// only for this comparison): on every upstream tree the two readings agree, file by file and fact by
// fact, except for the differences listed in FIXES, each judged a fix with its reason. Then what only
// a parser reads right.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODE_FACT_FILES, PACKAGE_OF, VALUE_SOURCES, codeFactsOf, type CodeFacts } from '../../core/config/codefacts';
import { readPackageSync } from '../../core/config/factsgen';
import * as tree from '../../core/config/pyfacts';
import { PY_WASM, loadPython, parsePython, pyWasmPath, type PyNode } from '../../core/config/pyparse';
import type { FrameworkVersion } from '../../core/agentjet/dialect';
import * as regex from '../util/codefactsRegex';
import { repoRoot } from '../util/paths';
import { withUpstream, type UpstreamName } from '../util/upstream';

before(() => loadPython());

const TREES: [UpstreamName, FrameworkVersion][] = [
  ['agentjet-c68c154', 'agentjet'],
  ['agentjet-d20cce0', 'agentjet'],
  ['astuner-f9fab4f', 'astuner-2025-12'],
  ['astuner-61e9359', 'astuner-2025-11'],
  ['astune-ba24412p', 'astune'],
];

interface Difference {
  file: string;
  fact: string;
  /** Found by the regular expressions only. */
  onlyRegex: string[];
  /** Found in the syntax tree only. */
  onlyTree: string[];
}

const COMMENTED =
  'the read is commented out (`# x = self.config.<root>.rollout.<root>_action_when_overflow`): the code does not read the key, and its defaults YAML has it commented out too';
const overflowRead = (root: string): Difference & { why: string } => ({
  file: 'task_rollout/async_llm_bridge.py',
  fact: 'attributeKeys',
  onlyRegex: [`rollout.${root === 'ajet' ? 'ajet' : 'astune'}_action_when_overflow`],
  onlyTree: [],
  why: COMMENTED,
});

/** Every difference between the two readings, by tree, each a fix. */
const FIXES: Record<string, (Difference & { why: string })[]> = {
  'agentjet-c68c154': [overflowRead('ajet')],
  'agentjet-d20cce0': [
    {
      file: 'backbone/trainer_verl.py',
      fact: 'attributeKeys',
      onlyRegex: ['enable_experimental_interchange_server'],
      onlyTree: [],
      why: 'commented out (`# if self.config.ajet.enable_experimental_interchange_server:`); the key stays read through other files',
    },
    overflowRead('ajet'),
  ],
  'astuner-f9fab4f': [overflowRead('astuner')],
  'astuner-61e9359': [overflowRead('astuner')],
  'astune-ba24412p': [overflowRead('astune')],
};

const sorted = (xs: readonly string[]) => [...new Set(xs)].sort();

/** One fact of one file read both ways; a difference when the sets differ. */
function compare(out: Difference[], file: string, fact: string, byRegex: string[], byTree: string[]): void {
  const r = new Set(byRegex);
  const t = new Set(byTree);
  const onlyRegex = sorted(byRegex.filter((x) => !t.has(x)));
  const onlyTree = sorted(byTree.filter((x) => !r.has(x)));
  if (onlyRegex.length || onlyTree.length) out.push({ file, fact, onlyRegex, onlyTree });
}

/** Every Python fact of every file of a package, read both ways. */
function differences(texts: Map<string, string>, root: string): Difference[] {
  const out: Difference[] = [];
  const names = VALUE_SOURCES.flatMap((s) => ('name' in s ? [s.name] : []));
  for (const [file, text] of texts) {
    if (!file.endsWith('.py')) continue;
    const parsed = parsePython(text);
    try {
      const node: PyNode = parsed.rootNode;
      compare(out, file, 'attributeKeys', regex.attributeKeys(text, root), tree.attributeKeys(node, root));
      for (const name of names)
        compare(out, file, `comparedValues ${name}`, regex.comparedValues(text, name), tree.comparedValues(node, name));
      compare(out, file, 'taskReaderTypes', regex.taskReaderTypes(text), tree.taskReaderTypes(node));
      if ((CODE_FACT_FILES.madnessChecks as readonly string[]).includes(file))
        compare(out, file, 'madnessChecks', regex.madnessChecks(text), tree.madnessChecks(node));
      for (const src of VALUE_SOURCES) {
        if (src.file !== file) continue;
        if ('registry' in src)
          compare(out, file, `registryKeys ${src.registry}`, regex.registryKeys(text, src.registry), tree.registryKeys(node, src.registry));
        if ('decorator' in src)
          compare(
            out,
            file,
            `decoratorNames ${src.decorator}`,
            regex.decoratorNames(text, src.decorator),
            tree.decoratorNames(node, src.decorator),
          );
      }
      if (/^default_config\/\w+_config_schema\.py$/.test(file))
        compare(out, file, 'dataclassKeys', regex.dataclassKeys(text, root), tree.dataclassKeys(node, root));
    } finally {
      parsed.delete();
    }
  }
  return out;
}

for (const [name, version] of TREES)
  test(
    `${name}: the syntax trees read what the regular expressions read, but for the fixes listed`,
    withUpstream(name, (dir) => {
      const pkg = PACKAGE_OF[version];
      const snap = readPackageSync(join(dir, pkg));
      const fixes = FIXES[name] ?? [];
      assert.deepEqual(
        differences(snap.texts, pkg),
        fixes.map(({ why: _why, ...d }) => d),
        'a new difference: judge it (a fix goes into FIXES with its reason) or mend core/config/pyfacts.ts',
      );
      // The whole facts: the same but for the keys only a fixed difference read.
      const read = (rel: string) => snap.texts.get(rel);
      const before: CodeFacts = regex.regexCodeFactsOf(read, snap.files, pkg);
      const after = codeFactsOf(read, snap.files, pkg);
      const gone = new Set(fixes.flatMap((f) => f.onlyRegex));
      const stillRead = new Set(after.readKeys);
      assert.deepEqual(after, { ...before, readKeys: before.readKeys.filter((k) => !gone.has(k) || stillRead.has(k)) });
      assert.ok(after.readKeys.length > 100, `${after.readKeys.length} keys read`);
    }),
  );

test('only a parser reads these right (the regular expressions got each wrong)', () => {
  const cases: { what: string; py: string; fact: (r: typeof tree | typeof regex, py: string) => string[]; want: string[] }[] = [
    {
      what: 'a key read in a comment or a docstring is not read',
      py: 'def f(self):\n    """Uses self.config.ajet.doc_only.key."""\n    # x = self.config.ajet.commented.key\n    return self.config.ajet.rollout.n\n',
      fact: (r, py) => r.attributeKeys(py, 'ajet'),
      want: ['rollout', 'rollout.n'],
    },
    {
      what: 'a chain across lines inside brackets is read',
      py: 'n = (\n    self.config.ajet\n    .trainer_common\n    .kl_penalty_type\n)\n',
      fact: (r, py) => r.attributeKeys(py, 'ajet'),
      want: ['trainer_common', 'trainer_common.kl_penalty_type'],
    },
    {
      what: '`.get("key")` on the root itself reads the key',
      py: 'x = self.config.ajet.get("task_judge")\n',
      fact: (r, py) => r.attributeKeys(py, 'ajet'),
      want: ['task_judge'],
    },
    {
      what: 'a comparison written the other way round counts',
      py: 'if "first_n" == clip_method:\n    pass\nelif clip_method in {"random_n"}:\n    pass\n',
      fact: (r, py) => r.comparedValues(py, 'clip_method').sort(),
      want: ['first_n', 'random_n'],
    },
    {
      what: 'a value inside a string is not a comparison',
      py: 'msg = "use clip_method == \'first_n\'"\nif clip_method == "random_n":\n    pass\n',
      fact: (r, py) => r.comparedValues(py, 'clip_method'),
      want: ['random_n'],
    },
    {
      what: 'a madness check commented out is not a check',
      py: '# if "retired" in checklist:\nif "nonsense" in self.config.ajet.rollout.compute_madness_checklist:\n    pass\n',
      fact: (r, py) => r.madnessChecks(py),
      want: ['nonsense'],
    },
    {
      what: 'a registry whose value is a text over several lines that looks like an entry',
      py: '_R = {\n    "a": """\n, "c": 1\n""",\n    "b": 1,\n}\n',
      fact: (r, py) => r.registryKeys(py, '_R'),
      want: ['a', 'b'],
    },
  ];
  for (const c of cases) {
    assert.deepEqual(c.fact(tree, c.py), c.want, c.what);
    assert.notDeepEqual(c.fact(regex, c.py), c.want, `the regular expressions were already right: ${c.what}`);
  }
});

test('the parser is two WebAssembly files found without the network, and the build ships them', () => {
  for (const w of PY_WASM) assert.ok(existsSync(pyWasmPath(w.file, w.pkg)), w.file);
  const build = readFileSync(join(repoRoot, 'scripts', 'build.mjs'), 'utf8');
  const ignore = readFileSync(join(repoRoot, '.vscodeignore'), 'utf8').split('\n');
  for (const w of PY_WASM) {
    assert.ok(build.includes(`'${w.pkg}', '${w.file}'`), `scripts/build.mjs copies ${w.file} into dist/`);
    assert.ok(ignore.includes(`!dist/${w.file}`), `.vscodeignore ships dist/${w.file}`);
  }
});
