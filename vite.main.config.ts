/** The Electron main process build (Forge's Vite plugin adds the entry, externals and defines): ESM, like the package. */
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    lib: { entry: 'electron/main.ts', formats: ['es'], fileName: () => 'main.js' },
    rollupOptions: { external: ['electron', 'better-sqlite3'] },
  },
});
