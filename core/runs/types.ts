// The run data shapes live in the protocol layer (core/protocol/runs.ts), which webviews may import.
export type { RunStatus, StepPoint, EvalPoint, ExceptionItem } from '../protocol/runs';
