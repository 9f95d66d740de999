// The probe's text for whoever runs it (doctor, launch preflight). In the bundles it comes from
// esbuild's `.py` text loader (script.ts); run from the sources (tsx: tests), which have no such
// loader, the file beside this one is read instead. Either way it is the one probe.py.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let cached: string | undefined;

export async function probeScript(): Promise<string> {
  if (cached !== undefined) return cached;
  try {
    cached = (await import('./script')).DOCTOR_PROBE;
  } catch {
    cached = readFileSync(join(__dirname, 'probe.py'), 'utf8');
  }
  return cached;
}
