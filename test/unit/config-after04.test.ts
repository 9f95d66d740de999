// AgentJet after 0.0.4, judged by the user's own tree (read at run time): the later keys and the
// value lists its code holds (`rollout.tool_parser` falls back, `chat_template_generate_prompt_type`
// and `opd.loss_mode` raise), and the release taken from the package metadata, not `__version__`.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLint } from '../../cli/lint';
import { decoratorNames, registryKeys } from '../../core/config/pyfacts';
import { loadPython } from '../../core/config/pyparse';
import { codeFactsOfDir } from '../../core/config/factsgen';
import { findInstalled } from '../../core/config/agentjetFacts';
import { writeAgentJetTree } from '../gen/agentjet';

// The code facts are read from Python syntax trees: the parser loads once for the file.
before(() => loadPython());

interface LintOut {
  files: { file: string; diagnostics: { code: string; severity: string; message: string }[] }[];
  errors: number;
  warnings: number;
  judgedBy: string[];
}

async function lint(cwd: string, args: string[]): Promise<LintOut> {
  let text = '';
  const prev = process.cwd();
  process.chdir(cwd);
  try {
    await runLint(
      ['--format', 'json', ...args],
      (s) => (text += s),
      () => undefined,
    );
  } finally {
    process.chdir(prev);
  }
  return JSON.parse(text) as LintOut;
}

const config = (toolParser: string, promptType: string, lossMode = 'k3') => `defaults:
  - ajet_default
  - _self_
ajet:
  project_name: demo
  model:
    path: Qwen/Qwen2.5-7B-Instruct
  task_reader:
    type: random_dummy
  task_judge:
    judge_protocol: wf->MyJudge
  rollout:
    user_workflow: wf->MyWorkflow
    tool_parser: ${toolParser}
    chat_template_generate_prompt_type: ${promptType}
    ppo_max_token_len_per_gpu: null
  teacher_model:
    teacher_opd_enabled: true
    teacher_model_vllm_url: http://127.0.0.1:8000/v1
  opd:
    loss_mode: ${lossMode}
`;

function project(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'wf.py'), 'class MyWorkflow:\n    pass\n\n\nclass MyJudge:\n    pass\n');
  writeFileSync(join(dir, 'good.yaml'), config('qwen3_coder', 'qwen3.6', 'forward_kl_topk'));
  writeFileSync(join(dir, 'bad.yaml'), config('qwen3coder', 'qwen3.5'));
  writeFileSync(join(dir, 'badloss.yaml'), config('hermes', 'default', 'k4'));
}

function check(out: LintOut): void {
  const of = (name: string) => out.files.find((f) => f.file.endsWith(name))?.diagnostics ?? [];
  assert.deepEqual(of('good.yaml'), [], 'the later keys and their values are known: no false diagnostic');
  const bad = of('bad.yaml').map((d) => `${d.severity} ${d.code} ${d.message}`);
  assert.equal(bad.length, 2, bad.join('\n'));
  assert.match(bad[0] ?? '', /^warning enum `qwen3coder` .*rollout\.tool_parser`.*uses `hermes` instead\. Did you mean `qwen3_coder`\?/);
  assert.match(bad[1] ?? '', /^error enum `qwen3\.5` .*rollout\.chat_template_generate_prompt_type`.*`default`, `qwen3\.6`/);
  const loss = of('badloss.yaml');
  assert.equal(loss.length, 1);
  assert.equal(loss[0]?.severity, 'error');
  assert.match(loss[0]?.message ?? '', /`k4` .*opd\.loss_mode`.*`forward_kl_topk`/);
}

test('value lists are read from registry dicts and registering decorators', () => {
  const py = [
    '# _T = {"no": 1}',
    '_T: Dict[str, Any] = {',
    '    "a": f,  # "c": 3',
    '    \'b.1\': {"inner": 2},',
    '    "x": "y:z",',
    '}',
    '@_reg(["k1", "k3+"], "fam")',
    '@_reg("solo")',
    '# @_reg(["commented"])',
  ].join('\n');
  assert.deepEqual(registryKeys(py, '_T'), ['a', 'b.1', 'x']);
  assert.deepEqual(registryKeys(py, '_missing'), []);
  assert.deepEqual(decoratorNames(py, '_reg'), ['k1', 'k3+', 'solo']);
});

test('a post-0.0.4 tree gives the later keys, value lists and which of them raise', () => {
  const work = mkdtempSync(join(tmpdir(), 'aj04later-'));
  try {
    const facts = codeFactsOfDir(writeAgentJetTree(join(work, 'tree')), 'ajet');
    for (const k of [
      'rollout.tool_parser',
      'rollout.chat_template_generate_prompt_type',
      'rollout.ppo_max_token_len_per_gpu',
      'opd.loss_mode',
    ])
      assert.ok(facts.readKeys.includes(k), k);
    assert.deepEqual(facts.valueLists?.['rollout.tool_parser'], ['hermes', 'qwen3_coder']);
    assert.deepEqual(facts.valueLists?.['rollout.chat_template_generate_prompt_type'], ['default', 'qwen3.6']);
    assert.ok(facts.valueLists?.['opd.loss_mode']?.includes('forward_kl_topk'));
    assert.deepEqual(facts.strictValues, ['rollout.chat_template_generate_prompt_type', 'opd.loss_mode']);
    assert.deepEqual(facts.fallbackValues, ['rollout.tool_parser']);
    // A 0.0.4-like tree lacks the files: the keys stay free text there.
    const older = codeFactsOfDir(writeAgentJetTree(join(work, 'old'), { without04Later: true }), 'ajet');
    assert.equal(older.valueLists?.['rollout.tool_parser'], undefined);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("agentjet lint with the user's post-0.0.4 checkout: no false diagnostic, the two true ones", async () => {
  const work = mkdtempSync(join(tmpdir(), 'aj04lint-'));
  const prevCache = process.env.AGENTJET_FACTS_CACHE;
  process.env.AGENTJET_FACTS_CACHE = join(work, 'cache');
  try {
    writeAgentJetTree(work);
    project(work);
    const out = await lint(work, ['good.yaml', 'bad.yaml', 'badloss.yaml']);
    check(out);
    assert.deepEqual(out.judgedBy.length, 1);
    assert.match(out.judgedBy[0] ?? '', /0\.0\.4/);
    // The bundled facts (0.0.4) know none of the later keys: the same good config is not clean there.
    const bundled = await lint(work, ['--framework', 'agentjet', 'good.yaml']);
    assert.ok(bundled.files[0]?.diagnostics.some((d) => /tool_parser/.test(d.message)));
  } finally {
    if (prevCache === undefined) delete process.env.AGENTJET_FACTS_CACHE;
    else process.env.AGENTJET_FACTS_CACHE = prevCache;
    rmSync(work, { recursive: true, force: true });
  }
});

test('agentjet lint with post-0.0.4 AgentJet installed: the same verdicts, and the release from the metadata', async () => {
  const work = mkdtempSync(join(tmpdir(), 'aj04inst-'));
  const prevCache = process.env.AGENTJET_FACTS_CACHE;
  process.env.AGENTJET_FACTS_CACHE = join(work, 'cache');
  try {
    const src = join(work, 'src');
    writeAgentJetTree(src, { release: '0.0.4', initVersion: '0.1.0' });
    const venv = join(work, 'venv');
    assert.equal(spawnSync('python3', ['-m', 'venv', '--without-pip', venv]).status, 0);
    const py = join(venv, 'bin', 'python');
    const site = spawnSync(py, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { encoding: 'utf8' }).stdout.trim();
    cpSync(join(src, 'ajet'), join(site, 'ajet'), { recursive: true });
    mkdirSync(join(site, 'agentjet-0.0.4.dist-info'));
    writeFileSync(join(site, 'agentjet-0.0.4.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: agentjet\nVersion: 0.0.4\n');
    writeFileSync(join(site, 'agentjet-0.0.4.dist-info', 'RECORD'), '');
    const found = await findInstalled(py);
    assert.equal(found?.release, '0.0.4', 'the metadata, not ajet.__version__ (0.1.0)');
    const proj = join(work, 'proj');
    project(proj);
    const out = await lint(proj, ['--python', py, 'good.yaml', 'bad.yaml', 'badloss.yaml']);
    check(out);
    assert.match(out.judgedBy[0] ?? '', /0\.0\.4/);
    assert.doesNotMatch(out.judgedBy[0] ?? '', /0\.1\.0/);
  } finally {
    if (prevCache === undefined) delete process.env.AGENTJET_FACTS_CACHE;
    else process.env.AGENTJET_FACTS_CACHE = prevCache;
    rmSync(work, { recursive: true, force: true });
  }
});

test('OPD with loss_mode k1 and no policy gradient is an error with a fix (AgentJet raises); k1+ or the gradient on is clean', async () => {
  const work = mkdtempSync(join(tmpdir(), 'aj04opd-'));
  const prevCache = process.env.AGENTJET_FACTS_CACHE;
  process.env.AGENTJET_FACTS_CACHE = join(work, 'cache');
  try {
    writeAgentJetTree(work);
    project(work);
    writeFileSync(join(work, 'k1.yaml'), config('hermes', 'default', 'k1'));
    writeFileSync(join(work, 'k1plus.yaml'), config('hermes', 'default', 'k1+'));
    writeFileSync(
      join(work, 'k1pg.yaml'),
      config('hermes', 'default', 'k1').replace('    loss_mode: k1', '    loss_mode: k1\n    use_policy_gradient: true'),
    );
    const out = await lint(work, ['k1.yaml', 'k1plus.yaml', 'k1pg.yaml']);
    const of = (name: string) => out.files.find((f) => f.file.endsWith(name))?.diagnostics ?? [];
    assert.deepEqual(
      of('k1.yaml').map((d) => `${d.severity} ${d.code}`),
      ['error cross-field/opd'],
    );
    assert.deepEqual(of('k1plus.yaml'), []);
    assert.deepEqual(of('k1pg.yaml'), []);
  } finally {
    if (prevCache === undefined) delete process.env.AGENTJET_FACTS_CACHE;
    else process.env.AGENTJET_FACTS_CACHE = prevCache;
    rmSync(work, { recursive: true, force: true });
  }
});
