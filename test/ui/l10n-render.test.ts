// Item 5 of issue 23: every webview (dashboard, token log viewer, trajectory viewer) and every report
// (Check Environment / `agentjet doctor`, the Runs tooltip, `agentjet runs`) rendered in Simplified
// Chinese, and scanned for English left in what a user reads (text, tooltips, accessible names).
// The webviews run their real bundles (dist/media/*.js) in Chromium with the page catalogue
// webviewHtml embeds; the host's messages are posted as the extension posts them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../harness/server';
import { repoRoot } from '../util/paths';
import { keptWords, untranslatedWords } from '../util/l10nscan';
import { setLocale, webviewCatalogue } from '../../core/l10n';
import type { DashboardRun } from '../../core/protocol/dashboard';
import type { HostToView, Row, TrajectoryHostToView } from '../../core/protocol/tokenlog';
import type { HostToOverwatch } from '../../core/protocol/swarm';
// Imported before the language is set, as the extension's bundle loads before activate() sets it:
// text made at module load would stay English.
import { evaluate, type Check, type DoctorInput } from '../../core/doctor/checks';
import { toMarkdown, toText } from '../../core/doctor/report';
import { runTooltip } from '../../core/runs/format';

const zhWebview = webviewCatalogue('zh-cn');
const zhCore = JSON.parse(readFileSync(join(repoRoot, 'core', 'l10n', 'zh-cn.json'), 'utf8')) as Record<string, string>;
// What the translations keep in English on purpose (AgentJet, rollout, token, …); CLI usage texts
// keep option descriptions' words and are left out of this list.
const KEPT = new Set([
  ...keptWords(zhWebview),
  ...keptWords(Object.fromEntries(Object.entries(zhCore).filter(([k]) => !k.startsWith('Usage:')))),
]);

/** Words of the data shown (AgentJet's own messages, roles, run names): not ours to translate. */
function dataWords(...data: unknown[]): Set<string> {
  return new Set(JSON.stringify(data).match(/[A-Za-z]{3,}/g) ?? []);
}

async function renderWebview(page: Page, name: string, styles: string[], messages: unknown[], ready: string): Promise<string> {
  const script = readFileSync(join(repoRoot, 'dist', 'media', `${name}.js`), 'utf8').replace(/<\/script/gi, '<\\/script');
  const css = ['shared/base.css', ...styles].map((s) => readFileSync(join(repoRoot, 'media', s), 'utf8')).join('\n');
  const l10n = JSON.stringify(zhWebview).replace(/</g, '\\u003c');
  await page.setContent(
    `<!DOCTYPE html><html lang="zh-CN"><head><meta charset="UTF-8"><style>${css}</style></head><body>` +
      `<div id="root" role="application"></div><script type="application/json" id="agentjet-l10n">${l10n}</script>` +
      `<script>window.acquireVsCodeApi = () => ({ postMessage() {}, getState() { return undefined; }, setState() {} });</script>` +
      `<script>${script}</script></body></html>`,
  );
  for (const m of messages) await page.evaluate((msg) => window.postMessage(msg, '*'), m);
  await page.locator(ready).first().waitFor({ state: 'attached', timeout: 20_000 });
  // What a user reads: text, tooltips, accessible names, placeholders.
  return page.evaluate(() => {
    const attrs = ['title', 'aria-label', 'placeholder', 'alt'];
    const parts = [document.body.innerText];
    for (const e of Array.from(document.querySelectorAll('*'))) for (const a of attrs) parts.push(e.getAttribute(a) ?? '');
    return parts.join('\n');
  });
}

const RUN: DashboardRun = {
  id: '/w/saved_experiments/数学_20260503_1007',
  label: '数学_20260503_1007',
  status: 'ended',
  steps: [1, 2, 3].map((s) => ({
    step: s,
    records: 4,
    meanReward: s / 4,
    successRate: 0.5,
    meanResponseLength: 120,
    firstTime: `2026-05-03 10:0${s}:00`,
  })),
  evals: [{ index: 1, time: '2026-05-03 10:09:00', header: 'gsm8k_test', metrics: { 'TGC@1': 0.5 }, rows: [['TGC@1', '0.5']] }],
  exceptions: [
    {
      time: '2026-05-03 10:05:00',
      title: 'Prompt token ids mismatch, Please report a github issue',
      detail: '',
      source: 'exception',
      file: '/w/e.log',
      harmless: true,
    },
    { time: '2026-05-03 10:06:00', title: 'ValueError: 数值错误', detail: '', source: 'exception', file: '/w/e.log' },
  ],
  pendingBytes: 0,
};
const stopped: DashboardRun = { ...RUN, id: '/w/saved_experiments/b', label: '乙', status: 'stopped', exceptions: [] };

const TOKEN_ROW: Row = {
  index: 0,
  time: Date.UTC(2026, 4, 3, 10, 0, 0),
  step: 123456,
  taskId: '任务_1',
  reward: 1,
  outcome: '1.0',
  timelines: 2,
  tokens: 3443,
  trained: 2200,
  kind: 'tokens',
  title: '[1] 任务 1',
};
const TABLE_ROW: Row = { index: 1, time: Date.UTC(2026, 4, 3, 10, 0, 5), title: 'gsm8k_test', kind: 'table' };
const TOKENLOG: HostToView[] = [
  { type: 'init', name: 'rollout.json.log', files: ['/w/rollout.json.log'] },
  { type: 'status', records: 2, bytes: 4096, partialTail: false, problems: [], outcomes: ['1.0'], steps: [123456, 123456] },
  { type: 'list', version: 1, total: 2, searching: false },
  { type: 'rows', version: 1, offset: 0, rows: [TOKEN_ROW, TABLE_ROW] },
];
const TRAJECTORY: TrajectoryHostToView = {
  type: 'trajectory',
  name: '任务_1.json',
  ok: true,
  data: {
    taskId: '任务_1',
    tag: 'success',
    rewards: [['raw_reward', '1.0']],
    timelines: [
      [
        { role: 'user', content: '十二乘七是多少？', toolCalls: [] },
        { role: 'assistant', content: '八十四。', toolCalls: [] },
      ],
    ],
  },
};

test('every webview rendered in zh-CN shows no untranslated English', async () => {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ locale: 'zh-CN' });
    const found: Record<string, string[]> = {};
    // With a page of the per-task table (the page's first question has seq 1).
    const taskPage = {
      type: 'tasks',
      run: RUN.id,
      seq: 1,
      total: 2,
      offset: 0,
      reading: true,
      rows: [
        {
          id: '任务_1',
          rollouts: 4,
          meanReward: 0.25,
          minReward: 0,
          maxReward: 1,
          lastReward: 0,
          successRate: 0.25,
          steps: [1, 2, 3],
          stepCount: 3,
        },
        { id: '', rollouts: 1, steps: [], stepCount: 0 },
      ],
    };
    const dash = await renderWebview(
      page,
      'dashboard',
      ['dashboard/dashboard.css'],
      [{ type: 'runs', runs: [{ ...RUN, tasks: 3 }, stopped] }, taskPage],
      '.tasks tbody tr',
    );
    found.dashboard = untranslatedWords(dash, new Set([...KEPT, ...dataWords(RUN, stopped)]));
    assert.ok(dash.includes('已结束') && dash.includes('已停止'), 'the status badges are in Chinese');
    const tl = await renderWebview(
      page,
      'tokenlog',
      ['tokenlog/tokenlog.css', 'tokenlog/list.css', 'tokenlog/detail.css'],
      TOKENLOG,
      '.viewport .row[data-pos]',
    );
    found.tokenlog = untranslatedWords(tl, new Set([...KEPT, ...dataWords(TOKENLOG)]));
    const tr = await renderWebview(page, 'trajectory', [], [TRAJECTORY], '.msg');
    found.trajectory = untranslatedWords(tr, new Set([...KEPT, ...dataWords(TRAJECTORY)]));
    assert.deepEqual(found, { dashboard: [], tokenlog: [], trajectory: [] });
  } finally {
    await browser.close();
  }
});

const A = '1a2b3c4d-0000-4000-8000-00000000000a';
const OVERWATCH: HostToOverwatch = {
  type: 'data',
  data: {
    url: 'http://127.0.0.1:10086',
    reachability: 'ok',
    engineState: 'ENGINE.ROLLING',
    stateFor: '持续 3 分 5 秒',
    globalStep: 3,
    model: '/models/qwen',
    experimentDir: '/w/exp',
    method: 'rollout_until_finish_enough_tasks',
    local: false,
    progress: [{ label: '任务', current: 1, target: 4 }],
    activeClients: [{ id: A, agreed: true, mine: true }],
    tasks: [{ taskId: 'task-0', episodes: 2, mean: 0.5, std: 0.5, clients: [A], mine: true }],
    byClient: [
      {
        client: A,
        running: 1,
        completed: 2,
        tasks: 1,
        llmCalls: 2,
        mean: 0.5,
        rewarded: 2,
        lastReward: 0,
        active: true,
        agreed: true,
        mine: true,
      },
      { client: 'b', running: 1, tasks: 0, llmCalls: 1, rewarded: 0, active: true, agreed: false },
    ],
    running: [{ episode: 'e1', client: A, llmCalls: 2, sinceActivity: '1.0s', timeout: '60.0s', taskId: 'task-1', mine: true }],
    editorClients: [
      { session: 'my_swarm_client.py', clients: [A], runningEpisodes: 1 },
      { session: 'other_client.py', clients: [], runningEpisodes: 0 },
    ],
    rewards: [{ step: 1, mean: 0.5, episodes: 4 }],
    logs: [],
  },
};

test("the swarm overwatch rendered in zh-CN, with the editor's client marked, shows no untranslated English", async () => {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ locale: 'zh-CN' });
    const text = await renderWebview(page, 'swarm', ['swarm/swarm.css'], [OVERWATCH], 'tr.sw-mine');
    assert.deepEqual(untranslatedWords(text, new Set([...KEPT, ...dataWords(OVERWATCH)])), []);
    assert.ok(text.includes('从编辑器启动') && text.includes('未报告'), 'the editor line and "not reported" are in Chinese');
  } finally {
    await browser.close();
  }
});

test('every report rendered in zh-cn (Check Environment, agentjet doctor, the Runs tooltip) shows no untranslated English', async () => {
  setLocale('zh-cn');
  try {
    const input: DoctorInput = {
      python: '/venv/bin/python',
      probe: {
        ok: true,
        facts: {
          python: '/venv/bin/python',
          version: '3.9.1',
          venv: true,
          packages: {},
          launchers: {},
          port: { port: 18000, inUse: true, holderPid: 77, holderArgs: 'nc' },
        },
      },
      gpu: { available: false, gpus: [], error: null },
      trusted: false,
    };
    const checks: Check[] = evaluate(input);
    const reports = { markdown: toMarkdown(checks, '/venv/bin/python'), text: toText(checks, '/venv/bin/python') };
    const found: Record<string, string[]> = {};
    // Commands to copy are shown as written (code blocks, the text report's fix lines).
    const prose = (v: string) =>
      v
        .replace(/```[\s\S]*?```/g, '')
        .replace(/\(command:[^)]*\)/g, '')
        .replace(/(git clone|\S*python\S* -m pip).*$/gm, '');
    for (const [k, v] of Object.entries(reports)) found[k] = untranslatedWords(prose(v), KEPT);
    const info = {
      entry: {
        name: '数学_20260503_1007',
        path: '/w/saved_experiments/数学_20260503_1007',
        root: '/w/saved_experiments',
        timeMs: 0,
        sessions: ['2026_05_03_10_07'],
      },
      status: 'stopped',
      evidence: [{ kind: 'launch-record', text: '由用户停止' }],
      sessions: [],
      hosts: ['gpu-node-0'],
      checkpoints: [],
      exceptionCount: 1,
      noteCount: 2,
      latestStep: 3,
      latestReward: 0.5,
    } as unknown as Parameters<typeof runTooltip>[0];
    found.tooltip = untranslatedWords(runTooltip(info, { bytes: 4096, complete: true }, 0), KEPT);
    assert.deepEqual(found, { markdown: [], text: [], tooltip: [] });
  } finally {
    setLocale('en');
  }
});
