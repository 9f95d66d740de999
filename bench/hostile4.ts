// node --import tsx bench/hostile4.ts [--only r1py,r1jsonc,r2,r3] [--cli dist/cli.js] — the hostile
// inputs of issue 39 (round 4) R1-R3 through a built `agentjet`: wall time and peak resident memory
// (/usr/bin/time -v) of the process that takes the input. Inputs are made here. Prints; asserts nothing.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { plainRecord } from '../test/gen/bomb';
import { findUpstream } from '../test/util/upstream';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
};
const CLI = resolve(arg('cli', join(__dirname, '..', 'dist', 'cli.js')));
const only = new Set(arg('only', 'r1py,r1jsonc,r2,r3').split(','));
const LIMIT_S = Number(arg('limit', '120'));
const scratch = mkdtempSync(join(tmpdir(), 'aj-hostile4-'));

const peakOf = (s: string) => Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(s)?.[1] ?? NaN) / 1024;

function timed(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((done) => {
    const t0 = Date.now();
    const p = spawn('/usr/bin/time', ['-v', process.execPath, CLI, ...args], { env: { ...process.env, ...env }, detached: true });
    let err = '';
    let out = '';
    p.stdout.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-2000)));
    p.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-20000)));
    const timer = setTimeout(() => process.kill(-p.pid!, 'SIGKILL'), LIMIT_S * 1000);
    p.on('close', (code, sig) => {
      clearTimeout(timer);
      const s = ((Date.now() - t0) / 1000).toFixed(1);
      const said = (out + err).split('\n').find((l) => /judged|not read|config|Error|FATAL/.test(l)) ?? '';
      done(sig ? `stopped after ${LIMIT_S} s` : `${s} s, peak ${peakOf(err).toFixed(0)} MB, rc ${code}: ${said.trim().slice(0, 120)}`);
    });
  });
}

function checkout(): string {
  const tree = findUpstream('agentjet-c68c154');
  if (!tree) throw new Error('no upstream agentjet-c68c154 tree');
  const ws = mkdtempSync(join(scratch, 'ws-'));
  cpSync(join(tree, 'ajet'), join(ws, 'ajet'), { recursive: true });
  cpSync(join(tree, 'pyproject.toml'), join(ws, 'pyproject.toml'));
  writeFileSync(join(ws, 'c.yaml'), 'ajet:\n  rollout:\n    num_repeat: abc\n');
  return ws;
}

async function mcp(root: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: '/usr/bin/time',
    args: ['-v', process.execPath, CLI, 'mcp', '--root', root, '--no-python'],
    env: { ...(process.env as Record<string, string>), AGENTJET_FACTS_CACHE: join(scratch, 'facts') },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

const closed = async (c: { client: Client; stderr: () => string }) => {
  await c.client.close();
  for (let i = 0; i < 100 && !/Maximum resident/.test(c.stderr()); i++) await new Promise((r) => setTimeout(r, 100));
  return peakOf(c.stderr());
};

async function main() {
  for (const n of [16_000, 64_000]) {
    if (only.has('r1py')) {
      const ws = checkout();
      writeFileSync(join(ws, 'ajet', 'x.py'), `x = config.ajet${'.a'.repeat(n)}\n`);
      const env = { AGENTJET_FACTS_CACHE: join(ws, 'cache') };
      console.log(`R1 .py chain of ${n} links, lint --root:`, await timed(['lint', '--root', ws, join(ws, 'c.yaml')], env));
      console.log(`R1 .py chain of ${n} links, again (cache):`, await timed(['lint', '--root', ws, join(ws, 'c.yaml')], env));
    }
    if (only.has('r1jsonc')) {
      const ws = checkout();
      const f = join(ws, 'ajet', 'default_config', 'verl', 'config_auto_convertion_verl.jsonc');
      writeFileSync(f, readFileSync(f, 'utf8').replace('{', `{\n    "ajet${'.a'.repeat(n)}": "trainer.x",`));
      const env = { AGENTJET_FACTS_CACHE: join(ws, 'cache') };
      console.log(`R1 .jsonc key of ${n} links, lint --root:`, await timed(['lint', '--root', ws, join(ws, 'c.yaml')], env));
    }
  }
  if (only.has('r2')) {
    const root = mkdtempSync(join(scratch, 'r2-'));
    writeFileSync(join(root, 'rollout.json.log'), Array.from({ length: 3000 }, (_, i) => plainRecord(i, 40)).join(''));
    for (const n of [200, 2000]) {
      const c = await mcp(root);
      const t0 = Date.now();
      const rs = await Promise.allSettled(
        Array.from({ length: n }, () =>
          c.client.callTool({ name: 'agentjet_log_stats', arguments: { path: 'rollout.json.log' } }, undefined, {
            timeout: LIMIT_S * 1000,
          }),
        ),
      );
      const ok = rs.filter((r) => r.status === 'fulfilled' && r.value.isError !== true).length;
      const s = ((Date.now() - t0) / 1000).toFixed(1);
      console.log(
        `R2 ${n} concurrent agentjet_log_stats: ${s} s, ${ok} answered, ${n - ok} refused/failed, server peak ${(await closed(c)).toFixed(0)} MB`,
      );
    }
  }
  if (only.has('r3')) {
    const root = mkdtempSync(join(scratch, 'r3-'));
    mkdirSync(join(root, 'configs'));
    writeFileSync(join(root, 'configs', 'a.yaml'), 'ajet:\n  project_name: x\n');
    symlinkSync('/', join(root, 'disk'));
    console.log('R3 lint of a folder with a link to /:', await timed(['lint', '--root', root, root]));
    const c = await mcp(root);
    const ac = new AbortController();
    const t0 = Date.now();
    const lint = c.client
      .callTool({ name: 'agentjet_lint', arguments: { path: '.' } }, undefined, { signal: ac.signal, timeout: LIMIT_S * 1000 })
      .then(
        () => `answered after ${((Date.now() - t0) / 1000).toFixed(1)} s`,
        (e: Error) => `ended: ${e.message.slice(0, 60)}`,
      );
    await new Promise((r) => setTimeout(r, 500));
    const p0 = Date.now();
    const ping = await Promise.race([
      c.client.ping({ timeout: LIMIT_S * 1000 }).then(() => `${Date.now() - p0} ms`),
      new Promise<string>((r) => setTimeout(() => r(`no answer in ${LIMIT_S} s`), LIMIT_S * 1000)),
    ]);
    ac.abort();
    console.log(`R3 in the MCP server: ping ${ping}; lint ${await lint}; server peak ${(await closed(c)).toFixed(0)} MB`);
  }
}

main()
  .catch((e) => console.error(e))
  .finally(() => rmSync(scratch, { recursive: true, force: true }));
