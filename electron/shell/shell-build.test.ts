/**
 * The desktop shell builds the way `electron-forge package` builds it: Forge's own Vite config
 * generator over forge.config.ts, then Vite. The packaged app ships only those bundles (no
 * node_modules), so the main bundle may import nothing but Electron and Node's built-ins, and the
 * sandboxed preload may require nothing but Electron. (The Electron binary itself cannot be
 * downloaded here, so no window opens in CI; this is what can be checked without it.)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ViteConfigGenerator from '@electron-forge/plugin-vite/dist/ViteConfig.js';
import type { VitePluginConfig } from '@electron-forge/plugin-vite/dist/Config.js';
import { build, type InlineConfig } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import forgeConfig from '../../forge.config.ts';
import { PROJECT_ROOT } from '../runtime/process-harness.ts';

let outDir: string;

/** The module specifiers a bundle loads at run time (static imports, and require calls outside strings). */
function importsOf(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w$*{}\s,]+from\s*)?["']([^"']+)["']/g)) found.add(match[1]!);
  for (const match of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.add(match[1]!);
  for (const match of code.matchAll(/(?<![`"'\\])\brequire\(\s*["']([^"']+)["']\s*\)/g)) found.add(match[1]!);
  return [...found].sort();
}

const NODE = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'baton-shell-build-'));
  const plugin = forgeConfig.plugins?.find((p) => (p as { name?: string }).name === 'vite') as unknown as { config: VitePluginConfig } | undefined;
  if (!plugin) throw new Error('forge.config.ts has no Vite plugin');
  const generator = new ViteConfigGenerator(plugin.config, PROJECT_ROOT, true);
  const configs: InlineConfig[] = await generator.getBuildConfigs();
  for (const config of configs) {
    await build({ ...config, logLevel: 'error', build: { ...config.build, outDir, emptyOutDir: false, watch: null } });
  }
}, 120_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('the desktop shell as Forge builds it', () => {
  it('has a main bundle that imports only Electron and Node built-ins', () => {
    const main = readFileSync(join(outDir, 'main.js'), 'utf8');
    const imports = importsOf(main);
    expect(imports).toContain('electron');
    expect(imports.filter((name) => name !== 'electron' && !NODE.has(name))).toEqual([]);
    // The renderer name Forge defines is baked in (the window loads main_window/index.html).
    expect(main).toContain('main_window');
  });

  it('has a sandbox-safe preload: one CommonJS file that requires only electron', () => {
    const preload = readFileSync(join(outDir, 'preload.js'), 'utf8');
    expect(importsOf(preload)).toEqual(['electron']);
    expect(preload).not.toMatch(/^\s*import\s/m);
    expect(preload).toContain('contextBridge');
  });
});
