/**
 * The Electron main process build (Forge's Vite plugin adds the entry, externals and defines): ESM,
 * like the package. Some bundled CommonJS dependencies (yaml) `require` Node built-ins; an ES module
 * has no `require`, so the bundle makes one first (without it the app dies at start).
 */
import { defineConfig } from 'vite';

const REQUIRE_FOR_COMMONJS =
  "import { createRequire as __batonCreateRequire } from 'node:module'; const require = __batonCreateRequire(import.meta.url);";

export default defineConfig({
  build: {
    lib: { entry: 'electron/main.ts', formats: ['es'], fileName: () => 'main.js' },
    rollupOptions: { external: ['electron', 'better-sqlite3'], output: { banner: REQUIRE_FOR_COMMONJS } },
  },
});
