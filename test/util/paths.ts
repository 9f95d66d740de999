import { join, resolve } from 'node:path';

/** The project root (this file is test/util/paths.ts). */
export const repoRoot = resolve(__dirname, '..', '..');

// Fixtures come from the project's own generator (test/gen); AgentJet's own files from an upstream
// tree found by test/util/upstream.ts. Nothing else outside the repository is read.

/** Where tests write screenshots and other artefacts a person may want to look at. */
export const testOutputDir = join(repoRoot, 'test-output');
