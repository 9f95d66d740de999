// The runs listing reads config snapshots with a line scan (core/runs/snapshotScan.ts) and parses
// in full only what the scan does not accept. Wherever the scan answers, it must answer what the
// full parse does: checked on snapshots shaped like AgentJet's, on the upstream default configs,
// on mutations of them (fast-check, seed printed on failure) and on generated documents of the
// accepted subset with awkward values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { check, fc, mutatedConfig } from '../util/fc';
import { withUpstream } from '../util/upstream';
import { ensureTestPython } from '../harness/python';
import { spawnSync } from 'node:child_process';
import { parsedSnapshotFacts, snapshotFacts } from '../../core/runs/snapshot';
import { scanSnapshot } from '../../core/runs/snapshotScan';
import { resolvedSnapshot } from '../gen/snapshot';
import { join } from 'node:path';

/** The scan's facts equal the full parse's whenever it answers; returns whether it answered. */
function agrees(text: string): boolean {
  const scanned = scanSnapshot(text);
  if (!scanned?.dialect) return false;
  assert.deepEqual(snapshotFacts(text), parsedSnapshotFacts(text), `scan and parse differ on:\n${text.slice(0, 2000)}`);
  return true;
}

test('a resolved snapshot as AgentJet writes it is read by the scan, with the facts the parse gives', () => {
  const text = resolvedSnapshot({ project: 'math', experiment: 'exp_7', totalSteps: 120, kb: 28 });
  assert.ok(text.length > 20_000);
  assert.ok(agrees(text), 'the scan declined a PyYAML-shaped snapshot');
  assert.deepEqual(snapshotFacts(text), {
    dialect: 'ajet',
    project: 'math',
    experimentName: 'exp_7',
    checkpointBase: './saved_checkpoints',
    totalSteps: 120,
    ajetLayout: 'agentjet',
    loggers: ['console', 'swanlab'],
  });
});

test('what the scan declines (the parse decides) and what it reads exactly', () => {
  const declined = [
    'ajet:\n  project_name: &p x\n', // anchor
    'ajet:\n  project_name: 1e3\n', // a numeral it would have to type
    'ajet:\n  project_name: "a\\tb"\n', // escapes
    'ajet:\n  project_name: a\n  project_name: b\n', // duplicate key on the way to a fact
    'ajet:\n  project_name: a\n   x: 1\n', // odd indentation
    'ajet:\n  project_name: {a: 1}\n', // flow mapping
    'ajet:\n  project_name: |\n    x\n', // block scalar
    'ajet:\n\tproject_name: x\n', // tab
    'ajet:\r\n  project_name: x\r\n', // CRLF
    'ajet:\n  project_name: long\n    continued\n', // multi-line plain scalar
    '- ajet\n', // not a mapping
    '# only a comment\n',
    'ajet:\n  project_name: x # comment\n',
    '"ajet":\n  project_name: x\n',
    '---\najet:\n  project_name: x\n',
  ];
  for (const text of declined) assert.equal(scanSnapshot(text), undefined, JSON.stringify(text));
  const read: [string, Partial<ReturnType<typeof snapshotFacts>>][] = [
    ['ajet:\n  project_name: 007\n', { project: '7' }],
    ["ajet:\n  project_name: 'it''s'\n", { project: "it's" }],
    ['ajet:\n  project_name: null\n', {}],
    ['ajet:\n  project_name:\n  experiment_name: e\n', { experimentName: 'e' }],
    ['ajet:\n  project_name: true\n', {}],
    ['ajet:\n  project_name: ~/p\n', { project: '~/p' }],
    ['ajet: {}\n', {}],
    ['ajet:\n  trainer_common:\n    checkpoint_base_dir: ${x.y}\n', {}],
    ['astuner:\n  project_name: p\ntrainer:\n  total_training_steps: 40\n', { dialect: 'astuner', project: 'p', totalSteps: 40 }],
    ['ajet.project_name: x\najet:\n  a: 1\n', {}],
  ];
  for (const [text, want] of read) {
    assert.ok(agrees(text), JSON.stringify(text));
    const got = snapshotFacts(text);
    for (const [k, v] of Object.entries(want)) assert.deepEqual(got[k as keyof typeof got], v, `${k} of ${JSON.stringify(text)}`);
  }
});

// AgentJet writes a run's yaml_backup.yaml with PyYAML's yaml.dump of the config it resolved
// (ajet/utils/config_utils.py): the upstream default configs (the verl one merged under the ajet
// one, as a verl run resolves them), written that way by the real PyYAML, are real snapshots. The
// scan must read each of them (not decline) and agree with the parse.
for (const [tree, rels] of [
  ['agentjet-c68c154', ['ajet/default_config/ajet_default.yaml']],
  ['agentjet-c68c154', ['ajet/default_config/verl/verl_default.yaml', 'ajet/default_config/ajet_default.yaml']],
  ['agentjet-d20cce0', ['ajet/default_config/ajet_default.yaml']],
  ['astuner-f9fab4f', ['astuner/default_config/astune_default.yaml']],
] as const)
  test(
    `${tree} ${rels.join(' + ')}, written as AgentJet writes a snapshot (PyYAML yaml.dump): the scan reads it, with the parse's facts`,
    withUpstream(tree, (dir) => {
      const sources = rels.map((rel) => join(dir, rel));
      const dump = 'import sys, yaml\nd = {}\nfor f in sys.argv[1:]: d.update(yaml.safe_load(open(f)))\nsys.stdout.write(yaml.dump(d))';
      const r = spawnSync(ensureTestPython().python, ['-c', dump, ...sources], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(agrees(r.stdout), `the scan declined ${rels.join(' + ')} as PyYAML writes it`);
      // The files as shipped (comments, anchors): the scan may decline, and where it answers it agrees.
      for (const f of sources) agrees(readFileSync(f, 'utf8'));
    }),
  );

const bases = [
  resolvedSnapshot({ project: 'p', experiment: 'e', totalSteps: 9, kb: 3 }),
  'ajet:\n  project_name: p\n  experiment_name: e\n  trainer_common:\n    checkpoint_base_dir: /ck\n    logger: swanlab\ntrainer:\n  total_training_steps: 5\n',
  'astuner:\n  project_name: p\n  trainer_common:\n    logger:\n    - tensorboard\n',
];

test('mutated snapshots: the scan declines or agrees (property)', () => {
  check(
    fc.property(mutatedConfig(bases), (text) => {
      agrees(text);
    }),
    400,
  );
});

// Values that are awkward for a line scan: numerals of every form, null/bool words, quotes,
// indicators, interpolations, colons and hashes inside.
const VALUES = [
  'x',
  '7',
  '007',
  '-1',
  '+1',
  '1.5',
  '1e3',
  '0x1f',
  '0o17',
  '.inf',
  '-.inf',
  '.nan',
  '~',
  '~/a',
  'null',
  'Null',
  'NULL',
  'nULL',
  'true',
  'True',
  'FALSE',
  'yes',
  'off',
  "'q'",
  "'it''s'",
  "''",
  '""',
  '"d"',
  '"a\\"b"',
  '[]',
  '{}',
  '[a]',
  '{a: 1}',
  '${a.b}',
  'file://x',
  'a:b',
  'a #b',
  'a#b',
  '-x',
  '- x',
  '?x',
  ':x',
  '|',
  '>',
  '&a x',
  '*a',
  '!!str x',
  '%x',
  '@x',
  '`x',
  './p',
  '/abs',
  'a b c',
  'a: b',
  'é',
  '12345678901234567890',
  '',
];
const KEYS = [
  'ajet',
  'astuner',
  'astune',
  'trainer',
  'project_name',
  'experiment_name',
  'trainer_common',
  'checkpoint_base_dir',
  'logger',
  'total_training_steps',
  'other',
  'a.b',
  '1',
  'x-y',
];

// Mostly values the scan accepts (so it answers often), sometimes any of the awkward ones.
const GOOD = [
  'x',
  '7',
  '007',
  "'q'",
  "'it''s'",
  "''",
  '"d"',
  '[]',
  '{}',
  '${a.b}',
  'file://x',
  'a:b',
  'a#b',
  '-x',
  '~/a',
  './p',
  'null',
  'true',
  'a b c',
  'é',
  '1.5',
  '-1',
  '.inf',
  '~',
];
const value = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...GOOD) }, { weight: 1, arbitrary: fc.constantFrom(...VALUES) });
const items = fc.array(
  value.filter((v) => v !== ''),
  { minLength: 1, maxLength: 3 },
);

interface Node {
  key: string;
  value: string | Node[] | string[];
}
const node: fc.Memo<Node> = fc.memo((d) =>
  fc.record({
    key: fc.constantFrom(...KEYS),
    value:
      d <= 1
        ? fc.oneof(value, items)
        : fc.oneof(value, items, fc.uniqueArray(node(d - 1), { minLength: 1, maxLength: 4, selector: (n) => n.key })),
  }),
);

function render(nodes: Node[], indent: number, listIndent: number): string[] {
  const pad = ' '.repeat(indent);
  const out: string[] = [];
  for (const n of nodes) {
    if (typeof n.value === 'string') out.push(`${pad}${n.key}:${n.value === '' ? '' : ` ${n.value}`}`);
    else if (typeof n.value[0] === 'string') {
      out.push(`${pad}${n.key}:`);
      for (const v of n.value as string[]) out.push(`${' '.repeat(indent + listIndent)}- ${v}`);
    } else {
      out.push(`${pad}${n.key}:`);
      out.push(...render(n.value as Node[], indent + 2, listIndent));
    }
  }
  return out;
}

test('generated documents of the subset with awkward values: the scan declines or agrees (property)', () => {
  let answered = 0;
  check(
    fc.property(
      fc.uniqueArray(node(3), { minLength: 1, maxLength: 5, selector: (n) => n.key }),
      fc.constantFrom(0, 2),
      (nodes, listIndent) => {
        if (agrees(`${render(nodes, 0, listIndent).join('\n')}\n`)) answered++;
      },
    ),
    600,
  );
  // The property is only worth something if the scan answers for a good share of the cases.
  assert.ok(answered > 30, `the scan answered only ${answered} times`);
});
