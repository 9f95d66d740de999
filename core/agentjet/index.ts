// The AgentJet contract: everything the extension knows about what AgentJet, ASTuner, ASTune and
// beast-logger write and do, in one place (no vscode import). dialect.ts (detection) is separate.
export * from './layout';
export * from './hosts';
export * from './naming';
export * from './liveness';
export * from './companions';
export * from './launchRecord';
export * from './status';
