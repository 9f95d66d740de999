// The task problem matchers of package.json applied, line by line as VS Code does for a
// non-background matcher, to real output of the stand-in launcher (Python traceback, config error).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../util/paths';
import { OutputProblems } from '../../core/launch/problems';

interface Pattern {
  regexp: string;
  file?: number;
  line?: number;
  message?: number;
  severity?: number;
}
interface Matcher {
  name: string;
  pattern: Pattern | Pattern[];
}

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { contributes: { problemMatchers: Matcher[] } };
const matcher = (name: string): Pattern[] => {
  const m = manifest.contributes.problemMatchers.find((x) => x.name === name);
  assert.ok(m, `problem matcher ${name} is contributed`);
  return Array.isArray(m.pattern) ? m.pattern : [m.pattern];
};

/** VS Code's multi-line rule: pattern k must match line i+k; the last one carries the message. */
function apply(patterns: Pattern[], output: string): { file: string; line: number; message: string }[] {
  const lines = output.split(/\r?\n/);
  const out: { file: string; line: number; message: string }[] = [];
  for (let i = 0; i + patterns.length <= lines.length; i++) {
    const found: Record<string, string> = {};
    const ok = patterns.every((p, k) => {
      const m = new RegExp(p.regexp).exec(lines[i + k]!);
      if (!m) return false;
      for (const key of ['file', 'line', 'message'] as const) if (p[key] !== undefined) found[key] = m[p[key]!]!;
      return true;
    });
    if (ok) out.push({ file: found.file!, line: Number(found.line), message: found.message! });
  }
  return out;
}

function standIn(cwd: string, conf: string): string {
  const r = spawnSync('python3', ['-m', 'ajet.launcher', '--backbone', 'debug', '--conf', conf], {
    cwd,
    env: { ...process.env, PYTHONPATH: join(repoRoot, 'test', 'fixtures', 'backbone') },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.notEqual(r.status, 0);
  return `${r.stdout}${r.stderr}`;
}

test('$agentjet-python points at the innermost frame of a workflow traceback', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-pm-'));
  cpSync(join(repoRoot, 'demo', 'data'), join(dir, 'data'), { recursive: true });
  writeFileSync(
    join(dir, 'bad.py'),
    'from ajet import Workflow\n\n\nclass Bad(Workflow):\n    async def execute(self, workflow_task, tuner):\n        raise KeyError("no such tool")\n',
  );
  const port = 20000 + (process.pid % 20000);
  writeFileSync(
    join(dir, 'bad.yaml'),
    `ajet:\n  task_reader:\n    jsonl_dataset_file:\n      training:\n        file_path: data/train.jsonl\n  rollout:\n    user_workflow: bad.py->Bad\n  debug:\n    debug_first_n_tasks: 1\n    debug_vllm_port: ${port}\n`,
  );
  const out = standIn(dir, 'bad.yaml');
  try {
    const hits = apply(matcher('agentjet-python'), out);
    assert.deepEqual(hits, [{ file: join(dir, 'bad.py'), line: 6, message: "KeyError: 'no such tool'" }], out);
    // The task terminal's own parser agrees with the declared matcher.
    const parser = new OutputProblems();
    assert.deepEqual(
      [...parser.push(out), ...parser.end()],
      [{ file: join(dir, 'bad.py'), line: 6, message: "KeyError: 'no such tool'", severity: 'error' }],
    );
  } finally {
    // The stand-in left its companion running, as the real launcher does; end it.
    const folder = join(dir, 'saved_experiments', 'companion_logs', 'companion');
    for (const f of readdirSync(folder).filter((n) => n.endsWith('.pgid'))) {
      try {
        process.kill(-Number(readFileSync(join(folder, f), 'utf8')), 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
});

test('$agentjet-launcher turns a config error line into a Problem on the YAML file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-pm-'));
  writeFileSync(join(dir, 'broken.yaml'), 'ajet:\n  rollout: [\n');
  const out = standIn(dir, 'broken.yaml');
  const hits = apply(matcher('agentjet-launcher'), out);
  assert.equal(hits.length, 1, out);
  assert.equal(hits[0]!.file, join(dir, 'broken.yaml'));
  assert.ok(hits[0]!.line >= 2);
  assert.match(hits[0]!.message, /YAML syntax error/);
});

test('OutputProblems finds the same frame from streamed chunks and config errors', () => {
  const text = [
    'Traceback (most recent call last):',
    '  File "/x/launcher.py", line 10, in <module>',
    '    main()',
    '    ^^^^^^',
    '  File "/w/bad.py", line 6, in execute',
    '    raise KeyError("no such tool")',
    "KeyError: 'no such tool'",
    '/w/c.yaml:3: error: YAML syntax error: bad',
    'Traceback (most recent call last):',
    '  File "<frozen runpy>", line 198, in _run_module_as_main',
    'SystemExit: 2',
    '',
  ].join('\r\n');
  const p = new OutputProblems();
  const got = [];
  for (let i = 0; i < text.length; i += 7) got.push(...p.push(text.slice(i, i + 7)));
  got.push(...p.end());
  assert.deepEqual(got, [
    { file: '/w/bad.py', line: 6, message: "KeyError: 'no such tool'", severity: 'error' },
    { file: '/w/c.yaml', line: 3, message: 'YAML syntax error: bad', severity: 'error' },
  ]);
});
