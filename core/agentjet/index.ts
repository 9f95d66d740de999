// The AgentJet contract: everything the extension knows about what AgentJet, ASTuner, ASTune and
// beast-logger write and do, in one place (no vscode import). dialect.ts (detection) is separate.
//
// For the launch side:
//   experimentName / derivedNamePattern / parseLauncherLine   what the run will be called
//   launchPaths / companionFolder / parseExpDir               where it writes (--exp-dir moves only the backup)
//   expandWorkspaceFolder / hasUnresolvedVariable             ${workspaceFolder}, ${workspaceFolder:name}, ~
//   readCompanionsSync / listCompanions / stopCompanions      companions (verified live, PID reuse ruled out)
//   checkRecordedProcess / checkRecordedGroup                 is a recorded PID / group still that process
//   LaunchRecorder (or writeLaunchRecord)                     record a launch's exit status and output
export * from './layout';
export * from './hosts';
export * from './naming';
export * from './liveness';
export * from './companions';
export * from './launchRecord';
export * from './status';
