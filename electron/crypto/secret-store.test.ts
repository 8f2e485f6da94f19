import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../dev-env/temp-folders.ts';
import { fileSecretStore, memorySecretStore } from './secret-store.ts';

const tempFolder = tempFolders('baton-secrets-');

describe('file secret store', () => {
  it('writes 0600 files atomically in a 0700 folder and reads them back', () => {
    const dir = join(tempFolder(), 'profile');
    const store = fileSecretStore(dir);
    expect(store.read('adk.keyring')).toBeNull();
    store.write('adk.keyring', Buffer.from('one'));
    store.write('adk.keyring', Buffer.from('two'));
    expect(store.read('adk.keyring')?.toString()).toBe('two');
    expect(statSync(join(dir, 'adk.keyring')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(['adk.keyring']);
  });

  it('refuses names that could escape the folder', () => {
    const store = memorySecretStore();
    for (const name of ['../x', 'a/b', '', '.hidden']) expect(() => store.write(name, Buffer.from('x'))).toThrow(/invalid secret name/);
  });
});
