/** The preload build: Forge's Vite plugin makes it one CommonJS file (sandboxed preloads cannot load modules). */
import { defineConfig } from 'vite';

export default defineConfig({});
