// The launch preflight's verdicts come from the environment checks (core/doctor/checks.ts, one
// probe: core/doctor/probe.py); see preflightLaunch in ./lifecycle.ts. Kept here: the names the
// launch code imports.
export { MIN_DEBUGPY, compareVersions, installHint } from '../doctor/checks';
