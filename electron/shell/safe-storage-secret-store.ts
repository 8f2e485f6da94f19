/**
 * A SecretStore for the Electron shell: secrets encrypted with the OS keychain through `safeStorage`
 * (Keychain, DPAPI, libsecret/kwallet), written as 0600 files in the profile folder.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { safeStorage } from 'electron';
import { readFileOrNull, writeFileAtomic600, type SecretStore } from '../crypto/secret-store.ts';

const SECRET_NAME = /^[a-z0-9][a-z0-9.-]{0,63}$/;
const SUFFIX = '.safe';

/** Whether the OS offers real encryption here (false on Linux without a keyring: safeStorage would use a fixed key). */
export function safeStorageUsable(): boolean {
  if (!safeStorage.isEncryptionAvailable()) return false;
  return process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text';
}

/** A SecretStore of safeStorage-encrypted files in `dir`; throws when the OS cannot encrypt. */
export function safeStorageSecretStore(dir: string): SecretStore {
  const path = (name: string) => {
    if (!SECRET_NAME.test(name)) throw new Error(`invalid secret name "${name}"`);
    return join(dir, name + SUFFIX);
  };
  return {
    read(name) {
      const sealed = readFileOrNull(path(name));
      if (sealed === null) return null;
      return Buffer.from(safeStorage.decryptString(sealed), 'base64');
    },
    write(name, bytes) {
      if (!safeStorage.isEncryptionAvailable()) throw new Error('The OS keychain is not available; Baton cannot store device keys safely.');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileAtomic600(path(name), safeStorage.encryptString(Buffer.from(bytes).toString('base64')));
    },
    remove(name) {
      rmSync(path(name), { force: true });
    },
  };
}
