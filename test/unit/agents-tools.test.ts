// The agent tools' pure parts: the manifest declares exactly core's tools and schemas, arguments
// are checked, answers are cut with a note, paths stay inside the roots, the reward curve summary,
// and the MCP client config merge that never loses a user's file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import {
  ACT_TOOLS,
  AGENT_TOOLS,
  MAX_ANSWER_CHARS,
  bound,
  callTool,
  insideRoots,
  renderRecord,
  summariseCurve,
  type AgentToolEnv,
} from '../../core/agents/tools';
import { checkArgs } from '../../core/agents/schema';
import { mcpLaunch, withServerEntry } from '../../core/agents/clientConfig';
import type { RecordData } from '../../core/protocol/tokenlog';

interface ManifestTool {
  name: string;
  displayName: string;
  modelDescription: string;
  inputSchema: unknown;
  when?: string;
}

test('package.json declares the same tools, in order, with the same input schemas; the doctor and the acting tools only in a trusted workspace', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    contributes: { languageModelTools: ManifestTool[]; mcpServerDefinitionProviders: { id: string }[] };
  };
  const nls = JSON.parse(readFileSync(join(repoRoot, 'package.nls.json'), 'utf8')) as Record<string, string>;
  const declared = pkg.contributes.languageModelTools;
  assert.deepEqual(
    declared.map((t) => t.name),
    [...AGENT_TOOLS, ...ACT_TOOLS].map((t) => t.name),
  );
  for (const tool of [...AGENT_TOOLS, ...ACT_TOOLS]) {
    const d = declared.find((x) => x.name === tool.name)!;
    assert.deepEqual(d.inputSchema, tool.inputSchema, tool.name);
    assert.equal(nls[d.modelDescription.replace(/^%|%$/g, '')], tool.description, tool.name);
    assert.equal(nls[d.displayName.replace(/^%|%$/g, '')], tool.title, tool.name);
    // Restricted Mode offers no tool that runs the interpreter or acts.
    assert.equal(d.when, tool.runsWorkspaceCode === 'always' || tool.acts ? 'isWorkspaceTrusted' : undefined, tool.name);
  }
  assert.deepEqual(
    AGENT_TOOLS.filter((t) => t.runsWorkspaceCode === 'always').map((t) => t.name),
    ['agentjet_doctor'],
  );
  assert.deepEqual(
    pkg.contributes.mcpServerDefinitionProviders.map((p) => p.id),
    ['agentjet.mcp'],
  );
});

test("each tool's description says whether it runs the workspace's interpreter and where it reaches", () => {
  for (const tool of [...AGENT_TOOLS, ...ACT_TOOLS]) {
    assert.equal(/runs the workspace's interpreter/i.test(tool.description), tool.runsWorkspaceCode !== 'never', tool.name);
    assert.equal(
      /only when one was handed in|only with an interpreter handed in/.test(tool.description),
      tool.runsWorkspaceCode !== 'never',
      tool.name,
    );
    assert.equal(/HTTP/.test(tool.description), tool.network, tool.name);
  }
});

test('arguments are checked against the schema', () => {
  const schema = AGENT_TOOLS.find((t) => t.name === 'agentjet_log_search')!.inputSchema;
  assert.deepEqual(checkArgs(schema, { path: 'a', query: 'b', limit: 3 }), { ok: true, args: { path: 'a', query: 'b', limit: 3 } });
  const bad = (raw: unknown) => {
    const r = checkArgs(schema, raw);
    assert.equal(r.ok, false, JSON.stringify(raw));
    return r.ok ? '' : r.problem;
  };
  assert.match(bad({ query: 'b' }), /"path" is required/);
  assert.match(bad({ path: 'a', query: 'b', limit: 0 }), /at least 1/);
  assert.match(bad({ path: 'a', query: 'b', limit: 2.5 }), /whole number/);
  assert.match(bad({ path: 'a', query: '' }), /must not be empty/);
  assert.match(bad({ path: 7, query: 'b' }), /must be a string/);
  assert.match(bad({ path: 'a', query: 'b', __proto__x: 1 }), /unknown argument/);
  assert.match(bad([1]), /must be an object/);
  assert.match(bad('x'), /must be an object/);
  // Nothing given is an empty object (tools without required arguments).
  assert.deepEqual(checkArgs(AGENT_TOOLS.find((t) => t.name === 'agentjet_doctor')!.inputSchema, undefined), { ok: true, args: {} });
});

test('an answer longer than the bound is cut with a note; a short one is left alone', () => {
  assert.equal(bound('short'), 'short');
  const long = 'x'.repeat(MAX_ANSWER_CHARS * 2);
  const cut = bound(long);
  assert.ok(cut.startsWith('x'.repeat(MAX_ANSWER_CHARS)));
  assert.ok(cut.length < MAX_ANSWER_CHARS + 200);
  assert.match(cut, new RegExp(`\\[answer cut at ${MAX_ANSWER_CHARS} of ${MAX_ANSWER_CHARS * 2} characters`));
});

test('a JSON answer over the bound stays JSON: the cut text a string beside the hint', () => {
  const long = JSON.stringify({ items: Array.from({ length: 5000 }, (_, i) => ({ i, text: 'a "quoted" \\ line' })) });
  const cut = bound(long);
  assert.ok(cut.length <= MAX_ANSWER_CHARS, String(cut.length));
  const parsed = JSON.parse(cut) as { cut: boolean; more: string; partial: string };
  assert.equal(parsed.cut, true);
  assert.match(parsed.more, /answer cut at/);
  assert.ok(long.startsWith(parsed.partial) && parsed.partial.length > MAX_ANSWER_CHARS / 2);
});

test('paths: inside the roots only, links out refused, relative paths against the first root', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-agents-'));
  try {
    const root = join(dir, 'root');
    const out = join(dir, 'out');
    mkdirSync(join(root, 'sub'), { recursive: true });
    mkdirSync(out);
    writeFileSync(join(root, 'sub', 'a.yaml'), 'ajet: {}\n');
    writeFileSync(join(out, 'b.yaml'), 'ajet: {}\n');
    symlinkSync(out, join(root, 'link'));
    const env: AgentToolEnv = { roots: [root], mayRunPython: false };
    assert.equal(await insideRoots(env, 'sub/a.yaml'), join(root, 'sub', 'a.yaml'));
    assert.equal(await insideRoots(env, undefined), root);
    await assert.rejects(insideRoots(env, 'link/b.yaml'), /outside the folder this server may read/);
    await assert.rejects(insideRoots(env, '../out/b.yaml'), /outside the folder this server may read/);
    await assert.rejects(insideRoots(env, join(out, 'b.yaml')), /outside the folder this server may read/);
    await assert.rejects(insideRoots(env, 'nope.yaml'), /no such file or folder: nope\.yaml/);
    await assert.rejects(insideRoots({ roots: [], mayRunPython: false }, 'x'), /no folder is open/);
    // Through callTool: an error answer, never a throw.
    const r = await callTool('agentjet_lint', { path: 'link/b.yaml' }, env);
    assert.equal(r.isError, true);
    const doctor = await callTool('agentjet_doctor', {}, env);
    assert.equal(doctor.isError, true);
    assert.match(doctor.text, /none was handed to it/);
    assert.equal((await callTool('no_such_tool', {}, env)).isError, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the reward curve summary: first, last, best, worst, the steepest fall, sampled points', () => {
  const points = [0.2, 0.5, 0.6, 0.1, 0.3].map((r, i) => ({ step: i, records: 2, meanReward: r, firstTime: '' }));
  const s = summariseCurve(points) as {
    steps: number;
    first: { step: number };
    last: { step: number; meanReward: number };
    best: { step: number };
    worst: { step: number };
    steepestFall: { from: number; to: number; by: number };
    points: unknown[];
  };
  assert.equal(s.steps, 5);
  assert.equal(s.best.step, 2);
  assert.equal(s.worst.step, 3);
  assert.deepEqual(s.steepestFall, { from: 2, to: 3, by: 0.5 });
  assert.equal(s.last.meanReward, 0.3);
  assert.equal(s.points.length, 5);
  const many = Array.from({ length: 1000 }, (_, i) => ({ step: i, records: 1, meanReward: i % 7, firstTime: '' }));
  const big = summariseCurve(many) as { points: { step: number }[]; sampledEvery: number };
  assert.ok(big.points.length <= 41);
  assert.equal(big.points.at(-1)!.step, 999, 'the last step is always kept');
  assert.deepEqual(summariseCurve([{ step: 0, records: 1, firstTime: '' }]), { steps: 1 });
});

test('a record as text: context and trained runs, control characters made visible', () => {
  const rec: RecordData = {
    time: '2026-01-01 00:00:00.000',
    level: 'INFO',
    source: 'x',
    title: '[3] Task t1 (Reward 1.000)',
    step: 3,
    taskId: 't1',
    reward: 1,
    outcome: '1.0',
    kind: 'tokens',
    table: [],
    content: '',
    attach: '',
    warnings: [],
    timelines: [
      {
        key: 't1.0.0',
        taskId: 't1',
        outcome: '1.0',
        index: 0,
        rawReward: 1,
        advantage: 0.5,
        fields: {},
        text: ['<|im_start|>user', ' 2+2?', '\x1b[31m', '4', '<|im_end|>'],
        ids: [1, 2, 3, 4, 5],
        logprobs: [null, null, -0.1, -0.2, -0.3],
        mask: [0, 0, 1, 1, -1],
        warnings: [],
        titleKind: 'logprob',
      } as RecordData['timelines'][number],
    ],
  };
  const text = renderRecord(7, 'rollout.json.log', rec);
  assert.match(text, /# Record 7 of rollout\.json\.log/);
  assert.match(text, /step: 3 {2}task: t1 {2}reward: 1/);
  assert.match(text, /raw_reward: 1 {2}advantage: 0\.5/);
  assert.match(text, /5 tokens, 2 trained \(loss mask 1\)/);
  assert.match(
    text,
    /--- context, loss mask 0 \(2 tokens\) ---\n<\|im_start\|>user 2\+2\?\n--- trained, loss mask 1 \(2 tokens\) ---\n\\x1b\[31m4\n--- loss mask unknown \(1 tokens\) ---/,
  );
  assert.ok(!text.includes('\x1b'), 'no raw escape reaches the agent');
});

test("MCP client config: the entry is added beside the user's servers; a file with comments is never rewritten", () => {
  const launch = { command: '/usr/bin/node', args: ['/ext/dist/cli.js', 'mcp', '--root', '/proj'], env: {} };
  const fresh = JSON.parse(withServerEntry(undefined, 'vscode', launch)!) as { servers: Record<string, unknown> };
  assert.deepEqual(fresh, { servers: { agentjet: { type: 'stdio', command: '/usr/bin/node', args: launch.args } } });
  const existing = JSON.stringify({ mcpServers: { other: { command: 'x' } }, extra: 1 });
  const merged = JSON.parse(withServerEntry(existing, 'claude', { ...launch, env: { ELECTRON_RUN_AS_NODE: '1' } })!) as Record<
    string,
    unknown
  >;
  assert.deepEqual(merged, {
    mcpServers: { other: { command: 'x' }, agentjet: { command: '/usr/bin/node', args: launch.args, env: { ELECTRON_RUN_AS_NODE: '1' } } },
    extra: 1,
  });
  assert.equal(withServerEntry('{ // mine\n "servers": {} }', 'vscode', launch), undefined);
  assert.equal(withServerEntry('[1,2]', 'vscode', launch), undefined);
  const l = mcpLaunch('/ext', '/proj', false);
  assert.equal(l.command, process.execPath);
  assert.deepEqual(l.args, [join('/ext', 'dist', 'cli.js'), 'mcp', '--root', '/proj', '--no-python']);
  // Only a workspace the user trusts hands the folder's interpreter to the server.
  assert.deepEqual(mcpLaunch('/ext', '/proj', true).args, [join('/ext', 'dist', 'cli.js'), 'mcp', '--root', '/proj', '--trust-folder']);
});
