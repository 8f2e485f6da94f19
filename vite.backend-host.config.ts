/**
 * The desktop app's hosted backend, built beside the main bundle as `backend-host.js` (Forge's Vite
 * plugin adds the entry's externals and defines): the child process the app runs the backend it hosts
 * in (backend/hosting/hosted-backend-child.ts). ESM, like main; better-sqlite3 is a native module
 * and stays outside the bundle (the packaged app carries it: forge.config.ts), as does PostgreSQL's
 * optional native driver, which the embedded backend never loads.
 */
import { defineConfig } from 'vite';

const REQUIRE_FOR_COMMONJS =
  "import { createRequire as __batonCreateRequire } from 'node:module'; const require = __batonCreateRequire(import.meta.url);";

export default defineConfig({
  build: {
    lib: { entry: 'backend/hosting/hosted-backend-child.ts', formats: ['es'], fileName: () => 'backend-host.js' },
    rollupOptions: { external: ['electron', 'better-sqlite3', 'pg-native'], output: { banner: REQUIRE_FOR_COMMONJS } },
  },
});
