// Issue 22 item 12: `agentjet lint DIR` walks without following link loops, skips special files
// (a FIFO named *.yaml) and checks the rest.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, symlinkSync, statSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLint } from '../../cli/lint';
import { collectYamlFiles } from '../../core/config/walk';
import { checkAsync, fc } from '../util/fc';
import { demoConfig, demoDir } from './config-helpers';

const base = mkdtempSync(join(tmpdir(), 'ajet-walk-'));
after(() => rmSync(base, { recursive: true, force: true }));

const mkfifo = (p: string) => execFileSync('mkfifo', [p]);

async function lint(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runLint(
    args,
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

// Checked: without the fix, exit 2 "no such file or folder: .../loop/loop/..." and nothing checked
// (the loop), and exit 1 with "cannot read" for the FIFO.
test('issue 22 #12: a symlink loop and a FIFO named x.yaml: the rest is checked, exit 0', async () => {
  const dir = join(base, 'proj');
  mkdirSync(join(dir, 'configs'), { recursive: true });
  writeFileSync(join(dir, 'configs', 'good.yaml'), demoConfig);
  symlinkSync('..', join(dir, 'configs', 'loop'));
  symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling.yaml'));
  mkfifo(join(dir, 'pipe.yaml'));
  const r = await lint([dir, '--root', demoDir, '--format', 'json']);
  assert.equal(r.code, 0, r.err + r.out);
  const json = JSON.parse(r.out) as { file: string }[] | { files?: { file: string }[] };
  const text = JSON.stringify(json);
  assert.match(text, /good\.yaml/);
  assert.doesNotMatch(text, /loop/);
  assert.match(r.err, /pipe\.yaml: skipped, not a regular file/);
});

test('issue 22 #12: a missing target is still bad usage (exit 2)', async () => {
  const r = await lint([join(base, 'does-not-exist')]);
  assert.equal(r.code, 2);
  assert.match(r.err, /no such file or folder/);
});

type Node = { kind: 'dir'; children: Record<string, Node> } | { kind: 'file' } | { kind: 'fifo' } | { kind: 'link'; to: number };

const names = fc.constantFrom('a', 'b', 'c.yaml', 'd.yml', 'e.txt', 'node_modules', '.hidden', 'f.YAML');
const tree: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant<Node>({ kind: 'file' }),
    fc.constant<Node>({ kind: 'fifo' }),
    fc.nat(20).map<Node>((to) => ({ kind: 'link', to })),
    fc.dictionary(names, tie('node'), { maxKeys: 4 }).map<Node>((children) => ({ kind: 'dir', children })),
  ),
})).node;

test('property: the walk ends on any tree of folders, links (loops, dangling) and FIFOs; it lists each regular yaml file once', async () => {
  let n = 0;
  await checkAsync(
    fc.asyncProperty(fc.dictionary(names, tree, { minKeys: 1, maxKeys: 5 }), async (children) => {
      const root = join(base, `t${n++}`);
      const dirs: string[] = [root];
      const links: [string, number][] = [];
      const expected: string[] = [];
      const make = (p: string, node: Node, skipped = false) => {
        if (node.kind === 'dir') {
          mkdirSync(p);
          dirs.push(p);
          for (const [k, v] of Object.entries(node.children)) make(join(p, k), v, skipped || k === 'node_modules' || k.startsWith('.'));
        } else if (node.kind === 'file') {
          writeFileSync(p, 'ajet: {}\n');
          if (!skipped && /\.ya?ml$/i.test(p)) expected.push(p);
        } else if (node.kind === 'fifo') mkfifo(p);
        else links.push([p, node.to]);
      };
      make(root, { kind: 'dir', children });
      // Links point at any folder of the tree (loops included) or nowhere.
      for (const [p, to] of links) symlinkSync(to < dirs.length ? (dirs[to] as string) : join(root, 'missing'), p);
      const r = await collectYamlFiles([root]);
      const ids = r.files.map((f) => {
        const st = statSync(f);
        assert.ok(st.isFile(), `${f} is a regular file`);
        assert.match(f, /\.ya?ml$/i);
        return `${st.ino}`;
      });
      assert.equal(new Set(ids).size, ids.length, 'each file once');
      for (const f of r.files) readFileSync(f, 'utf8'); // never a FIFO: this would block
      for (const s of r.special) assert.ok(!statSync(s).isFile());
      const got = new Set(ids);
      for (const f of expected) assert.ok(got.has(`${statSync(f).ino}`), `${f} is checked`);
    }),
    60,
  );
});

// Issue 39 R3: a link to `/` below the folder walked the whole disk, synchronously (still walking
// at 600 s; in the MCP server even ping stopped). Links to folders are not followed below a target.
test('R3: a folder holding a link to / is walked without it; the walk is bounded and stops when cancelled', async () => {
  const dir = join(base, 'r3');
  mkdirSync(join(dir, 'configs'), { recursive: true });
  writeFileSync(join(dir, 'configs', 'a.yaml'), demoConfig);
  symlinkSync('/', join(dir, 'disk'));
  symlinkSync(join(dir, 'configs', 'a.yaml'), join(dir, 'b.yaml')); // a link to a file is still a file
  const r = await collectYamlFiles([dir]);
  // b.yaml comes first (names sorted) and is the same file as configs/a.yaml: listed once.
  assert.deepEqual(r.files, [join(dir, 'b.yaml')]);
  assert.equal(r.truncated, undefined);
  // A named target that is a link is followed.
  assert.deepEqual((await collectYamlFiles([join(dir, 'disk', 'nonexistent-aj')])).missing.length, 1);
  // Bounded: past maxEntries the walk stops and says so.
  for (let i = 0; i < 30; i++) writeFileSync(join(dir, `c${i}.yaml`), demoConfig);
  const cut = await collectYamlFiles([dir], { maxEntries: 10 });
  assert.equal(cut.truncated, true);
  assert.ok(cut.files.length < 10);
  // Cancelled: nothing more is looked at.
  const ac = new AbortController();
  ac.abort();
  assert.deepEqual((await collectYamlFiles([dir], { signal: ac.signal })).files, []);
  // agentjet lint of the folder answers (before: still walking the disk at 600 s).
  const l = await lint([dir, '--root', demoDir, '--format', 'json']);
  assert.equal(l.code, 0, l.err + l.out);
  assert.match(l.out, /"checked": 31/);
});

// The working directory is a real path; a target named through a symbolic link (a linked home or
// checkout) was named `../../<link>/x.yaml`. Checked: without shownName, the name climbs out with `..`.
test('a config named through a symbolic link is named by its place in the working directory', async (t) => {
  const real = join(base, 'real-proj');
  mkdirSync(real, { recursive: true });
  writeFileSync(join(real, 'x.yaml'), demoConfig);
  const link = join(base, 'linked-proj');
  symlinkSync(real, link);
  const prev = process.cwd();
  process.chdir(real);
  t.after(() => process.chdir(prev));
  const r = await lint([join(link, 'x.yaml'), '--root', demoDir, '--format', 'json']);
  const json = JSON.parse(r.out) as { files: { file: string }[] };
  assert.deepEqual(
    json.files.map((f) => f.file),
    ['x.yaml'],
    r.err,
  );
  // A file really outside the working directory keeps its `..` name.
  mkdirSync(join(base, 'sub'), { recursive: true });
  process.chdir(join(base, 'sub'));
  const out = await lint([join(real, 'x.yaml'), '--root', demoDir, '--format', 'json']);
  assert.deepEqual(
    (JSON.parse(out.out) as { files: { file: string }[] }).files.map((f) => f.file),
    [join('..', 'real-proj', 'x.yaml')],
  );
});
