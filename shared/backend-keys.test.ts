/** Backend key fingerprints: one kept form, read back from whatever a person pasted. */
import { describe, expect, it } from 'vitest';
import { BackendPins, MAX_BACKEND_PINS, parseKeyFingerprint, parseKeyFingerprints } from './backend-keys.ts';
import { isLoopbackHost, plainHttpBeyondLoopback } from './backend-addresses.ts';

const HEX = '0123456789abcdef'.repeat(4);
const KEPT = `sha256:${HEX}`;

describe('a backend key fingerprint', () => {
  it('is kept as sha256: and 64 lower-case hex digits, read from any case, colons, spaces and line breaks', () => {
    for (const pasted of [
      KEPT,
      HEX,
      HEX.toUpperCase(),
      `SHA256:${HEX.toUpperCase()}`,
      `sha-256/${HEX}`,
      HEX.replace(/(..)/g, '$1:').slice(0, -1),
      `  sha256:${HEX.slice(0, 20)}\n   ${HEX.slice(20, 41)}\r\n${HEX.slice(41)}  `,
    ]) {
      expect(parseKeyFingerprint(pasted), pasted).toEqual({ ok: true, value: KEPT });
    }
  });

  it('refuses what is not one, quoting it', () => {
    for (const bad of ['', 'sha256:', HEX.slice(1), `${HEX}0`, HEX.replace('a', 'g'), `md5:${HEX}`]) {
      const parsed = parseKeyFingerprint(bad);
      expect(parsed, bad).toMatchObject({ ok: false, code: 'invalid_key_fingerprint' });
    }
    expect(parseKeyFingerprint('nope')).toMatchObject({ message: expect.stringContaining('"nope"') });
  });

  it('lists several separated by commas or lines, each once, at most a few', () => {
    const other = `sha256:${'f'.repeat(64)}`;
    expect(parseKeyFingerprints(`${KEPT}, ${other}\n${HEX}`)).toEqual({ ok: true, value: [KEPT, other] });
    // One fingerprint wrapped over lines is one fingerprint.
    expect(parseKeyFingerprints(`${HEX.slice(0, 32)}\n${HEX.slice(32)}`)).toEqual({ ok: true, value: [KEPT] });
    const many = Array.from({ length: MAX_BACKEND_PINS + 1 }, (_, i) => `sha256:${i.toString(16).padStart(64, '0')}`);
    expect(parseKeyFingerprints(many.join(','))).toMatchObject({ ok: false });
    expect(BackendPins.parse([HEX.toUpperCase(), KEPT])).toEqual([KEPT]);
    expect(BackendPins.safeParse(['not a key']).success).toBe(false);
  });
});

describe('plain HTTP beyond this machine', () => {
  it('is every http address but loopback ones; https is never', () => {
    expect(
      plainHttpBeyondLoopback([
        'http://127.0.0.1:8787',
        'http://localhost:1',
        'http://[::1]:2',
        'http://10.0.0.5:8787',
        'https://10.0.0.6:8787',
        'http://backend.example:80/prefix',
      ]),
    ).toEqual(['http://10.0.0.5:8787', 'http://backend.example:80/prefix']);
    expect(isLoopbackHost('127.8.9.10')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
  });
});
