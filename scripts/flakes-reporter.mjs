// A node:test reporter for scripts/flakes.mjs: one JSON line per finished test (name path, file,
// passed/failed/skipped, the first lines of the error), so that runs can be compared by test name
// rather than by parsing the spec reporter's text.
export default async function* flakesReporter(source) {
  // The names of the enclosing tests, by nesting level, per file (files may interleave).
  const stacks = new Map();
  for await (const event of source) {
    if (event.type !== 'test:start' && event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting = 0, file = '' } = event.data;
    const stack = stacks.get(file) ?? [];
    stacks.set(file, stack);
    stack.length = nesting;
    stack[nesting] = name;
    if (event.type === 'test:start') continue;
    const details = event.data.details ?? {};
    const error = details.error;
    // A parent fails when a subtest failed: the subtest is the one to report.
    const onlySubtests = error?.failureType === 'subtestsFailed';
    const status =
      event.type === 'test:pass' ? (event.data.skip !== undefined || event.data.todo !== undefined ? 'skipped' : 'passed') : 'failed';
    yield `${JSON.stringify({
      file,
      name: stack.slice(0, nesting + 1).join(' > '),
      status,
      leaf: !onlySubtests,
      ms: Math.round(details.duration_ms ?? 0),
      ...(error ? { error: errorText(error) } : {}),
    })}\n`;
  }
}

function errorText(error) {
  // node:test wraps the test's own error as `cause` of an ERR_TEST_FAILURE.
  const inner = error.cause ?? error;
  const text = inner instanceof Error ? inner.message : String(inner?.message ?? inner);
  return text.split('\n').slice(0, 3).join(' | ').slice(0, 400);
}
