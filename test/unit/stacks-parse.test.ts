// The stack readers: py-spy's --json and text (the shapes py-spy 0.4 prints, as in
// benfred/py-spy src/dump.rs and stack_trace.rs), faulthandler's dump (CPython Python/traceback.c),
// grouping, and the text report. Property tests: any text parses without a throw, and a dump made
// from random stacks in faulthandler's format reads back the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseFaulthandler, parsePySpyJson, parsePySpyText } from '../../core/stacks/parse';
import { groupStacks } from '../../core/stacks/group';
import { formatStackReport, groupTitle } from '../../core/stacks/format';
import { parseStacksHeader } from '../../core/stacks/faulthandler';
import { hasPtraceCap } from '../../core/stacks/pyspy';
import { runTree } from '../../core/stacks/collect';
import type { ProcessStacks, StackFrame } from '../../core/stacks/types';

// As `py-spy dump --pid N --json` (0.4.2) printed it for a thread waiting in a function of its own.
const PYSPY_JSON = JSON.stringify([
  {
    pid: 14328,
    thread_id: 140317624170176,
    thread_name: 'waiter',
    os_thread_id: 14329,
    active: false,
    owns_gil: false,
    frames: [
      {
        name: 'child_waits_here',
        filename: '/tmp/tree.py',
        module: null,
        short_filename: 'tree.py',
        line: 3,
        locals: null,
        is_entry: true,
      },
      { name: 'run', filename: '/usr/lib/python3.11/threading.py', module: null, short_filename: 'threading.py', line: 982, locals: null },
    ],
    process_info: null,
  },
  { pid: 14328, thread_id: 7, thread_name: null, active: true, owns_gil: true, frames: [{ name: 'f', filename: 'x.py', line: 0 }] },
]);

test('py-spy JSON: threads, names, frames innermost first; line 0 is "unknown"', () => {
  const th = parsePySpyJson(PYSPY_JSON);
  assert.equal(th.length, 2);
  assert.equal(th[0]!.name, 'waiter');
  assert.equal(th[0]!.id, `0x${(140317624170176).toString(16)}`);
  assert.equal(th[0]!.active, false);
  assert.deepEqual(th[0]!.frames[0], { func: 'child_waits_here', file: '/tmp/tree.py', line: 3 });
  assert.equal(th[1]!.name, undefined);
  assert.equal(th[1]!.frames[0]!.line, undefined);
});

test('py-spy JSON: broken input gives no threads', () => {
  for (const bad of ['', 'Error: Permission Denied', '{}', '[1, null, "x"]', '[{"frames": 3}]', '{"frames": []}'])
    assert.doesNotThrow(() => parsePySpyJson(bad));
  assert.deepEqual(parsePySpyJson('nope'), []);
  assert.equal(parsePySpyJson('[{"frames": 3}]')[0]!.frames.length, 0);
});

test('py-spy text: "Thread N (idle): name" and "    func (file:line)"', () => {
  const text = [
    'Process 14328: /venv/bin/python /tmp/tree.py child',
    'Python v3.11.7 (/usr/bin/python3.11)',
    '',
    'Thread 14328 (idle): "MainThread"',
    '    _wait_for_tstate_lock (threading.py:1139)',
    '    <module> (tree.py:5)',
    'Thread 0x7F00AB (active)',
    '    spin (/a b/c.py:12)',
    '    native (libc.so)',
  ].join('\n');
  const th = parsePySpyText(text);
  assert.equal(th.length, 2);
  assert.equal(th[0]!.name, 'MainThread');
  assert.deepEqual(th[0]!.frames[1], { func: '<module>', file: 'tree.py', line: 5 });
  assert.equal(th[1]!.active, true);
  assert.deepEqual(th[1]!.frames[0], { func: 'spin', file: '/a b/c.py', line: 12 });
  assert.deepEqual(th[1]!.frames[1], { func: 'native', file: 'libc.so', line: undefined });
});

// What faulthandler.register(SIGUSR1, file, all_threads=True) wrote on CPython 3.11.
const FH = `Thread 0x00007fb1911576c0 (most recent call first):
  File "/tmp/fh.py", line 5 in wait_in_child_thread
  File "/usr/lib/python3.11/threading.py", line 982 in run

Current thread 0x00007fb19171eb80 (most recent call first):
  File "/tmp/fh.py", line 8 in <module>
`;

test('faulthandler: threads, the current one, frames', () => {
  const th = parseFaulthandler(FH);
  assert.equal(th.length, 2);
  assert.equal(th[0]!.id, '0x00007fb1911576c0');
  assert.equal(th[0]!.current, false);
  assert.equal(th[1]!.current, true);
  assert.deepEqual(th[0]!.frames[0], { func: 'wait_in_child_thread', file: '/tmp/fh.py', line: 5 });
});

test('faulthandler: cut stacks, unknown lines, one-thread dumps, names in brackets', () => {
  const th = parseFaulthandler(
    'Stack (most recent call first):\n  File "a.py", line ??? in f\n  ...\nThread 0x1 [worker-1] (most recent call first):\n  <no Python frame>\n',
  );
  assert.equal(th.length, 2);
  assert.equal(th[0]!.truncated, true);
  assert.equal(th[0]!.frames[0]!.line, undefined);
  assert.equal(th[1]!.name, 'worker-1');
  assert.equal(th[1]!.frames.length, 0);
});

const frameArb = fc.record({
  func: fc.stringMatching(/^[A-Za-z_<>][A-Za-z0-9_<>]{0,12}$/),
  file: fc.stringMatching(/^\/[a-z0-9_/. -]{1,30}\.py$/),
  line: fc.integer({ min: 1, max: 100000 }),
});

test('property: a faulthandler-format dump of random stacks reads back the same', () => {
  fc.assert(
    fc.property(fc.array(fc.array(frameArb, { maxLength: 8 }), { minLength: 1, maxLength: 6 }), (stacks) => {
      const text = stacks
        .map(
          (frames, i) =>
            `${i === 0 ? 'Current thread' : 'Thread'} 0x${(i + 1).toString(16).padStart(16, '0')} (most recent call first):\n${frames.map((f) => `  File "${f.file}", line ${f.line} in ${f.func}\n`).join('')}`,
        )
        .join('\n');
      const th = parseFaulthandler(text);
      assert.equal(th.length, stacks.length);
      th.forEach((t, i) =>
        assert.deepEqual(
          t.frames,
          stacks[i]!.map((f) => ({ ...f })),
        ),
      );
    }),
  );
});

test('property: any text parses without a throw in all three readers', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 400 }), (s) => {
      parseFaulthandler(s);
      parsePySpyText(s);
      parsePySpyJson(s);
    }),
  );
});

const proc = (pid: number, stacks: StackFrame[][]): ProcessStacks => ({
  pid,
  ppid: 1,
  args: 'python x.py',
  role: 'child',
  method: 'py-spy',
  threads: stacks.map((frames, i) => ({
    id: `0x${i}`,
    name: i === 0 ? 'MainThread' : undefined,
    active: false,
    current: false,
    frames,
    truncated: false,
  })),
});

test('grouping: 8 workers in all_gather are one group, said in one line', () => {
  const gather: StackFrame[] = [
    { func: 'all_gather', file: '/site/torch/distributed/distributed_c10d.py', line: 2600 },
    { func: 'train_step', file: '/w/trainer.py', line: 40 },
  ];
  const idle: StackFrame[] = [{ func: 'wait', file: '/usr/lib/python3.11/threading.py', line: 320 }];
  const procs = [...Array.from({ length: 8 }, (_, i) => proc(100 + i, [gather])), proc(99, [idle, idle])];
  const groups = groupStacks(procs);
  assert.equal(groups.length, 2);
  assert.equal(groups[0]!.waitsIn, 'all_gather');
  assert.equal(groups[0]!.members.length, 8);
  assert.equal(groupTitle(groups[0]!), '8 processes wait in all_gather');
  assert.equal(groupTitle(groups[1]!), '2 threads of process 99 wait in wait');
  const text = formatStackReport({ takenAt: Date.now(), processes: procs, groups, skipped: 0, notes: ['a note'] });
  assert.match(text, /8 processes wait in all_gather/);
  assert.match(text, /all_gather {2}\/site\/torch\/distributed\/distributed_c10d\.py:2600/);
  assert.match(text, /a note/);
});

test('grouping: a different line is a different stack; property: members add up', () => {
  const a = proc(1, [[{ func: 'f', file: 'a.py', line: 1 }]]);
  const b = proc(2, [[{ func: 'f', file: 'a.py', line: 2 }]]);
  assert.equal(groupStacks([a, b]).length, 2);
  fc.assert(
    fc.property(fc.array(fc.array(fc.array(frameArb, { maxLength: 3 }), { maxLength: 4 }), { maxLength: 6 }), (ps) => {
      const procs = ps.map((s, i) => proc(i + 1, s));
      const groups = groupStacks(procs);
      assert.equal(
        groups.reduce((n, g) => n + g.members.length, 0),
        procs.reduce((n, p) => n + p.threads.length, 0),
      );
    }),
  );
});

test('the dump file header names pid, executable and start time', () => {
  assert.deepEqual(parseStacksHeader('# agentjet-vscode stacks pid=42 exe=/opt/py 3/bin/python3.11 start=2811155'), {
    pid: 42,
    exe: '/opt/py 3/bin/python3.11',
    start: '2811155',
  });
  assert.equal(parseStacksHeader('Thread 0x1 (most recent call first):'), undefined);
});

test('CAP_SYS_PTRACE from /proc/self/status', () => {
  assert.equal(hasPtraceCap('CapEff:\t000001fffeffffff\n'), true);
  assert.equal(hasPtraceCap('CapEff:\t00000000a80425fb\n'), false); // Docker's default set
  assert.equal(hasPtraceCap('nothing'), undefined);
});

test("the run tree: roots, descendants, and the workers under the session's raylet", () => {
  const procs = [
    { pid: 10, ppid: 1, pgid: 10, args: 'python -m ajet.launcher --conf a.yaml' },
    { pid: 11, ppid: 10, pgid: 10, args: 'python -m ajet.backbone.main_vllm' },
    { pid: 20, ppid: 1, pgid: 20, args: '/venv/lib/ray/core/src/ray/raylet/raylet --session_dir=/tmp/ray/session_2026-12-04_13-00-00_1_2' },
    { pid: 21, ppid: 20, pgid: 20, args: 'ray::TaskRunner.run' },
    { pid: 30, ppid: 1, pgid: 30, args: '/venv/raylet --session_dir=/tmp/ray/session_other' },
    { pid: 31, ppid: 30, pgid: 30, args: 'ray::IDLE' },
  ];
  const tree = runTree(procs, [10], ['/tmp/ray/session_2026-12-04_13-00-00_1_2']);
  assert.deepEqual(
    tree.map((x) => [x.proc.pid, x.role]),
    [
      [10, 'root'],
      [11, 'child'],
      [21, 'ray-worker'],
    ],
  );
});
