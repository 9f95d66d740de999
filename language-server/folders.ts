// Settings per workspace folder, asked of the client with `workspace/configuration` (section
// `agentjet`, scoped to the folder) and cached until `workspace/didChangeConfiguration`; and the
// interpreter each folder's class references are checked with, resolved exactly as launching
// resolves it (core/process/resolveInterpreter.ts: `${workspaceFolder}`, `~`, the Python extension's
// interpreter, `.venv`/`venv`). In Restricted Mode no interpreter is chosen at all (the folder's
// `.venv` is the workspace's code): the trust policy (core/trust/policy.ts) is asked first.
import { existsSync } from 'node:fs';
import { URI } from 'vscode-uri';
import type { Connection } from 'vscode-languageserver/node';
import { resolveInterpreter, type Interpreter } from '../core/process/resolveInterpreter';
import { readFolderSettings, type ConfigFolderSettings } from '../core/protocol/config';
import type { ConfigService } from '../core/config/service';
import { t } from '../core/l10n';
import type { WorkspaceTrust } from '../core/trust/policy';

export class FolderSettings {
  private cache = new Map<string, Promise<ConfigFolderSettings>>();
  private interpreters = new Map<string, Promise<Interpreter | undefined>>();
  canAsk = false;

  constructor(
    private readonly connection: Connection,
    private readonly service: ConfigService,
    private fallback: ConfigFolderSettings,
    private readonly trust: WorkspaceTrust,
  ) {}

  setFallback(f: ConfigFolderSettings): void {
    this.fallback = f;
  }

  /** The settings of the folder holding `folder` ('' = no folder). */
  get(folder: string | undefined): Promise<ConfigFolderSettings> {
    const key = folder ?? '';
    let p = this.cache.get(key);
    if (!p) {
      p = this.canAsk
        ? this.connection.workspace
            .getConfiguration({ ...(folder ? { scopeUri: URI.file(folder).toString() } : {}), section: 'agentjet' })
            .then(
              (v: unknown) => readFolderSettings(v),
              () => this.fallback,
            )
        : Promise.resolve(this.fallback);
      this.cache.set(key, p);
    }
    return p;
  }

  /**
   * Makes sure the folder's interpreter is known to the service. Only an interpreter the user chose
   * (setting, Python extension) or the folder's own venv is used to check installed packages; the
   * bare `python3` on PATH is not taken as the user's choice.
   */
  ensureInterpreter(folder: string | undefined): Promise<Interpreter | undefined> {
    const key = folder ?? '';
    let p = this.interpreters.get(key);
    if (!p) {
      if (!this.trust.allows('resolve-interpreter')) {
        if (folder) this.service.setInterpreter(folder, undefined);
        this.connection.console.info(
          `agentjet: ${t('Restricted Mode: no interpreter of {0} is used; installed packages are checked once you trust this folder.', folder ?? '-')}`,
        );
        p = Promise.resolve(undefined);
        this.interpreters.set(key, p);
        return p;
      }
      p = this.get(folder).then((s) => {
        const it = resolveInterpreter({ setting: s.pythonPath, pythonExtension: s.pythonExtensionInterpreter, folder }, existsSync);
        const chosen = it.source === 'path' ? undefined : it;
        // Only an interpreter the user set is a claim about AgentJet's; a .venv is found for them.
        if (folder) this.service.setInterpreter(folder, chosen?.path, chosen?.source === 'setting');
        if (chosen)
          this.connection.console.info(
            `agentjet: ${folder ? t('class references in {0} are checked with {1} ({2})', folder, chosen.path, chosen.source) : t('class references in files outside folders are checked with {0} ({1})', chosen.path, chosen.source)}`,
          );
        return chosen;
      });
      this.interpreters.set(key, p);
    }
    return p;
  }

  /** Settings changed: ask again. */
  clear(): void {
    this.cache.clear();
    this.interpreters.clear();
  }
}
