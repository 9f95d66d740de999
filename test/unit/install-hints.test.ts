// Item 4 of issue 23: one source for install advice, following AgentJet's own installation guide
// (docs/en/installation.md of the version in question): `pip install -e .[verl]` / `.[trinity]`
// in a clone, then flash-attn; the walkthrough, the doctor, the preflight and the README agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentJetCheckout, checkoutOf, frameworkInstallCommand, frameworkInstallLines } from '../../core/doctor/install';
import { evaluate, type DoctorInput } from '../../core/doctor/checks';
import { toMarkdown, toText } from '../../core/doctor/report';
import { repoRoot } from '../util/paths';
import { tempDir } from '../util/runtree';
import { findUpstream, UPSTREAM_SKIP, UPSTREAM_SKIP_TAG } from '../util/upstream';
import { skipForEnvironment } from '../util/envSkip';

test("the install lines are the guide's: a clone, pip install -e .[backbone], flash-attn after", () => {
  assert.deepEqual(frameworkInstallLines('/venv/bin/python'), [
    'git clone https://github.com/modelscope/AgentJet.git',
    'cd AgentJet',
    '/venv/bin/python -m pip install -e ".[verl]"',
    '/venv/bin/python -m pip install --verbose flash-attn --no-deps --no-build-isolation --no-cache',
  ]);
  assert.match(
    frameworkInstallCommand('/p y/python', { checkout: '/src/AgentJet', backbone: 'trinity' }),
    /^cd \/src\/AgentJet && '\/p y\/python' -m pip install -e "\.\[trinity\]"/,
  );
});

for (const tree of ['agentjet-c68c154', 'agentjet-d20cce0'] as const) {
  test(`every install line we give appears in ${tree}'s installation guide (as pip of the interpreter)`, (t) => {
    const root = findUpstream(tree);
    if (!root) {
      skipForEnvironment(t, `${UPSTREAM_SKIP_TAG} ${tree} missing; ${UPSTREAM_SKIP}`);
      return;
    }
    const guide = readFileSync(join(root, 'docs', 'en', 'installation.md'), 'utf8');
    for (const backbone of ['verl', 'trinity'] as const) {
      for (const line of frameworkInstallLines('python', { backbone }).slice(2)) {
        const pip = line.replace(/^python -m /, '').replace(/"/g, '');
        assert.ok(guide.includes(pip), `${tree}: "${pip}" is not in the guide`);
      }
    }
    assert.ok(guide.includes('git clone https://github.com/modelscope/AgentJet.git'));
    // The checkout itself is recognised (install advice then runs there).
    assert.equal(agentJetCheckout(root), root);
    assert.equal(checkoutOf(join(root, 'ajet', '__init__.py')), root);
  });
}

const facts = (over: Record<string, unknown> = {}): DoctorInput => ({
  python: '/venv/bin/python',
  probe: {
    ok: true,
    facts: {
      python: '/venv/bin/python',
      version: '3.12.3',
      venv: true,
      packages: { debugpy: { module: 'debugpy', found: true, version: '1.8.2', location: null, launcher: null, error: null }, ...over },
      launchers: {},
      port: { port: 0, inUse: false },
    },
  },
  gpu: { available: false, gpus: [], error: null },
});

test('the doctor (missing ajet, verl, trinity, vLLM) gives the one source, in the workspace checkout when it is one, with a copy link', () => {
  const tmp = tempDir();
  try {
    mkdirSync(join(tmp.path, 'ajet'));
    writeFileSync(join(tmp.path, 'ajet', '__init__.py'), '');
    writeFileSync(join(tmp.path, 'pyproject.toml'), '[project]\nname =  "AgentJet"\nversion = "0.0.4"\n');
    const checks = evaluate({ ...facts(), checkout: agentJetCheckout(tmp.path) });
    const fix = (id: string) => checks.find((c) => c.id === id)?.fix?.value;
    assert.equal(fix('framework'), frameworkInstallCommand('/venv/bin/python', { checkout: tmp.path }));
    assert.equal(fix('verl'), frameworkInstallCommand('/venv/bin/python', { checkout: tmp.path, backbone: 'verl' }));
    assert.equal(fix('trinity'), frameworkInstallCommand('/venv/bin/python', { checkout: tmp.path, backbone: 'trinity' }));
    assert.equal(fix('vllm'), frameworkInstallCommand('/venv/bin/python', { checkout: tmp.path }));
    for (const c of checks) assert.ok(!/pip install '?ajet/.test(c.fix?.value ?? ''), `${c.id}: ${c.fix?.value}`);
    const md = toMarkdown(checks, '/venv/bin/python');
    assert.ok(md.includes('](command:agentjet.copyInstallCommand?'), 'each install command has a copy link');
    // The framework, vLLM and verl share one command: it is printed once, the others point to it.
    const once = frameworkInstallCommand('/venv/bin/python', { checkout: tmp.path });
    assert.equal(md.split('\n').filter((l) => l === once).length, 1, md);
    assert.equal((md.match(/fixes this too/g) ?? []).length, 2, md);
    const text = toText(checks, '/venv/bin/python');
    assert.equal(text.split(once).length - 1, 1, text);
    assert.ok(
      text.includes(frameworkInstallCommand('/venv/bin/python', { checkout: tmp.path, backbone: 'trinity' })),
      'a different command still shows',
    );
  } finally {
    tmp.dispose();
  }
});

test('the walkthrough and the README give the guide command, never `pip install ajet`', () => {
  for (const f of ['package.nls.json', 'package.nls.zh-cn.json', 'README.md', 'README.zh-CN.md']) {
    const text = readFileSync(join(repoRoot, f), 'utf8');
    assert.ok(!/pip install ajet\b/.test(text), `${f} says pip install ajet`);
    assert.ok(text.includes('pip install -e .[verl]') || text.includes('pip install -e ".[verl]"'), `${f} lacks the guide's command`);
  }
  const nls = JSON.parse(readFileSync(join(repoRoot, 'package.nls.json'), 'utf8')) as Record<string, string>;
  assert.match(nls['walkthroughs.agentjet.firstRollout.steps.pickInterpreter.description']!, /\(command:agentjet\.copyInstallCommand\)/);
});
