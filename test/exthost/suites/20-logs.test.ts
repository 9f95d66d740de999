// Token log viewer in the real extension host: open, filter, open a timeline, hover a token,
// hostile text, virtualisation, follow a file another process appends to, trajectories.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import { extension, note, waitFor, workspaceRoot } from '../util';
import { LogSession } from '../../../core/logs/session';
import { hostileLogText } from '../../gen/logs';
import type { ViewCommand, ViewReport } from '../../../core/protocol/tokenlog';
import { findFile } from '../../util/findFile';
import { agentjetRecord } from '../../util/tokenlogs';

interface Inspected {
  path: string;
  report?: ViewReport;
  cache: string[];
  facts: { known: number; count: number; finished: boolean };
}

async function inspected(path: string): Promise<Inspected | undefined> {
  const all: Inspected[] = extension().exports.testing.logs.tokenLogs();
  return all.find((x) => x.path === path);
}

async function reportOf(path: string): Promise<ViewReport | undefined> {
  const all: Inspected[] = extension().exports.testing.logs.tokenLogs();
  return all.find((x) => x.path === path)?.report;
}

async function until(path: string, what: string, pred: (r: ViewReport) => boolean, timeoutMs = 30_000): Promise<ViewReport> {
  let last: ViewReport | undefined;
  try {
    return await waitFor(
      async () => {
        last = await reportOf(path);
        return last && pred(last) ? last : undefined;
      },
      what,
      timeoutMs,
    );
  } catch (err) {
    const { domText: _t, ...brief } = last ?? { domText: '' };
    throw new Error(`${err instanceof Error ? err.message : String(err)}; last report: ${JSON.stringify(brief)}`);
  }
}

async function drive(path: string, command: ViewCommand): Promise<void> {
  const n = extension().exports.testing.logs.driveTokenLogs(command, path);
  assert.ok(n > 0, 'no open view to drive');
}

/** A record of n tokens (a newline every 50), a quarter of them context. */
function record(step: number, task: string, n: number): string {
  const words = Array.from({ length: n }, (_, i) => (i % 50 === 49 ? '\n' : ` w${i}`));
  return agentjetRecord(step, task, words, { prompt: Math.floor(n / 4), logprob: '-0.2500', advantage: '0.500', firstId: 0 });
}

suite('token log viewer', () => {
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');
  teardown(closeAll);
  let rollout = '';

  suiteSetup(() => {
    rollout = findFile(join(workspaceRoot().fsPath, 'saved_experiments'), (p) => p.endsWith('rollout.json.log'))!;
    assert.ok(rollout, 'the demo has a rollout log');
  });

  test('open a log, filter by step, open a timeline, hover a token, navigate by keys', async () => {
    const expected = new LogSession(rollout);
    await expected.update();
    await expected.summarize();
    const opened = await vscode.commands.executeCommand<vscode.Uri>('agentjet.openTokenLog', vscode.Uri.file(rollout));
    assert.equal(opened?.fsPath, rollout);
    const r0 = await until(
      rollout,
      'records listed',
      (r) => r.records === expected.count && r.listTotal === expected.count && r.listRows > 0 && !r.indexing,
    );
    note(`listed ${r0.records} records, ${r0.listRows} rows in the DOM`);
    const step1 = expected.query({ stepMin: 1, stepMax: 1 });
    assert.ok(step1.length > 0);
    await drive(rollout, { kind: 'filter', filter: { stepMin: 1, stepMax: 1 } });
    await until(rollout, 'the step filter applied', (r) => r.listTotal === step1.length);
    await drive(rollout, { kind: 'open', index: step1[0]! });
    const rec = await expected.record(step1[0]!);
    assert.ok(rec?.ok);
    const tokens = rec.record.timelines[0]!.text.length;
    const opened1 = await until(
      rollout,
      'a timeline rendered',
      (r) => r.selected === step1[0] && r.timelineTokens === tokens && r.domTokens > 0,
    );
    assert.equal(opened1.kind, 'tokens');
    await drive(rollout, { kind: 'hover', token: 3 });
    const hovered = await until(rollout, 'hover card', (r) => (r.hover ?? '').startsWith('token 4 of'));
    assert.match(hovered.hover!, /id .* · (logprob n\/a|logprob -?\d)/);
    assert.match(hovered.hover!, /mask (0 \(context\)|1 \(trained\))/);
    // n jumps to the start of the next trained segment.
    await drive(rollout, { kind: 'key', key: 'n' });
    const onTrained = await until(rollout, 'cursor on a trained token', (r) => r.cursor !== undefined);
    assert.equal(rec.record.timelines[0]!.mask[onTrained.cursor!], 1);
    // Copy as text and as JSON go to the clipboard.
    await drive(rollout, { kind: 'copy', what: 'text' });
    const tl0 = rec.record.timelines[0]!;
    await waitFor(async () => (await vscode.env.clipboard.readText()) === tl0.text.join(''), 'timeline text on the clipboard');
    await drive(rollout, { kind: 'copy', what: 'json' });
    const copied = await waitFor(async () => {
      try {
        return JSON.parse(await vscode.env.clipboard.readText()) as { tokens: string[]; mask: number[]; task: string };
      } catch {
        return undefined;
      }
    }, 'timeline JSON on the clipboard');
    assert.deepEqual(copied.tokens, tl0.text);
    assert.deepEqual(copied.mask, tl0.mask);
    // Group view: every timeline of this task at this step, side by side.
    const sameTask = expected.query({ stepMin: 1, stepMax: 1 }).filter((i) => expected.row(i).taskId === rec.record.taskId);
    await drive(rollout, { kind: 'group', on: true });
    const grouped = await until(rollout, 'group view', (r) => r.group > 0);
    assert.equal(grouped.group, sameTask.length, 'one column per timeline of the task (one timeline per record here)');
    await drive(rollout, { kind: 'group', on: false });
    await drive(rollout, { kind: 'mode', mode: 'heat' });
    await until(rollout, 'heat map mode', (r) => r.mode === 'heat');
    // Text search streams its matches.
    const word = rec.record.timelines[0]!.text.slice(5, 8).join('').trim();
    await drive(rollout, { kind: 'filter', filter: { text: word } });
    const hits = await expected.search(word.toLowerCase(), expected.query());
    const searched = await until(rollout, 'search results', (r) => r.listTotal === hits.length);
    note(`search "${word}": ${searched.listTotal} records`);
    // Opening a result puts the cursor on its first match.
    await drive(rollout, { kind: 'select', position: 0 });
    await until(rollout, 'cursor on the first match', (r) => r.selected === hits[0]!.index && r.cursor === hits[0]!.token);
  });

  test('reopening an unchanged log is served from the facts cache; a rewritten one is read afresh', async () => {
    const dir = join(workspaceRoot().fsPath, 'tmp-logs-cache');
    mkdirSync(dir, { recursive: true });
    const log = join(dir, `cached-${Date.now()}.json.log`);
    const content = (step: number) => Array.from({ length: 12 }, (_, i) => record(i < 8 ? step : step + 1, `t${i % 4}`, 40 + i)).join('');
    writeFileSync(log, content(1));
    const open = async (what: string) => {
      await vscode.commands.executeCommand('agentjet.openTokenLog', vscode.Uri.file(log));
      await until(log, `${what}: records listed`, (r) => r.records === 12 && r.listTotal === 12 && !r.indexing);
      return waitFor(async () => {
        const x = await inspected(log);
        return x?.facts.finished ? x : undefined;
      }, `${what}: token counts of every record`);
    };
    try {
      const first = await open('first opening');
      assert.deepEqual(first.cache, ['miss']);
      assert.equal(first.facts.known, 12);
      await closeAll();
      await waitFor(async () => ((await inspected(log)) === undefined ? true : undefined), 'the document closed');
      const again = await open('reopened');
      assert.deepEqual(again.cache, ['hit'], 'an unchanged file is served from the cache');
      assert.equal(again.facts.known, 12);
      await drive(log, { kind: 'filter', filter: { stepMin: 2, stepMax: 2 } });
      await until(log, 'filter on cached facts', (r) => r.listTotal === 4);
      await closeAll();
      await waitFor(async () => ((await inspected(log)) === undefined ? true : undefined), 'the document closed');
      // Rewritten in place with other steps (same size): never served from the cache.
      writeFileSync(log, content(5));
      const rewritten = await open('rewritten');
      assert.deepEqual(rewritten.cache, ['invalidated']);
      await drive(log, { kind: 'filter', filter: { stepMin: 5, stepMax: 5 } });
      await until(log, 'the rewritten steps listed', (r) => r.listTotal === 8);
    } finally {
      await closeAll();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('hostile token text renders literally, never as markup', async () => {
    const dir = join(workspaceRoot().fsPath, 'hostile');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'hostile.json.log');
    // The project's generator (test/gen): HTML/JS-looking and control-character tokens.
    writeFileSync(file, hostileLogText());
    const s = new LogSession(file);
    await s.update();
    let target: { index: number; timeline: number; token: number; text: string } | undefined;
    for (let i = 0; i < s.count && !target; i++) {
      const r = await s.record(i);
      if (!r?.ok) continue;
      r.record.timelines.forEach((t, ti) => {
        const k = t.text.findIndex((x) => x.includes('<script>'));
        if (k >= 0 && !target) target = { index: i, timeline: ti, token: k, text: t.text[k]! };
      });
    }
    assert.ok(target, 'the fixture has a <script> token');
    await vscode.commands.executeCommand('agentjet.openTokenLog', vscode.Uri.file(file));
    await until(file, 'records listed', (r) => r.records === s.count && !r.indexing);
    await drive(file, { kind: 'open', index: target.index, timeline: target.timeline });
    await until(file, 'the timeline', (r) => r.selected === target!.index && r.timeline === target!.timeline && r.domTokens > 0);
    await drive(file, { kind: 'hover', token: target.token });
    const r = await until(file, 'the hostile token in view', (x) => x.domText.includes(target!.text) && x.hover !== undefined);
    assert.equal(r.injected, 0, 'no element was created from token text');
    assert.ok(r.hover!.includes(JSON.stringify(target.text)));
    const closing = await until(file, 'tokens in view', (x) => x.domTokens > 0);
    note(`hostile: ${closing.domTokens} token spans, elements from token text: ${closing.injected}`);
  });

  test('a 100,000-token timeline keeps only the visible tokens in the DOM', async () => {
    const file = join(workspaceRoot().fsPath, 'big', 'big.json.log');
    mkdirSync(join(workspaceRoot().fsPath, 'big'), { recursive: true });
    writeFileSync(file, record(0, 'bigtask', 100_000));
    await vscode.commands.executeCommand('agentjet.openTokenLog', vscode.Uri.file(file));
    await until(file, 'listed', (r) => r.records === 1 && !r.indexing);
    await drive(file, { kind: 'open', index: 0 });
    const r = await until(file, 'the big timeline', (x) => x.timelineTokens === 100_000 && x.domTokens > 0);
    assert.ok(r.domTokens < 5000, `${r.domTokens} token spans in the DOM`);
    await drive(file, { kind: 'key', key: 'End' });
    const end = await until(file, 'the last token', (x) => x.cursor === 99_999);
    assert.ok(end.domTokens < 5000);
    note(`100k tokens: ${r.domTokens} spans at the top, ${end.domTokens} at the end`);
  });

  test('follows a file that another process appends to', async () => {
    const dir = join(workspaceRoot().fsPath, 'live', 'rollout');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'rollout.json.log');
    writeFileSync(file, record(0, 'live000', 200) + record(0, 'live001', 200));
    await vscode.commands.executeCommand('agentjet.openTokenLog', vscode.Uri.file(file));
    await until(file, 'two records', (r) => r.records === 2 && !r.indexing);
    await drive(file, { kind: 'follow', on: true });
    await until(file, 'follow on', (r) => r.follow);
    // Another process appends three records, one at a time, the last one in two writes.
    const more = [record(1, 'live002', 150), record(1, 'live003', 150), record(1, 'live004', 150)];
    const script = `const fs=require('fs');const parts=JSON.parse(process.argv[1]);const f=process.argv[2];
      let i=0;const half=parts[2].length>>1;const steps=[parts[0],parts[1],parts[2].slice(0,half),parts[2].slice(half)];
      const t=setInterval(()=>{fs.appendFileSync(f,steps[i++]);if(i===steps.length)clearInterval(t);},300);`;
    const child = spawn(process.execPath, ['-e', script, JSON.stringify(more), file], {
      stdio: 'ignore',
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    const exited = new Promise<number | null>((res) => child.on('exit', res));
    const r = await until(
      file,
      'appended records shown and followed',
      (x) => x.records === 5 && x.selected === 4 && x.timelineTokens === 150,
      30_000,
    );
    assert.equal(await exited, 0);
    note(`live tail: ${r.records} records, following record ${r.selected}`);
  });

  test('non-token records: an evaluation table reads as a table', async () => {
    const evalLog = findFile(
      join(workspaceRoot().fsPath, 'saved_experiments'),
      (p) => p.endsWith('evaluation.json.log') && statSync(p).size > 0,
    );
    assert.ok(evalLog);
    await vscode.commands.executeCommand('agentjet.openTokenLog', vscode.Uri.file(evalLog));
    await until(evalLog, 'listed', (r) => r.records > 0 && !r.indexing);
    await drive(evalLog, { kind: 'open', index: 0 });
    await until(evalLog, 'table record', (r) => r.kind === 'table');
  });

  test('a run folder opens its rollout log; trajectories open as transcripts', async () => {
    const sessionDir = resolve(rollout, '..', '..');
    const opened = await vscode.commands.executeCommand<vscode.Uri>('agentjet.openTokenLog', vscode.Uri.file(sessionDir));
    assert.ok(opened?.fsPath.endsWith('rollout.json.log'));
    await until(opened.fsPath, 'listed', (r) => r.records > 0);
    const traj = findFile(join(workspaceRoot().fsPath, 'saved_experiments'), (p) => /[\\/]trajectory[\\/].*\.json$/.test(p));
    assert.ok(traj);
    await vscode.commands.executeCommand('agentjet.openTrajectory', vscode.Uri.file(traj));
    const t = await waitFor(async () => {
      const all = extension().exports.testing.logs.trajectories();
      return all.find((x) => x.path === traj)?.report;
    }, 'the trajectory transcript');
    assert.equal(t.error, undefined);
    assert.ok(t.messages > 0 && t.timelines > 0);
  });
});
