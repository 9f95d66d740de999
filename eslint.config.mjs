import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.vscode-test/**',
      'test-output/**',
      'bench-output/**',
      'demo/**',
      'test/fixtures/**',
      // AssemblyScript, type-checked by its own compiler (npm run build:wasm).
      'core/logs/wasm/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test's test()/describe() return promises the runner itself awaits.
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    // No product file over 400 lines (CONTRIBUTING.md): a file that grows past it splits by responsibility.
    // Tests, scripts, benchmarks and the test harness are exempt.
    files: ['core/**/*.ts', 'extension/**/*.ts', 'language-server/**/*.ts', 'debug-adapter/**/*.ts', 'cli/**/*.ts', 'media/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
    },
  },
  // Import fences: the direction of imports between top-level folders (the picture in CONTRIBUTING.md).
  // One block per folder group, because a later block replaces `no-restricted-imports` of an earlier one.
  fence(
    ['core/protocol/**/*.ts'],
    [
      // The protocol layer is the lowest: the extension, the webviews and the server all speak it.
      {
        regex: '^\\.\\./(?!protocol/)',
        message: 'core/protocol/ is the lowest layer: it imports only core/protocol/ (move shared types here).',
      },
    ],
  ),
  fence(['core/**/*.ts'], [], ['core/protocol/**']),
  // Inside core/: the layers of core/layers.json, lowest first; a folder never imports a value from a higher layer.
  ...layerFences(JSON.parse(readFileSync(new URL('./core/layers.json', import.meta.url), 'utf8')).layers),
  fence(
    ['cli/**/*.ts', 'language-server/**/*.ts', 'debug-adapter/**/*.ts'],
    [
      {
        regex: '^(\\.\\./)+(extension|media)(/|$)',
        message: 'cli/, language-server/ and debug-adapter/ import core/, never extension/ or media/.',
      },
    ],
  ),
  {
    // Webviews run in a browser sandbox: they speak core/protocol and share media/shared, nothing else of ours.
    files: ['media/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^\\.\\./\\.\\./(?!core/protocol/)', message: 'media/ imports only core/protocol/ and media/shared/.' },
            { regex: '^\\.\\./(?!shared/|\\.\\./)', message: 'a webview imports media/shared/, not another webview.' },
          ],
        },
      ],
    },
  },
);

/**
 * A `no-restricted-imports` fence for a pure folder: never `vscode` (so the CLI, the server and the
 * tests can use it), never a layer above core/, plus `patterns`.
 */
function fence(files, patterns, ignores = []) {
  const upward = {
    regex: '^(\\.\\./)+(extension|cli|language-server|debug-adapter|media)(/|$)',
    message: 'core/ is imported by the shells (extension/, cli/, language-server/, debug-adapter/, media/), never the reverse.',
  };
  return {
    files,
    ignores,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'vscode',
              message: 'core/, cli/, language-server/ and debug-adapter/ must not import vscode: they run outside the editor.',
            },
          ],
          patterns: files.some((f) => f.startsWith('core/')) ? [upward, ...patterns] : patterns,
        },
      ],
    },
  };
}

/**
 * One block per core folder that has layers above it: a value import (static or re-export) of a
 * higher folder is an error; `import type` is allowed (it vanishes from the bundle). A separate rule
 * from `fence`'s, so the two do not replace each other. `npm run deps:core` and
 * test/unit/core-layers.test.ts check the same order and, in addition, cycles within a layer and `import()`.
 */
function layerFences(layers) {
  return layers.flatMap((layer, i) => {
    const above = layers.slice(i + 1).flat();
    if (above.length === 0) return [];
    return layer.map((folder) => ({
      files: [`core/${folder}/**/*.ts`],
      rules: {
        '@typescript-eslint/no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: `^(\\.\\./)+(${above.join('|')})(/|$)`,
                caseSensitive: true,
                allowTypeImports: true,
                message: `core/${folder}/ is in layer ${i} of core/layers.json: it imports no value from a higher layer (${above.join(', ')}). Move the shared code down, or import a type with \`import type\`.`,
              },
            ],
          },
        ],
      },
    }));
  });
}
