// bench/lsp.ts's in-process validation rows, one side per process: ours (validateText as it ships) or
// yaml-language-server's language service. Each side runs alone in a child process of its own, so neither pays
// for the other's garbage or compiled code; the harness below is the same for both.
// Child: node --import tsx bench/lsp-inproc.ts <job.json> <out.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { URI } from 'vscode-uri';
import { getLanguageService } from 'yaml-language-server';
import { SettingsState } from 'yaml-language-server/out/server/src/yamlSettings';
import { TextDocument } from 'vscode-languageserver-textdocument';

export type Side = 'ours' | 'yls';
export interface InProcJob {
  side: Side;
  /** The bundled validation (bench/validate-entry.ts), for `ours`. */
  bundle: string;
  root: string;
  schemaUri: string;
  docs: string[];
  n: number;
  /** Untimed passes over every document before the timed ones. */
  warmPasses: number;
}
/** Per document: fresh validations and validations of an edit, wall ms, process CPU ms and the main thread's CPU ms. */
export interface InProcSamples {
  fresh: { ms: number[]; cpuMs: number[]; mainMs: number[] };
  edit: { ms: number[]; cpuMs: number[]; mainMs: number[] };
}

/** A validator: a fresh document, or the next version of one document (an edit). */
interface Validator {
  fresh(text: string): Promise<void> | void;
  edit(text: string): Promise<void> | void;
}

type Validation = typeof import('./validate-entry');

async function oursValidator(job: InProcJob): Promise<Validator> {
  const { validateText, validateParsed, parseConfig, ClassResolver, CachedFs } = (await import(job.bundle)) as Validation;
  const resolver = new ClassResolver(new CachedFs(60_000));
  let last: ReturnType<typeof parseConfig> | undefined;
  return {
    fresh: (text) => void validateText(text, { root: job.root, resolver }),
    edit: (text) => {
      last = last ? parseConfig(text, { previous: last }) : parseConfig(text);
      validateParsed(last, { root: job.root, resolver });
    },
  };
}

/** The server's fixed wait after an open before it validates (yamlSettings.ts), read from the package itself. */
export function ylsValidationDelayMs(): number {
  return new SettingsState().validationDelayMs;
}

function ylsValidator(job: InProcJob): Validator {
  const settings = new SettingsState();
  const service = getLanguageService({
    schemaRequestService: (uri: string) => Promise.resolve(readFileSync(URI.parse(uri).fsPath, 'utf8')),
    workspaceContext: { resolveRelativePath: (rel: string, res: string) => URI.parse(res).with({ path: rel }).toString() },
    yamlSettings: settings,
  });
  service.configure({ validate: true, completion: true, hover: true, schemas: [{ uri: job.schemaUri, fileMatch: ['*.yaml'] }] });
  let n = 0;
  let editUri = '';
  let version = 0;
  return {
    // A fresh URI each time: the service caches parsed documents by URI and version.
    fresh: async (text) => {
      await service.doValidation(TextDocument.create(URI.file(join(tmpdir(), `inproc_${n++}.yaml`)).toString(), 'yaml', 1, text), false);
    },
    // A new version of one document: the service parses the new text (its cache is by URI and version).
    edit: async (text) => {
      if (!editUri) editUri = URI.file(join(tmpdir(), `inproc_edit_${n++}.yaml`)).toString();
      await service.doValidation(TextDocument.create(editUri, 'yaml', ++version, text), false);
    },
  };
}

/** Run i types a digit at the end of the value of the (7i)-th `key: value` line (cycling), inside a closing quote. */
export function editedText(text: string, i: number): string {
  const ls = text.split('\n');
  const valueLines = ls.flatMap((l, k) => (/^\s+[\w.-]+: \S/.test(l) && !l.includes('#') ? [k] : []));
  const at = valueLines[(i * 7) % Math.max(1, valueLines.length)];
  const l = at === undefined ? undefined : ls[at];
  if (at !== undefined && l !== undefined) ls[at] = /["']$/.test(l) ? `${l.slice(0, -1)}${i % 10}${l.slice(-1)}` : `${l}${i % 10}`;
  return ls.join('\n');
}

/** CPU time (ns) of this process's main thread (Linux: its thread id is the process id); NaN elsewhere. */
function mainThreadNs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

async function timed(f: () => Promise<void> | void): Promise<{ ms: number; cpuMs: number; mainMs: number }> {
  const m0 = mainThreadNs();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await f();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000, mainMs: (mainThreadNs() - m0) / 1e6 };
}

async function runJob(job: InProcJob): Promise<InProcSamples[]> {
  const v = job.side === 'ours' ? await oursValidator(job) : ylsValidator(job);
  const docs = job.docs.map((f) => readFileSync(f, 'utf8'));
  for (let p = 0; p < job.warmPasses; p++) {
    for (const text of docs) {
      for (let i = 0; i < 5; i++) await v.fresh(text);
      await v.edit(text);
      for (let i = 0; i < 5; i++) await v.edit(editedText(text, i));
    }
  }
  const out: InProcSamples[] = [];
  for (const text of docs) {
    const s: InProcSamples = { fresh: { ms: [], cpuMs: [], mainMs: [] }, edit: { ms: [], cpuMs: [], mainMs: [] } };
    // The first 5 runs of each document are not timed.
    for (let i = -5; i < job.n; i++) {
      const t = await timed(() => v.fresh(text));
      if (i < 0) continue;
      s.fresh.ms.push(t.ms);
      s.fresh.cpuMs.push(t.cpuMs);
      s.fresh.mainMs.push(t.mainMs);
    }
    await v.edit(text);
    for (let i = -5; i < job.n; i++) {
      const next = editedText(text, i + 5);
      const t = await timed(() => v.edit(next));
      if (i < 0) continue;
      s.edit.ms.push(t.ms);
      s.edit.cpuMs.push(t.cpuMs);
      s.edit.mainMs.push(t.mainMs);
    }
    out.push(s);
  }
  return out;
}

/** Runs one side's job in a child process of its own and returns its samples (a deadline ends a hung child). */
export function inProcessSamples(job: InProcJob, dir: string, deadlineMs = 30 * 60_000): Promise<InProcSamples[]> {
  const jobFile = join(dir, `inproc-${job.side}.json`);
  const outFile = join(dir, `inproc-${job.side}.out.json`);
  writeFileSync(jobFile, JSON.stringify(job));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', __filename, jobFile, outFile], { stdio: ['ignore', 'inherit', 'inherit'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`in-process bench (${job.side}) ended with ${signal ?? code}`));
      resolve(JSON.parse(readFileSync(outFile, 'utf8')) as InProcSamples[]);
    });
  });
}

if (require.main === module) {
  const [jobFile, outFile] = process.argv.slice(2);
  if (!jobFile || !outFile) throw new Error('usage: lsp-inproc.ts <job.json> <out.json>');
  runJob(JSON.parse(readFileSync(jobFile, 'utf8')) as InProcJob).then(
    (r) => writeFileSync(outFile, JSON.stringify(r)),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
