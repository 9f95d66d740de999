// Moved to core/process/resolveInterpreter.ts (core/config resolves the interpreter too, and config sits
// below launch). This re-export keeps core/agents/tools.ts, which another branch is splitting, compiling
// across the merge; import core/process/resolveInterpreter.ts in new code and delete this file once
// nothing imports it.
export * from '../process/resolveInterpreter';
