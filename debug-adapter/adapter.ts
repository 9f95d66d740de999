// Entry of dist/adapter.js. VS Code starts it as a node process (`"runtime": "node"` in the
// debuggers contribution, loaded through `require`, so no require.main check); the protocol tests
// spawn it the same way. A separate process keeps Stop and process cleanup working even when the
// extension host is busy, and an adapter crash cannot take the extension host down.
import { DebugSession } from '@vscode/debugadapter';
import { AgentJetDebugSession } from './session';

DebugSession.run(AgentJetDebugSession);
