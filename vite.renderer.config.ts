/**
 * The renderer build: React, rooted at renderer/. Standalone (`npm run build:renderer`) it writes
 * dist/renderer, which the headless host serves; under Electron Forge it writes Forge's folder.
 * Production HTML carries a strict CSP meta tag (the headless host also sends it as a header).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const projectRoot = fileURLToPath(new URL('.', import.meta.url));

/** The CSP every built page carries: our scripts and styles only, our own origin for sockets. */
export const RENDERER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

function cspMeta(): Plugin {
  return {
    name: 'baton-csp-meta',
    apply: 'build',
    transformIndexHtml: () => [
      { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: RENDERER_CSP }, injectTo: 'head-prepend' },
    ],
  };
}

export default defineConfig((env) => {
  const forgeName = (env as { forgeConfigSelf?: { name?: string } }).forgeConfigSelf?.name;
  return {
    root: resolve(projectRoot, 'renderer'),
    base: './',
    plugins: [react(), cspMeta()],
    build: {
      outDir: forgeName ? resolve(projectRoot, '.vite/renderer', forgeName) : resolve(projectRoot, 'dist/renderer'),
      emptyOutDir: true,
      sourcemap: false,
      modulePreload: { polyfill: false },
    },
    clearScreen: false,
  };
});
