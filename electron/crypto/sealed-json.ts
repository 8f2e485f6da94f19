/** Sealed JSON fields (session meta, events, capabilities, memory pointers) as base64url envelopes. */
import type { Result } from '../../shared/errors.ts';
import type { z } from 'zod';
import { fromBase64url, toBase64url } from './base64url.ts';
import { seal, unseal, type SealContext, type UnsealFailure } from './envelope.ts';
import type { KeyRing } from './key-ring.ts';

export type UnsealJsonResult<T> = Result<T, UnsealFailure['code']>;

/** Seals `value` as JSON for `context` under the newest key version; returns base64url. */
export function sealJson(ring: KeyRing, context: SealContext, value: unknown): string {
  return toBase64url(seal(ring, context, Buffer.from(JSON.stringify(value), 'utf8')));
}

/** Opens a base64url sealed JSON field; a schema, when given, validates the opened value. */
export function unsealJson<T = unknown>(ring: KeyRing, context: SealContext, sealed: string, schema?: z.ZodType<T>): UnsealJsonResult<T> {
  const envelope = fromBase64url(sealed);
  if (envelope === null) return { ok: false, code: 'malformed_envelope', message: 'sealed field is not base64url' };
  const opened = unseal(ring, context, envelope);
  if (!opened.ok) return opened;
  let value: unknown;
  try {
    value = JSON.parse(opened.value.plaintext.toString('utf8'));
  } catch {
    return { ok: false, code: 'malformed_envelope', message: 'sealed field does not hold JSON' };
  }
  if (schema === undefined) return { ok: true, value: value as T };
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    return { ok: false, code: 'malformed_envelope', message: `sealed field does not match its schema: ${parsed.error.message}` };
  return { ok: true, value: parsed.data };
}
