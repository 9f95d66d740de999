// The worker start-up hook's source, bundled as text by esbuild's `.py` text loader (scripts/build.mjs).
// Import this module lazily (`await import(...)`): tsx-run tests have no .py loader.
import HOOK from './agentjet_ray_breakpoints.py';

export const RAY_BREAKPOINTS_HOOK: string = HOOK;
