// The disk cache of the facts read from a user's AgentJet (core/config/agentjetFacts.ts).
import { mkdir, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigSchema } from './schema';

/**
 * Keeps generated schemas between sessions: `<dir>/facts-<hash>.json`, newest 16 kept. Asynchronous:
 * an entry is megabytes of JSON, and the extension host's agent tools read through it.
 */
export class FactsDiskCache {
  constructor(readonly dir: string) {}

  async get(key: string): Promise<ConfigSchema | undefined> {
    try {
      return JSON.parse(await readFile(join(this.dir, `facts-${key}.json`), 'utf8')) as ConfigSchema;
    } catch {
      return undefined;
    }
  }

  async put(key: string, schema: ConfigSchema): Promise<void> {
    try {
      const text = JSON.stringify(schema);
      if (text.length > 8 << 20) return; // bounded: a schema this large is not kept
      await mkdir(this.dir, { recursive: true });
      await writeFile(join(this.dir, `facts-${key}.json`), text);
      const names = (await readdir(this.dir)).filter((f) => /^facts-\w+\.json$/.test(f));
      const files = await Promise.all(
        names.map(async (f) => ({ f, t: (await stat(join(this.dir, f)).catch(() => undefined))?.mtimeMs ?? 0 })),
      );
      files.sort((a, b) => b.t - a.t);
      for (const { f } of files.slice(16)) await unlink(join(this.dir, f)).catch(() => undefined);
    } catch {
      /* a cache that cannot be written only costs time */
    }
  }
}
