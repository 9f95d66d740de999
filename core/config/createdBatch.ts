// Paths the file watcher saw created, gathered for the config server (see
// CREATED_PATHS_NOTIFICATION): only what could be a folder holding configs, sent in one batch a
// short while after the last one came, capped so that an `npm install` or an unzip costs one
// small message.
import { MAX_CREATED_PATHS, type CreatedPathsParams } from '../protocol/config';
import { SKIP_DIRS } from './workspaceScan';

/** Could `path` (a created file or folder) be a folder that holds configs the server must find? */
export function mayHoldConfigs(path: string): boolean {
  if (/\.ya?ml$/i.test(path)) return false; // the YAML watcher reports those itself
  for (const seg of path.split(/[\\/]/)) if (SKIP_DIRS.has(seg) || (seg.startsWith('.') && seg.length > 1)) return false;
  return true;
}

export class CreatedBatch {
  private paths = new Set<string>();
  private more = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly send: (params: CreatedPathsParams) => void,
    private readonly quietMs = 300,
  ) {}

  add(path: string): void {
    if (!mayHoldConfigs(path)) return;
    if (this.paths.size < MAX_CREATED_PATHS) this.paths.add(path);
    else this.more = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.quietMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.paths.size && !this.more) return;
    const params: CreatedPathsParams = { paths: [...this.paths], ...(this.more ? { more: true } : {}) };
    this.paths = new Set();
    this.more = false;
    this.send(params);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.paths.clear();
  }
}
