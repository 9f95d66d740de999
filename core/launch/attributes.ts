// The `agentjet` launch configuration: attributes, defaults and the environment it runs with.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Backbone } from './plan';
import { parseDotenv } from './dotenv';

export interface AgentJetLaunchAttributes {
  /** Path of the AgentJet/ASTuner YAML config (relative to cwd or absolute). */
  config: string;
  backbone?: Backbone;
  /** Interpreter; the extension fills it from agentjet.pythonPath / Python extension / venv / python3. */
  python?: string;
  cwd?: string;
  args?: string[];
  env?: Record<string, string | null>;
  /**
   * Default `.env` in cwd. The launcher calls `load_dotenv(override=False)`: a variable already in
   * the environment it inherits wins over the file, so we add only the file's other variables.
   */
  envFile?: string;
  justMyCode?: boolean;
  stopOnEntry?: boolean;
  /** Also stop the companions (vLLM server ...) when the session ends. */
  autokill?: boolean;
  openTokenLogOnFinish?: boolean;
  noDebug?: boolean;
}

export interface ResolvedLaunch {
  config: string;
  cwd: string;
  backbone: Backbone;
  python: string;
  args: string[];
  /**
   * Variables added on top of the adapter's own environment: the envFile's variables that the
   * environment does not already set (as load_dotenv(override=False)), then `env` (explicit, wins).
   */
  envAdditions: Record<string, string>;
  /** Variables `env` removes (value null). */
  envRemovals: string[];
  envFile: string | undefined;
  justMyCode: boolean;
  stopOnEntry: boolean;
  autokill: boolean;
  openTokenLogOnFinish: boolean;
  noDebug: boolean;
}

export function resolveAttributes(a: AgentJetLaunchAttributes, base: NodeJS.ProcessEnv = process.env): ResolvedLaunch {
  const cwd = a.cwd ? resolve(a.cwd) : a.config && isAbsolute(a.config) ? dirname(a.config) : process.cwd();
  const config = isAbsolute(a.config) ? a.config : join(cwd, a.config);
  const envFilePath = a.envFile ? (isAbsolute(a.envFile) ? a.envFile : join(cwd, a.envFile)) : join(cwd, '.env');
  let fromFile: Record<string, string> = {};
  let envFile: string | undefined;
  if (existsSync(envFilePath)) {
    try {
      fromFile = parseDotenv(readFileSync(envFilePath, 'utf8'), base);
      envFile = envFilePath;
    } catch {
      /* unreadable .env: the launcher would skip it too */
    }
  }
  const envAdditions: Record<string, string> = {};
  for (const [k, v] of Object.entries(fromFile)) if (base[k] === undefined) envAdditions[k] = v;
  const envRemovals: string[] = [];
  for (const [k, v] of Object.entries(a.env ?? {})) {
    if (v === null) {
      envRemovals.push(k);
      delete envAdditions[k];
    } else envAdditions[k] = String(v);
  }
  return {
    config,
    cwd,
    backbone: a.backbone ?? 'debug',
    python: a.python && a.python.trim() ? a.python : 'python3',
    args: Array.isArray(a.args) ? a.args.map(String) : [],
    envAdditions,
    envRemovals,
    envFile,
    justMyCode: a.justMyCode ?? true,
    stopOnEntry: a.stopOnEntry ?? false,
    autokill: a.autokill ?? false,
    openTokenLogOnFinish: a.openTokenLogOnFinish ?? false,
    noDebug: a.noDebug ?? false,
  };
}

export function mergedEnv(r: ResolvedLaunch, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, ...r.envAdditions };
  for (const k of r.envRemovals) delete env[k];
  return env;
}
