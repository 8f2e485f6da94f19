/**
 * The renderer build: React, rooted at renderer/. Standalone (`npm run build:renderer`) it writes
 * dist/renderer, which the headless host serves; under Electron Forge it writes Forge's folder.
 * Production HTML carries the CSP as a meta tag (shared/content-security-policy.ts; the Electron shell
 * and the headless host also send it as a header).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { META_CONTENT_SECURITY_POLICY } from './shared/content-security-policy.ts';

const projectRoot = fileURLToPath(new URL('.', import.meta.url));

function cspMeta(): Plugin {
  return {
    name: 'baton-csp-meta',
    apply: 'build',
    transformIndexHtml: () => [
      { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: META_CONTENT_SECURITY_POLICY }, injectTo: 'head-prepend' },
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
