// Moved to core/fs/seam.ts (core/agentjet reads through it, and agentjet sits below runs). This
// re-export keeps the files another branch is splitting (core/agents/tools.ts, extension/runs/tree.ts)
// compiling across the merge; import core/fs/seam.ts in new code and delete this file once nothing
// imports it.
export * from '../fs/seam';
