// core/process/version.ts: PEP 440 order (what pip and AgentJet's packages go by), checked on the
// spec's own ordered examples, on spellings that mean the same version, and as a total order (property).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fc, check } from '../util/fc';
import { compareVersions, parseVersion, versionAtLeast } from '../../core/process/version';

/** In increasing order (PEP 440's summary of ordering, and the versions the product compares). */
const ORDERED = [
  '0.0.1',
  '0.0.3',
  '0.0.4.dev0',
  '0.0.4a1',
  '0.0.4b2.dev3',
  '0.0.4b2',
  '0.0.4rc1',
  '0.0.4',
  '0.0.4+cu121',
  '0.0.4.post1.dev0',
  '0.0.4.post1',
  '0.0.10',
  '1.6.3',
  '1.8.0rc1',
  '1.8.0',
  '1.8.11',
  '1.10',
  '3.10.12',
  '3.13',
  '1!0.1',
];

test('the ordered examples compare as listed, every pair both ways', () => {
  for (let i = 0; i < ORDERED.length; i++)
    for (let j = 0; j < ORDERED.length; j++) {
      const want = Math.sign(i - j);
      assert.equal(compareVersions(ORDERED[i], ORDERED[j]), want, `${ORDERED[i]} vs ${ORDERED[j]}`);
    }
});

test('spellings of one version are equal', () => {
  for (const [a, b] of [
    ['1.8', '1.8.0'],
    ['v1.8.0', '1.8.0'],
    ['1.0RC1', '1.0rc1'],
    ['1.0-rc.1', '1.0rc1'],
    ['1.0c1', '1.0rc1'],
    ['1.0alpha1', '1.0a1'],
    ['1.0-1', '1.0.post1'],
    ['1.0.dev', '1.0.dev0'],
    ['1.0+ubuntu.1', '1.0+ubuntu-1'],
  ])
    assert.equal(compareVersions(a, b), 0, `${a} = ${b}`);
});

test('what is not PEP 440, and no version at all', () => {
  assert.equal(parseVersion('unknown'), undefined);
  assert.ok(compareVersions('2.1.0-custom-build', '2.1.0') === 0, 'leading numbers of a free-form version');
  assert.ok(
    compareVersions(undefined, '0.0.1') < 0 && compareVersions('0.0.1', undefined) > 0 && compareVersions(undefined, undefined) === 0,
  );
  assert.ok(versionAtLeast('1.8.0', '1.8.0') && !versionAtLeast('1.8.0rc1', '1.8.0') && versionAtLeast('1.8.0.post1', '1.8.0'));
});

const version = fc
  .record({
    epoch: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
    release: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }),
    pre: fc.option(fc.tuple(fc.constantFrom('a', 'b', 'rc', 'alpha', 'c'), fc.integer({ min: 0, max: 3 })), { nil: undefined }),
    post: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    dev: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    local: fc.option(fc.constantFrom('cu121', 'cpu', '1', 'abc.2'), { nil: undefined }),
  })
  .map(
    (v) =>
      `${v.epoch !== undefined ? `${v.epoch}!` : ''}${v.release.join('.')}${v.pre ? v.pre.join('') : ''}${v.post !== undefined ? `.post${v.post}` : ''}${v.dev !== undefined ? `.dev${v.dev}` : ''}${v.local ? `+${v.local}` : ''}`,
  );

test('a total order: reflexive, antisymmetric, transitive, and sorting is stable under it (property)', () => {
  check(
    fc.property(version, version, version, (a, b, c) => {
      assert.ok(parseVersion(a), a);
      assert.equal(compareVersions(a, a), 0);
      assert.equal(compareVersions(a, b), -compareVersions(b, a));
      if (compareVersions(a, b) <= 0 && compareVersions(b, c) <= 0) assert.ok(compareVersions(a, c) <= 0, `${a} <= ${b} <= ${c}`);
    }),
    500,
  );
});
