import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { SealContext } from './envelope.ts';
import { generateAdk, KeyRing } from './key-ring.ts';
import { sealJson, unsealJson } from './sealed-json.ts';

const ring = new KeyRing([[1, generateAdk()]]);
const meta: SealContext = { purpose: 'session-meta', accountId: 'account-aaaaaaaaaaaa', sessionId: 'session-ssssssssssss' };

describe('sealed JSON fields', () => {
  it('round-trips a value as base64url and validates it with a schema', () => {
    const sealed = sealJson(ring, meta, { title: 'Fix login', repo: '/home/me/app' });
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('Fix');
    const schema = z.object({ title: z.string(), repo: z.string() });
    expect(unsealJson(ring, meta, sealed, schema)).toMatchObject({ ok: true, value: { title: 'Fix login', repo: '/home/me/app' } });
    expect(unsealJson(ring, meta, sealed, z.object({ title: z.number() }))).toMatchObject({ ok: false, code: 'malformed_envelope' });
  });

  it('rejects a field moved to another session or purpose, and non-base64url text', () => {
    const sealed = sealJson(ring, meta, { title: 'x' });
    expect(unsealJson(ring, { ...meta, sessionId: 'session-otherotherot' }, sealed)).toMatchObject({
      ok: false,
      code: 'checkpoint_rejected',
    });
    expect(unsealJson(ring, { ...meta, purpose: 'session-event' }, sealed)).toMatchObject({ ok: false, code: 'checkpoint_rejected' });
    expect(unsealJson(ring, meta, 'a+b/')).toMatchObject({ ok: false, code: 'malformed_envelope' });
  });
});
