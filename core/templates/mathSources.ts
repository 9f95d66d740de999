// The math template's Python is the demo's own (demo/math_demo): New Project writes the agent the
// demo shows, and there is one copy of it. The build copies the files beside the bundles
// (dist/templates/math/); run from the sources or from a test bundle, the repository's demo/ is
// found by walking up.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const cache = new Map<string, string>();

function locate(file: string): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, 'templates', 'math', file), join(dir, 'demo', 'math_demo', file)])
      if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`the math template's ${file} is missing (looked beside ${__dirname} and above)`);
  }
}

/** The text of demo/math_demo/<file> as shipped with the extension and the CLI. */
export function mathSource(file: 'workflow.py' | 'judge.py'): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = readFileSync(locate(file), 'utf8');
    cache.set(file, text);
  }
  return text;
}
