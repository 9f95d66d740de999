// Why a run failed: signatures (signatures.ts), the line classifier (classify.ts), bounded reads
// (read.ts), an experiment's material (experiment.ts) and AgentJet's environment gates (gates.ts).
export * from './types';
export { classifyText, Classifier, cleanLine, isUserFrame, MAX_LINE } from './classify';
export { classifyFile, DEFAULT_MAX_BYTES } from './read';
export { diagnoseExperiment, diagnoseFile, defaultRayRoot, type DiagnoseOptions } from './experiment';
export { BUNDLED_GATES, gatesFromSource, readGates, verlAllowed, ajetPackageOf, type AgentJetGates } from './gates';
export { SIGNATURES, type Signature } from './signatures';
