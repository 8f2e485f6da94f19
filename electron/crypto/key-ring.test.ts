import { describe, expect, it } from 'vitest';
import { generateAdk, KeyRing } from './key-ring.ts';

describe('key ring', () => {
  it('tracks the newest version and survives a JSON round trip', () => {
    const ring = new KeyRing([
      [2, generateAdk()],
      [1, generateAdk()],
    ]);
    expect(ring.newest()).toBe(2);
    expect(ring.versions()).toEqual([1, 2]);
    const copy = KeyRing.fromJSON(JSON.parse(JSON.stringify(ring)));
    expect(copy.get(1)?.equals(ring.get(1)!)).toBe(true);
    expect(copy.newest()).toBe(2);
  });

  it('refuses a second, different key for a held version and bad keys', () => {
    const ring = new KeyRing([[1, generateAdk()]]);
    ring.add(1, ring.get(1)!);
    expect(() => ring.add(1, generateAdk())).toThrow(/already held/);
    expect(() => ring.add(0, generateAdk())).toThrow(/invalid key version/);
    expect(() => ring.add(2, Buffer.alloc(16))).toThrow(/32 bytes/);
    expect(() => KeyRing.fromJSON({ keys: [{ version: 1, key: '***' }] })).toThrow(/malformed/);
    expect(new KeyRing().newest()).toBeNull();
  });
});
