// "Is this an AgentJet folder?", asked by the first stage (extension/gate) after start-up and by
// the features that want the same answer (the config server's start, New Project's welcome).
// Every look at the folder goes through VS Code's file search with the user's `files.exclude` and
// `search.exclude`: names first (AgentJet's own tree, run folders), then a small head read of a
// bounded number of YAML files, shallow ones first, stopping at the first config.
import { close, open as openCb, read } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as vscode from 'vscode';
import { firstConfig, probeCandidates, PROBE_HEADS_UNMARKED } from '../../core/config/probeOrder';

/** Files whose name alone says "AgentJet": its own tree, and runs it wrote. */
export const MARKER_GLOB =
  '{**/ajet/default_config/ajet_default.yaml,**/astuner/default_config/astune_default.yaml,' +
  '**/saved_experiments/*/yaml_backup.yaml,**/launcher_record/*/yaml_backup.yaml}';

/** Folders never searched for configs: tooling, environments, run records (their snapshots are not sources). */
const SKIP = ['node_modules', '.git', '__pycache__', '.venv', 'venv', 'env', '.tox', 'dist', 'build'];
const RUN_DIRS = ['saved_experiments', 'launcher_record', 'saved_checkpoints'];
/** A path (relative to its folder) under a folder configExcludes adds: tooling, runs, dot folders. */
const NOT_CONFIG_DIR = new RegExp(`(?:^|/)(?:${[...SKIP, ...RUN_DIRS].map((d) => d.replace('.', '\\.')).join('|')}|\\.[^/]*)/`);

/** YAML files within four folders of the top (where a project keeps its configs). */
const SHALLOW_YAML_GLOB = `{${[1, 2, 3, 4].flatMap((d) => ['yaml', 'yml'].map((e) => `${'*/'.repeat(d - 1)}*.${e}`)).join(',')}}`;

/** The second look's YAML files: named after AgentJet, or under a folder that is (any depth). */
const NAMES = ['ajet', 'Ajet', 'AJet', 'agentjet', 'AgentJet', 'astune', 'ASTune'];
const SECOND_LOOK_GLOB = `{${NAMES.flatMap((n) => ['yaml', 'yml'].flatMap((e) => [`**/*${n}*.${e}`, `**/*${n}*/**/*.${e}`])).join(',')}}`;
/** Files the second look lists at most. */
const SECOND_LOOK_MAX = 256;
/** The markers and the second look's files, for one search. */
const NAMED_GLOB = `{${MARKER_GLOB.slice(1, -1)},${SECOND_LOOK_GLOB.slice(1, -1)}}`;
/** A path MARKER_GLOB matches. */
const MARKER_PATH =
  /\/(?:ajet\/default_config\/ajet_default\.yaml|astuner\/default_config\/astune_default\.yaml|(?:saved_experiments|launcher_record)\/[^/]+\/yaml_backup\.yaml)$/;

/** YAML names the search returns at most (as many as the language server's pass checks). */
export const PROBE_MAX_FILES = 2000;
/** How much of a file is read: a root key sits near the top (Hydra's `defaults:` list comes first). */
const HEAD_BYTES = 16 * 1024;

export interface ProbeResult {
  /** A file or folder whose name marks the folder as AgentJet's (its tree, its runs): the config server starts on it too. */
  marker?: vscode.Uri;
  /** The first config found by its head. */
  config?: vscode.Uri;
  /** YAML files the search returned. */
  files: number;
  /** Heads read. */
  heads: number;
  /** The second look (an unmarked folder where the first found nothing): YAML files it listed beyond the first's, heads read. */
  deepFiles: number;
  deepHeads: number;
  ms: number;
}

/** The user's excludes (`files.exclude` and `search.exclude`, the entries set to true) as one glob, plus `extra`. */
export function userExcludes(scope: vscode.Uri | undefined, extra: readonly string[] = []): string | undefined {
  const globs = new Set(extra);
  for (const section of ['files', 'search']) {
    const map = vscode.workspace.getConfiguration(section, scope).get<Record<string, unknown>>('exclude') ?? {};
    for (const [glob, on] of Object.entries(map)) if (on === true && !/[{}]/.test(glob)) globs.add(glob);
  }
  return globs.size ? `{${[...globs].join(',')}}` : undefined;
}

/** Bytes every config's head holds (its root key: `ajet`, `astuner`, `astune`). */
const ROOT_BYTES = [Buffer.from('ajet'), Buffer.from('astune')];
/** Head buffers, reused: a look at hundreds of files allocates a few, not one each. */
const buffers: Buffer[] = [];

/** The first bytes of a local file into `buf`: callbacks, one promise per file. */
function readHead(path: string, buf: Buffer): Promise<number> {
  return new Promise((resolve, reject) =>
    openCb(path, 'r', (err, fd) => {
      if (err) return reject(err);
      read(fd, buf, 0, buf.length, 0, (rerr, n) => close(fd, () => (rerr ? reject(rerr) : resolve(n))));
    }),
  );
}

/** A file's head as text when it may be a config; '' when its bytes name no AgentJet root (not decoded). */
async function head(uri: vscode.Uri): Promise<string | undefined> {
  try {
    if (uri.scheme === 'file') {
      const buf = buffers.pop() ?? Buffer.allocUnsafe(HEAD_BYTES);
      try {
        const n = await readHead(uri.fsPath, buf);
        // indexOf finds the first occurrence: one at or past `n` (stale bytes) means none before it.
        const named = ROOT_BYTES.some((b) => {
          const i = buf.indexOf(b);
          return i >= 0 && i < n;
        });
        return named ? buf.toString('utf8', 0, n) : '';
      } finally {
        buffers.push(buf);
      }
    }
    const st = await vscode.workspace.fs.stat(uri);
    if (st.size > 1024 * 1024) return undefined;
    return new TextDecoder().decode((await vscode.workspace.fs.readFile(uri)).subarray(0, HEAD_BYTES));
  } catch {
    return undefined;
  }
}

/** Where configs are searched for: the user's excludes, tooling and run folders, dot folders. */
export function configExcludes(scope: vscode.Uri | undefined): string | undefined {
  return userExcludes(scope, [...SKIP, ...RUN_DIRS].map((d) => `**/${d}/**`).concat('**/.*/**'));
}

async function probeFolder(folder: vscode.WorkspaceFolder, token: vscode.CancellationToken): Promise<Omit<ProbeResult, 'ms'>> {
  // Unmarked, only a bounded set of shallow YAML files is listed (a search's results cost the host
  // memory): the full list only for a folder AgentJet's names mark.
  // AgentJet's names and the second look's files come from one search (each search of the tree costs
  // the host); only a capped answer without a marker asks for the markers on their own.
  const [named, shallow] = await Promise.all([
    vscode.workspace.findFiles(new vscode.RelativePattern(folder, NAMED_GLOB), userExcludes(folder.uri), SECOND_LOOK_MAX, token),
    vscode.workspace.findFiles(
      new vscode.RelativePattern(folder, SHALLOW_YAML_GLOB),
      configExcludes(folder.uri),
      PROBE_HEADS_UNMARKED,
      token,
    ),
  ]);
  let marker = named.find((u) => MARKER_PATH.test(u.path));
  if (!marker && named.length >= SECOND_LOOK_MAX)
    [marker] = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, MARKER_GLOB), userExcludes(folder.uri), 1, token);
  const markers = marker ? [marker] : [];
  const yaml = markers.length
    ? await vscode.workspace.findFiles(
        new vscode.RelativePattern(folder, '**/*.{yaml,yml}'),
        configExcludes(folder.uri),
        PROBE_MAX_FILES,
        token,
      )
    : shallow;
  const candidates = probeCandidates(yaml, (u) => u.path, markers.length > 0);
  let heads = 0;
  const cancelled = () => token.isCancellationRequested;
  let config = await firstConfig(
    candidates,
    (u) => {
      heads++;
      return head(u);
    },
    cancelled,
  );
  const found = { ...(markers[0] ? { marker: markers[0] } : {}), files: yaml.length, heads, deepFiles: 0, deepHeads: 0 };
  if (config || markers.length || cancelled()) return { ...found, ...(config ? { config } : {}) };
  // The second look: configs deeper than four folders or behind the first look's bound, where a
  // name on their path says AgentJet (a search's results are what costs the host: listing every
  // YAML file of a 5,000-file tree left it 15-30 MB of garbage). The same excludes; two reads at a
  // time into reused buffers; a head is decoded only when its bytes name a root.
  const seen = new Set(candidates.map((u) => u.toString()));
  const top = folder.uri.path.replace(/\/$/, '').length + 1;
  const rest = probeCandidates(
    named.filter((u) => !seen.has(u.toString()) && !NOT_CONFIG_DIR.test(u.path.slice(top))),
    (u) => u.path,
    true,
  );
  seen.clear();
  config = await firstConfig(
    rest,
    (u) => {
      found.deepHeads++;
      return head(u);
    },
    cancelled,
    2,
  );
  found.deepFiles = rest.length;
  return { ...found, ...(config ? { config } : {}) };
}

/** At a folder's top, what marks it without a search (a stat each, as VS Code's plain-path `workspaceContains`). */
const TOP_MARKERS = [
  'ajet/default_config/ajet_default.yaml',
  'astuner/default_config/astune_default.yaml',
  'saved_experiments',
  'launcher_record',
];

async function topMarker(folder: vscode.WorkspaceFolder): Promise<vscode.Uri | undefined> {
  const found = await Promise.all(
    TOP_MARKERS.map((p) => {
      const uri = vscode.Uri.joinPath(folder.uri, p);
      // Node's stat for local folders: VS Code's file system API would set up its disk provider in the host.
      return (uri.scheme === 'file' ? stat(uri.fsPath) : vscode.workspace.fs.stat(uri)).then(
        () => uri,
        () => undefined,
      );
    }),
  );
  return found.find((u) => u !== undefined);
}

/**
 * The probe of every workspace folder: a folder marked at its top answers at once (AgentJet's tree
 * or its runs are there: no search); else the search, stopping at the first folder with a config.
 */
export async function probeWorkspace(token: vscode.CancellationToken): Promise<ProbeResult> {
  const started = performance.now();
  const out: ProbeResult = { files: 0, heads: 0, deepFiles: 0, deepHeads: 0, ms: 0 };
  const folders = vscode.workspace.workspaceFolders ?? [];
  for (const marker of await Promise.all(folders.map(topMarker)))
    if (marker) return { marker, files: 0, heads: 0, deepFiles: 0, deepHeads: 0, ms: performance.now() - started };
  try {
    for (const folder of folders) {
      const r = await probeFolder(folder, token);
      out.files += r.files;
      out.heads += r.heads;
      out.deepFiles += r.deepFiles;
      out.deepHeads += r.deepHeads;
      out.marker ??= r.marker;
      if (r.config) {
        out.config = r.config;
        break;
      }
    }
  } finally {
    // Nothing of the look is kept.
    buffers.length = 0;
  }
  out.ms = performance.now() - started;
  return out;
}

/** One probe shared by whoever asks, until `forget` (YAML files came or went). */
export class SharedProbe {
  private current: { promise: Promise<ProbeResult>; cts: vscode.CancellationTokenSource } | undefined;

  result(): Promise<ProbeResult> {
    if (!this.current) {
      const cts = new vscode.CancellationTokenSource();
      this.current = { promise: probeWorkspace(cts.token), cts };
    }
    return this.current.promise;
  }

  forget(): void {
    this.current?.cts.cancel();
    this.current?.cts.dispose();
    this.current = undefined;
  }
}
