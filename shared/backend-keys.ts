/**
 * The fingerprint of a sync backend's key: the SHA-256 of its public key (the certificate's
 * SubjectPublicKeyInfo), which devices pin. `baton backend` prints it, invites carry it, a profile
 * keeps it and the screens show it, always as `sha256:` and 64 lower-case hex digits. Read back from
 * whatever a person pasted: with or without `sha256:`, in either case, split by colons, spaces or
 * line breaks (a terminal or a mail that wrapped it).
 */
import { z } from 'zod';
import type { Result } from './errors.ts';

export const KEY_FINGERPRINT_PREFIX = 'sha256:';
/** How many keys a device accepts at most (one per instance, when instances do not share one). */
export const MAX_BACKEND_PINS = 8;

const HEX = /^[0-9a-f]{64}$/;

/** A fingerprint in its kept form (`sha256:` + 64 hex digits), or why the text is not one. */
export function parseKeyFingerprint(text: string): Result<string, 'invalid_key_fingerprint'> {
  const hex = text
    .replace(/\s+/g, '')
    .replace(/^sha-?256[:/]?/i, '')
    .replace(/:/g, '')
    .toLowerCase();
  if (HEX.test(hex)) return { ok: true, value: `${KEY_FINGERPRINT_PREFIX}${hex}` };
  const shown = text.trim().slice(0, 80);
  return {
    ok: false,
    code: 'invalid_key_fingerprint',
    message: `"${shown}" is not a key fingerprint (expected sha256: and 64 hex digits, as \`baton backend\` prints it)`,
  };
}

/** Fingerprints separated by commas, spaces or line breaks, each in its kept form, duplicates once. */
export function parseKeyFingerprints(text: string): Result<string[], 'invalid_key_fingerprint'> {
  // One fingerprint split over lines or by spaces is one fingerprint: try the whole text first.
  const whole = parseKeyFingerprint(text);
  if (whole.ok) return { ok: true, value: [whole.value] };
  const pins: string[] = [];
  for (const entry of text.split(/[,\n]+/).filter((part) => part.trim() !== '')) {
    const parsed = parseKeyFingerprint(entry);
    if (!parsed.ok) return parsed;
    if (!pins.includes(parsed.value)) pins.push(parsed.value);
  }
  if (pins.length === 0) return { ok: false, code: 'invalid_key_fingerprint', message: 'no key fingerprint given' };
  if (pins.length > MAX_BACKEND_PINS)
    return { ok: false, code: 'invalid_key_fingerprint', message: `at most ${MAX_BACKEND_PINS} key fingerprints, got ${pins.length}` };
  return { ok: true, value: pins };
}

/** The schema of a list of pins (profile, invite, device API inputs); parses to the kept form. */
export const BackendPins = z
  .array(z.string().max(200))
  .max(MAX_BACKEND_PINS)
  .transform((entries, ctx) => {
    const pins: string[] = [];
    for (const entry of entries) {
      const parsed = parseKeyFingerprint(entry);
      if (!parsed.ok) {
        ctx.addIssue({ code: 'custom', message: parsed.message });
        return z.NEVER;
      }
      if (!pins.includes(parsed.value)) pins.push(parsed.value);
    }
    return pins;
  });

/** What a device knows of its backend's key (Devices → Sync backend shows it). */
export interface BackendKeyView {
  /** The fingerprints this device accepts; empty: any certificate the system's trust store vouches for. */
  pinned: string[];
  /** The last key an address presented that this device refused (before sending it anything), or null. */
  refused: KeyRefusalView | null;
}

/** A key a backend address presented and this device refused. */
export interface KeyRefusalView {
  url: string;
  /** The fingerprint of the key it presented. */
  presented: string;
  /** `mismatch`: not a pinned key; `untrusted`: no pin, and no authority the system trusts vouches for it. */
  reason: 'mismatch' | 'untrusted';
  at: number;
}

/** What first contact with one address found (the set-up screen shows it before an account is made). */
export interface BackendKeyProbe {
  url: string;
  /** The key's fingerprint (null for plain http, or when the address did not answer). */
  presented: string | null;
  /** Whether an authority the system trusts vouches for it (then no pin is needed). */
  trusted: boolean;
  /** Why the address could not be probed, in words, or null. */
  error: string | null;
}
