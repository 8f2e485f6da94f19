/**
 * Where a device keeps its secrets. Headless devices use 0600 files in the profile folder;
 * the Electron shell supplies a safeStorage-backed store with the same interface.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export interface SecretStore {
  /** The stored bytes, or null when nothing is stored under `name`. */
  read(name: string): Buffer | null;
  /** Stores `bytes` under `name`, replacing what was there atomically. */
  write(name: string, bytes: Uint8Array): void;
  /** Forgets what is stored under `name` (nothing when there is nothing). */
  remove(name: string): void;
}

const SECRET_NAME = /^[a-z0-9][a-z0-9.-]{0,63}$/;

function checkName(name: string): void {
  if (!SECRET_NAME.test(name)) throw new Error(`invalid secret name "${name}"`);
}

/** Writes `bytes` to `path` atomically (temp file + fsync + rename), readable by the owner only (0600). */
export function writeFileAtomic600(path: string, bytes: Uint8Array): void {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    let written = 0;
    while (written < bytes.byteLength) written += writeSync(fd, bytes, written, bytes.byteLength - written);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

/** Reads a file, or null when it does not exist. */
export function readFileOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** A SecretStore of 0600 files in `dir` (created 0700 when missing). */
export function fileSecretStore(dir: string): SecretStore {
  return {
    read(name) {
      checkName(name);
      return readFileOrNull(join(dir, name));
    },
    write(name, bytes) {
      checkName(name);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileAtomic600(join(dir, name), bytes);
    },
    remove(name) {
      checkName(name);
      rmSync(join(dir, name), { force: true });
    },
  };
}

/** An in-memory SecretStore (tests, and devices that must not touch the disk). */
export function memorySecretStore(): SecretStore {
  const items = new Map<string, Buffer>();
  return {
    read: (name) => {
      const value = items.get(name);
      return value === undefined ? null : Buffer.from(value);
    },
    write: (name, bytes) => {
      checkName(name);
      items.set(name, Buffer.from(bytes));
    },
    remove: (name) => {
      items.delete(name);
    },
  };
}
