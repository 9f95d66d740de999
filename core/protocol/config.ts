// Contract between the config language client (extension/config/index.ts) and the server
// (language-server/server.ts). The server uses only standard LSP requests: this is what the
// client passes in `initializationOptions`, what it answers to `workspace/configuration` for the
// `agentjet` section (per folder), and the `data` it gets back on completion items.
/** The two config families: AgentJet (`ajet:`) and ASTuner/ASTune (`astuner:`/`astune:`). */
export type Family = 'agentjet' | 'astuner';

export interface ConfigServerInitOptions {
  /**
   * For clients without `workspace/configuration`: the interpreter whose installed packages
   * resolve framework built-ins (`ajet.*`); '' or absent for none. VS Code sends settings per folder.
   */
  pythonPath?: string;
  /** False when another YAML extension (Red Hat's) already reports YAML syntax errors. */
  reportSyntaxErrors: boolean;
  /** The display language (`vscode.env.language`): diagnostics, hovers and quick fixes follow it. */
  locale?: string;
  /** Where the facts read from the user's AgentJet are cached (the extension's global storage); '' for none. */
  factsCacheDir?: string;
  /**
   * False while the workspace is not trusted (VS Code's Restricted Mode): the server then starts no
   * process (no interpreter of the folder, no probe of installed packages) and reads files as text
   * only. Only an explicit `true` trusts: absent or anything else means not trusted (a client
   * without workspace trust sends `true` itself when its user chose to). A later grant comes as
   * {@link WORKSPACE_TRUST_NOTIFICATION}.
   */
  trusted?: boolean;
  /**
   * True when the client answers {@link LIST_YAML_REQUEST}: the background pass then lists a
   * folder's YAML files through the client (VS Code's file search, with the user's excludes)
   * instead of walking it itself.
   */
  listsYaml?: boolean;
}

/** Server -> client: the YAML files under a folder that a background pass may check, shallow ones first. */
export const LIST_YAML_REQUEST = 'agentjet/listYaml';

export interface ListYamlParams {
  /** A workspace folder (or a folder in it), as a path. */
  root: string;
  /** At most this many files. */
  max: number;
}

export interface ListYamlResult {
  /** Paths, shallow ones first. */
  files: string[];
  /** True when the folder holds more than `max`. */
  more: boolean;
}

/** Sent by the client once the user grants workspace trust (VS Code never takes it back without a reload). */
export const WORKSPACE_TRUST_NOTIFICATION = 'agentjet/workspaceTrusted';

export interface WorkspaceTrustParams {
  trusted: true;
}

/** Reads an untrusted trust notification: only an explicit `trusted: true` grants anything. */
export function readTrustGrant(v: unknown): boolean {
  return !!v && typeof v === 'object' && (v as Record<string, unknown>).trusted === true;
}

/** Reads `initializationOptions.trusted`: only an explicit `true` is trusted; missing or malformed is not. */
export function readInitialTrust(opts: unknown): boolean {
  return !!opts && typeof opts === 'object' && (opts as Record<string, unknown>).trusted === true;
}

/**
 * Sent by the client with paths the file watcher saw created that are not YAML files (folders among
 * them). A YAML file written into a folder made the same instant can go unreported by VS Code's
 * watcher (inotify watches the new folder only once it has seen it made), so the server scans the
 * new folders for configs itself. `more: true`: too many to list, scan the folders again whole.
 */
export const CREATED_PATHS_NOTIFICATION = 'agentjet/createdPaths';

export interface CreatedPathsParams {
  paths: string[];
  more?: boolean;
}

/** How many paths one notification lists at most. */
export const MAX_CREATED_PATHS = 256;

/** Reads a created-paths notification: absolute path strings only, at most MAX_CREATED_PATHS. */
export function readCreatedPaths(v: unknown): CreatedPathsParams {
  if (!v || typeof v !== 'object') return { paths: [] };
  const r = v as Record<string, unknown>;
  const raw = Array.isArray(r.paths) ? (r.paths as unknown[]) : [];
  const paths = raw.filter((p): p is string => typeof p === 'string' && p.length > 0 && p.length < 4096).slice(0, MAX_CREATED_PATHS);
  return { paths, more: r.more === true || raw.length > MAX_CREATED_PATHS };
}

/** `agentjet.config.problems`: check every AgentJet config in the workspace, or open files only. */
export type ConfigProblemsScope = 'workspace' | 'openFiles';

/** The `agentjet` section as the server reads it for one folder (`workspace/configuration`). */
export interface ConfigFolderSettings {
  /** `agentjet.pythonPath` as written; the server expands `${workspaceFolder}` and `~`. */
  pythonPath: string;
  /** Added by the VS Code client: the Python extension's active interpreter for the folder. */
  pythonExtensionInterpreter?: string;
  problems: ConfigProblemsScope;
  /** `agentjet.config.workspaceMaxFiles`: how many YAML files one background pass over a folder reads (absent: the default). */
  workspaceMaxFiles?: number;
}

/** The largest `agentjet.config.workspaceMaxFiles` the server takes. */
export const MAX_WORKSPACE_FILES = 1_000_000;

/** Reads an untrusted `workspace/configuration` answer. */
export function readFolderSettings(v: unknown): ConfigFolderSettings {
  const o = v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  const cfg = o.config && typeof o.config === 'object' ? (o.config as Record<string, unknown>) : {};
  const out: ConfigFolderSettings = {
    pythonPath: typeof o.pythonPath === 'string' ? o.pythonPath.trim() : '',
    // The VS Code client answers with this shape; other clients send the raw section (`config.problems`).
    problems: (o.problems ?? cfg.problems) === 'openFiles' ? 'openFiles' : 'workspace',
  };
  const maxFiles = o.workspaceMaxFiles ?? cfg.workspaceMaxFiles;
  if (typeof maxFiles === 'number' && Number.isFinite(maxFiles) && maxFiles >= 1)
    out.workspaceMaxFiles = Math.min(MAX_WORKSPACE_FILES, Math.floor(maxFiles));
  if (typeof o.pythonExtensionInterpreter === 'string' && o.pythonExtensionInterpreter.trim())
    out.pythonExtensionInterpreter = o.pythonExtensionInterpreter.trim();
  return out;
}

/** `data` of a completion item whose description is filled in by completionItem/resolve. */
export interface ConfigCompletionData {
  path: string[];
  dialect: Family;
  /** The document, so the item is described by the AgentJet that judges it. */
  uri?: string;
}
