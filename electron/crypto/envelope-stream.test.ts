/** The streamed envelope: the same bytes as the one-shot one, any chunking, every failure a value. */
import { randomBytes, randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkpointContext, seal, unseal, ENVELOPE_OVERHEAD } from './envelope.ts';
import { startOpen, startSeal } from './envelope-stream.ts';
import { generateAdk, KeyRing } from './key-ring.ts';

const ring = new KeyRing([
  [1, generateAdk()],
  [2, generateAdk()],
]);
const context = checkpointContext('account-aaaaaaaaaaaa', 'session-ssssssssssss', 'handoff-AAAAAAAAAAAA');

/** Splits `bytes` into random-sized pieces (1 byte up to `max`). */
function pieces(bytes: Buffer, max: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const take = Math.min(bytes.length - at, randomInt(1, max + 1));
    out.push(bytes.subarray(at, at + take));
    at += take;
  }
  return out;
}

function streamSeal(body: Buffer, keyVersion?: number): Buffer {
  const sealer = startSeal(ring, context, keyVersion);
  const parts = [sealer.head, ...pieces(body, 70_000).map((p) => sealer.update(p))];
  parts.push(sealer.final());
  return Buffer.concat(parts);
}

function streamOpen(envelope: Buffer, max = 5000, ctx = context) {
  const opener = startOpen(ring, ctx, envelope.length);
  const out: Buffer[] = [];
  for (const piece of pieces(envelope, max)) {
    const plain = opener.update(piece);
    if (!plain.ok) return plain;
    out.push(plain.value);
  }
  const done = opener.final();
  return done.ok ? { ok: true as const, value: Buffer.concat(out), keyVersion: done.value.keyVersion } : done;
}

describe('the streamed envelope', () => {
  it('seals chunk by chunk into an envelope the one-shot unseal opens, and opens what seal made, in any chunking', () => {
    const body = randomBytes(300_000);
    const streamed = streamSeal(body, 1);
    expect(streamed.length).toBe(body.length + ENVELOPE_OVERHEAD);
    const opened = unseal(ring, context, streamed);
    expect(opened.ok && opened.value.plaintext.equals(body)).toBe(true);
    for (const max of [1, 7, 19, 20, 4096]) {
      const back = streamOpen(seal(ring, context, body), max);
      expect(back.ok && back.value.equals(body)).toBe(true);
    }
    const empty = streamOpen(streamSeal(Buffer.alloc(0)));
    expect(empty.ok && empty.value.length).toBe(0);
  });

  it('seals under the stated key version (the newest by default) and says which one opened it', () => {
    const body = randomBytes(100);
    const byDefault = streamOpen(streamSeal(body));
    const stated = streamOpen(streamSeal(body, 1));
    expect(byDefault.ok && byDefault.keyVersion).toBe(2);
    expect(stated.ok && stated.keyVersion).toBe(1);
  });

  it('refuses a tampered byte anywhere (head, body or tag) only at final, as checkpoint_rejected', () => {
    const envelope = streamSeal(randomBytes(50_000));
    for (const at of [12, 100, envelope.length - 30, envelope.length - 1]) {
      const tampered = Buffer.from(envelope);
      tampered[at]! ^= 0x01;
      const opened = streamOpen(tampered);
      expect(!opened.ok && opened.code).toBe('checkpoint_rejected');
    }
  });

  it('refuses a body sealed for another handoff, a key version this ring lacks, and a wrong length', () => {
    const envelope = streamSeal(randomBytes(1000));
    const other = streamOpen(envelope, 5000, checkpointContext('account-aaaaaaaaaaaa', 'session-ssssssssssss', 'handoff-BBBBBBBBBBBB'));
    expect(!other.ok && other.code).toBe('checkpoint_rejected');

    const lacking = new KeyRing([[1, generateAdk()]]);
    const opener = startOpen(lacking, context, envelope.length);
    const first = opener.update(envelope);
    expect(!first.ok && [first.code, first.details]).toEqual(['key_version_missing', { keyVersion: 2 }]);

    const short = startOpen(ring, context, envelope.length + 1);
    expect(short.update(envelope).ok).toBe(true);
    const shortEnd = short.final();
    expect(!shortEnd.ok && shortEnd.code).toBe('malformed_envelope');
    const long = startOpen(ring, context, envelope.length - 1);
    const longer = long.update(envelope);
    expect(!longer.ok && longer.code).toBe('malformed_envelope');

    const notOne = startOpen(ring, context, envelope.length);
    const junk = notOne.update(Buffer.alloc(envelope.length, 0x41));
    expect(!junk.ok && junk.code).toBe('malformed_envelope');
    expect(startOpen(ring, context, 10).final()).toMatchObject({ ok: false, code: 'malformed_envelope' });
  });
});
