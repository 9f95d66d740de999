// Contract between the config language client (extension/features/config.ts) and the server
// (language-server/server.ts). The server uses only standard LSP requests; this is what the
// client passes in `initializationOptions`, and the `data` it gets back on completion items.
import type { Family } from '../agentjet/dialect';

export interface ConfigServerInitOptions {
  /** Interpreter whose installed packages resolve framework built-ins (`ajet.*`); '' for none. */
  pythonPath: string;
  /** False when another YAML extension (Red Hat's) already reports YAML syntax errors. */
  reportSyntaxErrors: boolean;
}

/** `data` of a completion item whose description is filled in by completionItem/resolve. */
export interface ConfigCompletionData {
  path: string[];
  dialect: Family;
}
