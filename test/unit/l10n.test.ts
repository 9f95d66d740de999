// Simplified Chinese completeness: a manifest string, a vscode.l10n.t(...) string in extension/ or a
// core/l10n t(...) string (CLI, language server, core) without its zh-cn counterpart fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../util/paths';
import { scan, tsFiles } from '../util/l10nscan';
import { ALL_TEMPLATES } from '../../core/templates';
import { releaseName, shownDate } from '../../core/config/releases';
import { commands } from '../../cli/commands';
import { ACT_TOOLS, AGENT_TOOLS } from '../../core/agents/tools';
import {
  catalogueKeys,
  localeFromCli,
  localeFromInitialize,
  normalizeLocale,
  setLocale,
  t,
  webviewCatalogue,
  webviewCatalogueKeys,
} from '../../core/l10n';
import { describedNodes, descriptionCatalogue, localDescription, untranslatedDescriptions } from '../../core/config/schemaDescriptions';
import { schema, schemaAt, type ConfigSchema } from '../../core/config/schema';
import { bundledReleases } from '../../core/config/releases';
import { releaseRuleTexts } from '../../core/config/releaseRules';
import { parseConfig } from '../../core/config/parse';
import { hover, describePath } from '../../core/config/features';
import { ClassResolver } from '../../core/config/classref';
import { CachedFs } from '../../core/config/fs';

const json = (p: string) => JSON.parse(readFileSync(join(repoRoot, p), 'utf8')) as Record<string, string>;
/** Every x-unread and x-deprecatedMessage string in a schema. */
function schemaMessages(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const x of node) schemaMessages(x, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'x-unread' || k === 'x-deprecatedMessage') && typeof v === 'string') out.push(v);
      else schemaMessages(v, out);
    }
  }
  return out;
}
const placeholders = (s: string) =>
  [...s.matchAll(/\{(\d+)\}/g)]
    .map((m) => m[1])
    .sort()
    .join(',');

test('every user-visible manifest string is a %key% (node scripts/nls.mjs --check)', () => {
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'nls.mjs'), '--check'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});

test('every manifest %key% has English and Simplified Chinese text, and nothing extra', () => {
  const text = readFileSync(join(repoRoot, 'package.json'), 'utf8');
  const keys = [...new Set([...text.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1] as string))].sort();
  const en = json('package.nls.json');
  const zh = json('package.nls.zh-cn.json');
  assert.deepEqual(
    keys.filter((k) => !(k in en)),
    [],
    'in package.nls.json',
  );
  assert.deepEqual(
    keys.filter((k) => !(k in zh)),
    [],
    'missing in package.nls.zh-cn.json',
  );
  assert.deepEqual(
    Object.keys(zh).filter((k) => !(k in en)),
    [],
    'stale keys in package.nls.zh-cn.json',
  );
  for (const k of keys) {
    // Command links and code must survive translation.
    const links = (s: string) => [...s.matchAll(/\]\((command:[^)]+)\)/g)].map((m) => m[1]).join(' ');
    assert.equal(links(zh[k] ?? ''), links(en[k] ?? ''), `${k}: the zh-cn text keeps the same command links`);
    assert.notEqual(zh[k], en[k], `${k}: zh-cn is a translation, not a copy`);
  }
});

test('every vscode.l10n.t string in extension/ has a zh-cn translation with the same placeholders', () => {
  const { literals, dynamic } = scan(tsFiles(join(repoRoot, 'extension')), 'l10n\\.t', true);
  assert.deepEqual(
    dynamic.map((d) => `${relative(repoRoot, d.file)}:${d.line}: l10n.t(${d.text})`),
    [],
    'l10n.t needs a literal message',
  );
  const bundle = json('l10n/bundle.l10n.zh-cn.json');
  const missing = literals
    .filter((f) => !(f.text in bundle))
    .map((f) => `${relative(repoRoot, f.file)}:${f.line}: ${JSON.stringify(f.text)}`);
  assert.deepEqual(missing, [], 'add these to l10n/bundle.l10n.zh-cn.json');
  for (const f of literals) assert.equal(placeholders(bundle[f.text] ?? ''), placeholders(f.text), f.text);
  assert.ok(literals.length > 0, "the scanner finds the extension's strings");
});

test('every core/l10n t() string (core, cli, language server, debug adapter, extension), template/command text and schema message has a zh-cn translation', () => {
  const files = ['core', 'cli', 'language-server', 'debug-adapter', 'extension']
    .flatMap((d) => tsFiles(join(repoRoot, d)))
    .filter((f) => !f.endsWith(join('core', 'l10n', 'index.ts')))
    // Only files that use the catalogue (a local function named t elsewhere is not ours).
    .filter((f) => /from '(?:\.\.?\/)+(?:core\/)?l10n'/.test(readFileSync(f, 'utf8')));
  const { literals } = scan(files, 't|coreT');
  const texts = [
    ...literals.map((f) => ({ where: `${relative(repoRoot, f.file)}:${f.line}`, text: f.text })),
    ...ALL_TEMPLATES.flatMap((x) => [
      { where: `template ${x.id}`, text: x.title },
      { where: `template ${x.id}`, text: x.description },
    ]),
    ...commands.map((c) => ({ where: `cli ${c.name}`, text: c.summary })),
    // The agent tools' titles and descriptions (MCP tools/list shows them in the CLI's language).
    ...[...AGENT_TOOLS, ...ACT_TOOLS].flatMap((x) => [
      { where: `tool ${x.name}`, text: x.title },
      { where: `tool ${x.name}`, text: x.description },
    ]),
    // The release rules' messages and fix titles (core/config/releaseRules.ts: data the engine passes to t()).
    ...releaseRuleTexts().map((text) => ({ where: 'core/config/releaseRules.ts', text })),
    // Messages the schema carries into diagnostics and hovers (x-unread, x-deprecatedMessage).
    ...schemaMessages(JSON.parse(readFileSync(join(repoRoot, 'schemas', 'agentjet.schema.json'), 'utf8'))).map((text) => ({
      where: 'schemas/agentjet.schema.json',
      text,
    })),
  ];
  const zh = json('core/l10n/zh-cn.json');
  assert.deepEqual(
    texts.filter((x) => !(x.text in zh)).map((x) => `${x.where}: ${JSON.stringify(x.text)}`),
    [],
    'add these to core/l10n/zh-cn.json',
  );
  for (const x of texts) assert.equal(placeholders(zh[x.text] ?? ''), placeholders(x.text), x.text);
  const used = new Set(texts.map((x) => x.text));
  assert.deepEqual(
    catalogueKeys('zh-cn').filter((k) => !used.has(k)),
    [],
    'stale entries in core/l10n/zh-cn.json',
  );
});

test('every webview t() string in media/ has a zh-cn translation in core/l10n/webview.zh-cn.json', () => {
  const files = tsFiles(join(repoRoot, 'media'))
    .filter((f) => !f.endsWith(join('shared', 'l10n.ts')))
    .filter((f) => /from '(?:\.\.\/)+shared\/l10n'/.test(readFileSync(f, 'utf8')));
  const { literals, dynamic } = scan(files, 't|tr');
  assert.deepEqual(
    dynamic.map((d) => `${relative(repoRoot, d.file)}:${d.line}: t(${d.text})`),
    [],
    'a webview t() needs a literal message',
  );
  const zh = json('core/l10n/webview.zh-cn.json');
  assert.deepEqual(
    literals.filter((f) => !(f.text in zh)).map((f) => `${relative(repoRoot, f.file)}:${f.line}: ${JSON.stringify(f.text)}`),
    [],
    'add these to core/l10n/webview.zh-cn.json',
  );
  for (const f of literals) assert.equal(placeholders(zh[f.text] ?? ''), placeholders(f.text), f.text);
  const used = new Set(literals.map((f) => f.text));
  assert.deepEqual(
    webviewCatalogueKeys().filter((k) => !used.has(k)),
    [],
    'stale entries in core/l10n/webview.zh-cn.json',
  );
  // The three webviews use it: the token log viewer's controls at least.
  for (const name of ['tokenlog', 'dashboard', 'trajectory'])
    assert.ok(
      files.some((f) => f.includes(join('media', name))),
      `media/${name} uses media/shared/l10n`,
    );
  assert.ok(
    literals.some((f) => f.text === 'Copy JSON'),
    "the token log viewer's controls are localised",
  );
  assert.equal(webviewCatalogue('zh-CN')['Clear filters'], '清除筛选');
  assert.deepEqual(webviewCatalogue('en'), {});
});

test('the scanner sees what it must (a test that cannot fail is a defect)', () => {
  const { literals, dynamic } = scan([join(repoRoot, 'test', 'unit', 'l10n.test.ts')], 'l10n\\.t', true);
  // The next line is a fixture for the scanner, not a call.
  const fixture = "vscode.l10n.t('A {0} b', x); vscode.l10n.t(msg);";
  assert.ok(fixture && literals.some((f) => f.text === 'A {0} b') && dynamic.some((d) => d.text === 'msg'));
});

test('locale selection: --lang, LANG/LANGUAGE, initialize params; t() fills placeholders', () => {
  assert.equal(normalizeLocale('zh_CN.UTF-8'), 'zh-cn');
  assert.equal(normalizeLocale('zh-Hans-CN'), 'zh-cn');
  assert.equal(normalizeLocale('zh-TW'), 'en');
  assert.equal(normalizeLocale('de'), 'en');
  assert.deepEqual(localeFromCli(['doctor', '--lang', 'zh-cn', '--format', 'json'], {}), {
    locale: 'zh-cn',
    rest: ['doctor', '--format', 'json'],
  });
  assert.deepEqual(localeFromCli(['--lang=en', 'new'], { LANG: 'zh_CN.UTF-8' }), { locale: 'en', rest: ['new'] });
  assert.equal(localeFromCli([], { LANG: 'zh_CN.UTF-8' }).locale, 'zh-cn');
  assert.equal(localeFromCli([], { LANGUAGE: 'zh_CN:en', LANG: 'en_US.UTF-8' }).locale, 'zh-cn');
  assert.equal(localeFromCli([], { LC_ALL: 'C', LANG: 'zh_CN.UTF-8' }).locale, 'zh-cn');
  assert.equal(localeFromInitialize({ locale: 'zh-cn' }), 'zh-cn');
  assert.equal(localeFromInitialize({ locale: 'en', initializationOptions: { locale: 'zh-cn' } }), 'zh-cn');
  try {
    setLocale('zh-cn');
    assert.equal(t('Created {0} ({1}, {2} files).', '/p', 'x', 3), '已创建 /p（x，3 个文件）。');
    assert.equal(t('not in the catalogue {0}', 1), 'not in the catalogue 1');
  } finally {
    setLocale('en');
  }
  assert.equal(t('Created {0} ({1}, {2} files).', '/p', 'x', 3), 'Created /p (x, 3 files).');
});

/** The code spans (`…`) and URLs of a text, sorted: a translation keeps them character for character. */
const codeOf = (s: string) =>
  [...[...s.matchAll(/`[^`]*`/g)].map((m) => m[0]), ...[...s.matchAll(/https?:\/\/[^\s（）()]+/g)].map((m) => m[0])].sort();

test('every config key description in the schema has a current zh-cn translation (core/l10n/schema.zh-cn.json)', () => {
  const problems = untranslatedDescriptions();
  // A ready-to-edit entry for each: translate the English, record it as `en`.
  const todo = Object.fromEntries(
    problems.map((x) => [x.path, { en: x.en, 'zh-cn': x.problem === 'stale' ? `(was written for: ${x.was})` : '' }]),
  );
  assert.deepEqual(problems, [], `update core/l10n/schema.zh-cn.json:\n${JSON.stringify(todo, null, 2)}`);
  const paths = new Set(describedNodes().map((x) => x.path));
  assert.equal(paths.size, describedNodes().length, 'one path per described key');
  assert.ok(paths.size > 100, `the walk finds the schema's descriptions (${paths.size})`);
  // Each bundled later release (AgentJet 0.0.4): its own descriptions, as `<release>:<path>` entries.
  for (const r of bundledReleases().filter((x) => x.schema !== schema)) {
    const rel = r.release ?? '';
    const missing = untranslatedDescriptions(r.schema, rel);
    assert.deepEqual(missing, [], `update core/l10n/schema.zh-cn.json for AgentJet ${rel}`);
    for (const { path, node } of describedNodes(r.schema))
      if (descriptionCatalogue()[path]?.en !== node.description) paths.add(`${rel}:${path}`);
  }
  const catalogue = descriptionCatalogue();
  assert.deepEqual(
    Object.keys(catalogue).filter((k) => !paths.has(k)),
    [],
    'stale entries in core/l10n/schema.zh-cn.json (the key is gone from the schema)',
  );
  for (const [path, e] of Object.entries(catalogue)) {
    assert.ok(/[\u4e00-\u9fff]/.test(e['zh-cn']), `${path}: the zh-cn text is Chinese`);
    assert.deepEqual(codeOf(e['zh-cn']), codeOf(e.en), `${path}: the zh-cn text keeps the code spans and links`);
  }
});

test('the description check sees a changed and a new description (a test that cannot fail is a defect)', () => {
  const copy = structuredClone(schema) as ConfigSchema;
  const rollout = copy.properties?.ajet?.properties?.rollout;
  assert.ok(rollout?.properties?.num_repeat);
  rollout.properties.num_repeat.description = 'Rollouts per task.';
  rollout.properties.brand_new = { type: 'integer', description: 'A key the catalogue has never seen.' };
  const touched = new Set(['ajet.rollout.num_repeat', 'ajet.rollout.brand_new']);
  assert.deepEqual(
    untranslatedDescriptions(copy).filter((x) => touched.has(x.path)),
    [
      {
        path: 'ajet.rollout.num_repeat',
        en: 'Rollouts per task.',
        problem: 'stale',
        was: descriptionCatalogue()['ajet.rollout.num_repeat']?.en,
      },
      { path: 'ajet.rollout.brand_new', en: 'A key the catalogue has never seen.', problem: 'missing' },
    ],
  );
});

test('hover and completion documentation show the key description in the core locale (zh-cn), English otherwise', () => {
  const ctx = { resolver: new ClassResolver(new CachedFs()) };
  const zh = (path: string) => descriptionCatalogue()[path]?.['zh-cn'] ?? assert.fail(`no zh-cn for ${path}`);
  const en = (path: string) => descriptionCatalogue()[path]?.en ?? assert.fail(`no entry for ${path}`);
  const text = 'ajet:\n  rollout:\n    num_repeat: 4\nastuner:\n  model:\n    path: Qwen/Qwen2.5-7B\n';
  const p = parseConfig(text);
  const hoverAt = (needle: string) => hover(p, text.indexOf(needle) + 2, ctx)?.markdown ?? assert.fail(`no hover on ${needle}`);
  try {
    setLocale('zh-cn');
    const h = hoverAt('num_repeat');
    assert.ok(h.includes(zh('ajet.rollout.num_repeat')), h);
    assert.ok(!h.includes(en('ajet.rollout.num_repeat')), h);
    assert.match(h, /默认值：`\d+`/);
    // A key reached through `astuner:` ($ref to `ajet:`) shares the translation of the `ajet:` key.
    assert.ok(hoverAt('path').includes(zh('ajet.model.path')));
    // Completion items resolve their documentation from the same text.
    assert.ok(describePath(['ajet', 'rollout', 'user_workflow'], 'agentjet')?.includes(zh('ajet.rollout.user_workflow')));
    assert.ok(describePath(['defaults', '0'], 'agentjet')?.includes(zh('defaults[]')));
    // A translation written from older English is not shown: the current English is.
    const node = schemaAt(['ajet', 'rollout', 'num_repeat']);
    assert.ok(node);
    const was = node.description;
    try {
      node.description = 'Rollouts per task (changed upstream).';
      assert.equal(localDescription(node), 'Rollouts per task (changed upstream).');
      assert.ok(hoverAt('num_repeat').includes('Rollouts per task (changed upstream).'));
    } finally {
      node.description = was;
    }
  } finally {
    setLocale('en');
  }
  const h = hoverAt('num_repeat');
  assert.ok(h.includes(en('ajet.rollout.num_repeat')), h);
  assert.ok(!h.includes(zh('ajet.rollout.num_repeat')), h);
  assert.match(h, /Default: `\d+`/);
  assert.ok(describePath(['ajet', 'rollout', 'user_workflow'], 'agentjet')?.includes(en('ajet.rollout.user_workflow')));
});

test('a release date reads in the reader language: "May 2026" becomes "2026 年 5 月" in zh-CN, English stays', () => {
  try {
    setLocale('zh-cn');
    assert.equal(releaseName({ release: '0.0.4', date: 'May 2026' }), 'AgentJet 0.0.4 (2026 年 5 月)');
    assert.equal(shownDate('not a month 2026'), 'not a month 2026');
    setLocale('en');
    assert.equal(releaseName({ release: '0.0.4', date: 'May 2026' }), 'AgentJet 0.0.4 (May 2026)');
  } finally {
    setLocale('en');
  }
});

test('no zh-CN message leaves the English word "config" as prose (a button read "打开 config")', () => {
  const bundle = JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
  const prose = Object.values(bundle).filter((v) => /(^|[^\w"`._-])configs?([^\w"`._-]|$)/.test(v));
  assert.deepEqual(prose, []);
});
