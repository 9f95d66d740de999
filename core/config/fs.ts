// File-system access for the validator, behind an interface so tests and the server can cache.
import { readFileSync, statSync, readdirSync } from 'node:fs';

export interface ConfigFs {
  /** 'file', 'dir' or undefined when missing. */
  kind(path: string): 'file' | 'dir' | undefined;
  read(path: string): string | undefined;
  list(dir: string): string[];
}

/** Node fs with a short-lived cache (validation runs on every keystroke). */
export class CachedFs implements ConfigFs {
  private kinds = new Map<string, { t: number; v: 'file' | 'dir' | undefined }>();
  private texts = new Map<string, { t: number; mtime: number; v: string | undefined }>();
  private lists = new Map<string, { t: number; v: string[] }>();
  constructor(
    private readonly ttlMs = 2000,
    private readonly maxReadBytes = 4_000_000,
  ) {}

  kind(path: string): 'file' | 'dir' | undefined {
    const now = Date.now();
    const c = this.kinds.get(path);
    if (c && now - c.t < this.ttlMs) return c.v;
    let v: 'file' | 'dir' | undefined;
    try {
      const s = statSync(path);
      v = s.isDirectory() ? 'dir' : s.isFile() ? 'file' : undefined;
    } catch {
      v = undefined;
    }
    this.kinds.set(path, { t: now, v });
    return v;
  }
  read(path: string): string | undefined {
    const now = Date.now();
    const c = this.texts.get(path);
    if (c && now - c.t < this.ttlMs) return c.v;
    let v: string | undefined;
    let mtime = 0;
    try {
      const s = statSync(path);
      mtime = s.mtimeMs;
      if (c && c.mtime === mtime) {
        c.t = now;
        return c.v;
      }
      v = s.isFile() && s.size <= this.maxReadBytes ? readFileSync(path, 'utf8') : undefined;
    } catch {
      v = undefined;
    }
    this.texts.set(path, { t: now, mtime, v });
    return v;
  }
  list(dir: string): string[] {
    const now = Date.now();
    const c = this.lists.get(dir);
    if (c && now - c.t < this.ttlMs) return c.v;
    let v: string[];
    try {
      v = readdirSync(dir);
    } catch {
      v = [];
    }
    this.lists.set(dir, { t: now, v });
    return v;
  }
}
