// Entry of dist/adapter.js: the debug session as a node process speaking DAP over stdio. Users do
// not run it: the extension registers an inline adapter (DebugAdapterInlineImplementation in
// extension/debug/index.ts) that runs the same AgentJetDebugSession in the extension host. This
// process entry is what the protocol tests and bench:debug drive (DebugClient), and what the
// manifest's `program` names for a client without the extension's descriptor factory. Loaded
// through `require`, so no require.main check.
import { DebugSession } from '@vscode/debugadapter';
import { AgentJetDebugSession } from './session';

DebugSession.run(AgentJetDebugSession);
