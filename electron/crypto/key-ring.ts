/**
 * The account data key (ADK) ring: key version → 32-byte key. New seals use the newest version;
 * every version held stays usable for opening older bodies. The backend holds only wrapped copies.
 */
import { randomBytes } from 'node:crypto';
import { fromBase64url, toBase64url } from './base64url.ts';

export const ADK_BYTES = 32;

/** The ring as stored in the profile's 0600 key-ring file. */
export interface KeyRingJson {
  keys: Array<{ version: number; key: string }>;
}

function checkVersion(version: number): void {
  if (!Number.isInteger(version) || version < 1 || version > 0xffffffff) throw new Error(`invalid key version ${String(version)}`);
}

export class KeyRing {
  private readonly keys = new Map<number, Buffer>();

  constructor(entries: Iterable<readonly [number, Uint8Array]> = []) {
    for (const [version, key] of entries) this.add(version, key);
  }

  /** Adds a version; adding the same key again is a no-op, a different key for a held version is refused. */
  add(version: number, key: Uint8Array): void {
    checkVersion(version);
    if (key.byteLength !== ADK_BYTES) throw new Error(`an ADK is ${ADK_BYTES} bytes, got ${key.byteLength}`);
    const held = this.keys.get(version);
    if (held !== undefined) {
      if (!held.equals(key)) throw new Error(`key version ${version} is already held with a different key`);
      return;
    }
    this.keys.set(version, Buffer.from(key));
  }

  /** The key of `version`, or undefined when this device lacks it. */
  get(version: number): Buffer | undefined {
    return this.keys.get(version);
  }

  has(version: number): boolean {
    return this.keys.has(version);
  }

  /** The newest version held, or null for an empty ring. */
  newest(): number | null {
    let newest: number | null = null;
    for (const version of this.keys.keys()) if (newest === null || version > newest) newest = version;
    return newest;
  }

  /** Every version held, ascending. */
  versions(): number[] {
    return [...this.keys.keys()].sort((a, b) => a - b);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Serializes for the 0600 key-ring file (this is secret material). */
  toJSON(): KeyRingJson {
    return { keys: this.versions().map((version) => ({ version, key: toBase64url(this.keys.get(version)!) })) };
  }

  /** Parses a stored ring; throws on anything malformed (a corrupt key file must not be half-read). */
  static fromJSON(json: unknown): KeyRing {
    const entries = (json as KeyRingJson | null)?.keys;
    if (!Array.isArray(entries)) throw new Error('key ring file is malformed');
    return new KeyRing(
      entries.map((entry) => {
        const key = typeof entry?.key === 'string' ? fromBase64url(entry.key) : null;
        if (key === null || typeof entry.version !== 'number') throw new Error('key ring file is malformed');
        return [entry.version, key] as const;
      }),
    );
  }
}

/** A fresh random ADK. */
export function generateAdk(): Buffer {
  return randomBytes(ADK_BYTES);
}
