// Lint: typescript-eslint's recommended rules plus the folder layering (each folder's README says what it may import).
//   shared/   imports nothing of ours and no Node or Electron module (the renderer uses it too)
//   renderer/ imports shared/ and, for types only, electron/preload — never electron or node:*
//     inside it, model/ (pure) imports none of its other folders, stores/ never import components/ or screens/,
//     and components/ and screens/ never import api/ (a device act is a store action)
//   backend/  imports shared/ only
//   electron/ imports shared/ only; only main.ts, preload.ts and shell/ may import 'electron'
//     inside it, ports/ (the interfaces its parts meet at) sits below runtime/ and handoff/: ports/, handoff/,
//     local-state/, git/, sync/ and providers/ never import runtime/ (which composes them), and ports/ never
//     imports handoff/ or local-state/ either
//   no file reaches itself through its imports, type-only ones included (scripts/no-import-cycle.js)
//   cli/ composes the product's parts; no shipped code imports dev-env/ (the test harnesses)
//   dev-env/, bench/, e2e/ and tests may import anything
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import baton from './scripts/no-import-cycle.js';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'child_process', 'os', 'crypto', 'http', 'net', 'url', 'util', 'stream', 'events'];
const ours = (folders) => folders.flatMap((f) => [`**/${f}/**`, `**/${f}`]);

/** One no-restricted-imports rule from forbidden groups and the message that explains the layer; `more`: further groups with their own message. */
function layer(message, groups, more = []) {
  return {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [...groups.map((group) => ({ group, message })), ...more],
        paths: [{ name: 'electron', message }],
      },
    ],
  };
}

const ELECTRON_LAYER = "electron/ may import shared/ only, and only the shell (main.ts, preload.ts, shell/) imports 'electron'.";
const electronOutside = ours(['backend', 'renderer', 'cli', 'e2e', 'dev-env']);
/** Folders of electron/ below the runtime (besides ports/): they never import runtime/, which composes them. */
const BELOW_RUNTIME = ['handoff', 'local-state', 'git', 'sync', 'providers', 'hosting'];
const belowRuntime = {
  group: ours(['runtime']),
  message: 'This folder sits below runtime/ (which composes it): what it needs of the runtime is an interface in electron/ports/.',
};

/** The renderer's rule: shared/ and types from electron/preload only; `within`: what it may not import of the renderer's own folders. */
function rendererLayer(within) {
  return {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        paths: [{ name: 'electron', message: 'The renderer never imports electron; use window.baton.' }],
        patterns: [
          { group: nodeBuiltins, message: 'The renderer runs in a sandboxed page: no Node modules.' },
          { group: [...ours(['backend', 'cli', 'e2e', 'dev-env'])], message: 'The renderer may import shared/ only.' },
          { group: ['**/electron/**', '!**/electron/preload'], message: 'The renderer may import only types from electron/preload.' },
          { group: ['**/electron/preload'], allowTypeImports: true, message: 'Import only types from electron/preload.' },
          ...within,
        ],
      },
    ],
  };
}

/** A renderer file importing one of `folders` (siblings of its own folder). */
const rendererFolders = (folders) => `^\\.\\./(${folders.join('|')})/`;

/** Folders of the renderer and what each may not import of the others (later entries override the renderer's rule). */
const RENDERER_LAYERS = [
  { folders: ['**'], within: [] },
  {
    folders: ['model'],
    within: [
      {
        regex: rendererFolders(['api', 'stores', 'hooks', 'components', 'screens']),
        message: 'renderer/model/ is pure: it imports shared/ only.',
      },
    ],
  },
  {
    folders: ['stores'],
    within: [
      {
        regex: rendererFolders(['components', 'screens']),
        message: 'Stores never import components: what both use lives in renderer/model/.',
      },
    ],
  },
  {
    folders: ['components', 'screens'],
    within: [{ regex: rendererFolders(['api']), message: 'A component acts on the device through a store action, never renderer/api/.' }],
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', '.cache/', '.bench-tmp/', '.tsbuild/', '.vite/', 'dist/', 'out/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['shared/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: layer('shared/ holds contracts only: it imports nothing of ours and no Node or Electron module.', [
      ours(['electron', 'backend', 'renderer', 'cli', 'e2e', 'dev-env']),
      nodeBuiltins,
    ]),
  },
  ...RENDERER_LAYERS.map(({ folders, within }) => ({
    files: folders.flatMap((f) => [`renderer/${f}/*.ts`, `renderer/${f}/*.tsx`]),
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: rendererLayer(within),
  })),
  {
    files: ['backend/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: layer('backend/ may import shared/ only.', [ours(['electron', 'renderer', 'cli', 'e2e', 'dev-env'])]),
  },
  {
    files: ['electron/**/*.ts'],
    ignores: ['**/*.test.ts', 'electron/main.ts', 'electron/preload.ts', 'electron/shell/**'],
    rules: layer(ELECTRON_LAYER, [electronOutside]),
  },
  {
    files: BELOW_RUNTIME.map((f) => `electron/${f}/**/*.ts`),
    ignores: ['**/*.test.ts'],
    rules: layer(ELECTRON_LAYER, [electronOutside], [belowRuntime]),
  },
  {
    files: ['electron/ports/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: layer(
      ELECTRON_LAYER,
      [electronOutside],
      [belowRuntime, { group: ours(['handoff', 'local-state']), message: 'ports/ sits below handoff/ and local-state/, which use it.' }],
    ),
  },
  {
    files: ['electron/main.ts', 'electron/preload.ts', 'electron/shell/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ours(['backend', 'renderer', 'cli', 'e2e', 'dev-env']), message: 'The shell may import electron/ and shared/ only.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js'],
    plugins: { baton },
    rules: { 'baton/no-import-cycle': 'error' },
  },
  {
    files: ['cli/**/*.ts', 'scripts/**/*.js', 'bin/**/*.js'],
    ignores: ['**/*.test.ts'],
    rules: layer(
      'Shipped commands compose the product from its own parts: dev-env/ (test harnesses) is for tests, e2e, bench and dev tooling only.',
      [ours(['dev-env', 'e2e'])],
    ),
  },
);
