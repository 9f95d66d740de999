// The probe's source, bundled as text by esbuild's `.py` text loader (scripts/build.mjs).
// Import this module lazily (`await import(...)`): tsx-run unit tests have no .py loader.
import PROBE from './probe.py';

export const DOCTOR_PROBE: string = PROBE;
