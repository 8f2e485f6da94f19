/**
 * Opaque, stable tags for values the backend must not learn (e.g. a memory topic from a branch slug):
 * HMAC-SHA256 under a key derived from the account's oldest ADK version, so every enrolled device
 * derives the same tag before and after rotations.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import type { KeyRing } from './key-ring.ts';

/** The lower-case hex keyed digest of `value` for `label`; null when the ring is empty. */
export function keyedTopic(ring: KeyRing, label: string, value: string): string | null {
  const oldest = ring.versions()[0];
  if (oldest === undefined) return null;
  const key = Buffer.from(hkdfSync('sha256', ring.get(oldest)!, 'baton-topic-v1', label, 32));
  return createHmac('sha256', key).update(value, 'utf8').digest('hex');
}
