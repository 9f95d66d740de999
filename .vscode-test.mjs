// For contributors with desktop VS Code: `npm run test:desktop` runs the same extension-host
// suites through @vscode/test-cli (it downloads VS Code, so it needs internet).
import { defineConfig } from '@vscode/test-cli';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const workspace = join(mkdtempSync(join(tmpdir(), 'agentjet-desktop-')), 'demo');
cpSync('demo', workspace, { recursive: true });

export default defineConfig({
  files: 'dist/test/exthost/suites/*.test.js',
  workspaceFolder: workspace,
  // Like the harness: the current VS Code, or with AGENTJET_CODE_SERVER_VERSION=oldest the oldest
  // one engines.vscode allows.
  version: process.env.AGENTJET_CODE_SERVER_VERSION === 'oldest' ? '1.100.3' : 'stable',
  mocha: { ui: 'tdd', timeout: 60000 },
});
