/**
 * Electron Forge: the Vite plugin builds main, preload, the hosted backend's child (backend-host.js)
 * and the renderer; zip and deb makers; fuses lock the packaged app (no RunAsNode, no NODE_OPTIONS, no
 * --inspect, cookies encrypted, asar integrity enforced, app code loaded only from the asar). The
 * hosted backend loads better-sqlite3, a native module no bundle can hold: the package carries it (and
 * what it loads its binary with), rebuilt for Electron, its binary outside the asar.
 */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { MakerDeb } from '@electron-forge/maker-deb';
import { MakerZIP } from '@electron-forge/maker-zip';
import { FusesPlugin } from '@electron-forge/plugin-fuses';
import { VitePlugin } from '@electron-forge/plugin-vite';
import type { ForgeConfig } from '@electron-forge/shared-types';
import { FuseV1Options, FuseVersion } from '@electron/fuses';
import { rebuild } from '@electron/rebuild';

/** The native SQLite module and the packages it loads its binary with. */
const NATIVE_MODULES = ['better-sqlite3', 'bindings', 'file-uri-to-path'];

const config: ForgeConfig = {
  packagerConfig: {
    name: 'Baton',
    executableName: 'baton-desktop',
    asar: { unpack: '**/*.node' },
  },
  hooks: {
    async packageAfterCopy(_config, buildPath, electronVersion, _platform, arch) {
      for (const name of NATIVE_MODULES)
        await cp(join(import.meta.dirname, 'node_modules', name), join(buildPath, 'node_modules', name), { recursive: true });
      await rebuild({ buildPath, electronVersion, arch, onlyModules: ['better-sqlite3'], force: true });
    },
  },
  rebuildConfig: {},
  makers: [
    new MakerZIP({}, ['darwin', 'linux', 'win32']),
    new MakerDeb({ options: { name: 'baton', productName: 'Baton', categories: ['Development'] } }),
  ],
  plugins: [
    new VitePlugin({
      build: [
        { entry: 'electron/main.ts', config: 'vite.main.config.ts', target: 'main' },
        { entry: 'electron/preload.ts', config: 'vite.preload.config.ts', target: 'preload' },
        { entry: 'backend/hosting/hosted-backend-child.ts', config: 'vite.backend-host.config.ts', target: 'main' },
      ],
      renderer: [{ name: 'main_window', config: 'vite.renderer.config.ts' }],
    }),
    new FusesPlugin({
      version: FuseVersion.V1,
      [FuseV1Options.RunAsNode]: false,
      [FuseV1Options.EnableCookieEncryption]: true,
      [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
      [FuseV1Options.EnableNodeCliInspectArguments]: false,
      [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
      [FuseV1Options.OnlyLoadAppFromAsar]: true,
    }),
  ],
};

export default config;
