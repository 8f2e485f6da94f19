import { describe, expect, it } from 'vitest';
import { CHECKPOINT_FORMAT, TRANSCRIPT_TAIL, decodeCheckpoint, encodeCheckpoint, sha256Hex, type Checkpoint } from './checkpoint.ts';

function checkpoint(overrides: Partial<Checkpoint> = {}): Checkpoint {
  return {
    format: CHECKPOINT_FORMAT,
    sessionId: 'session-aaaaaaaaaaaa',
    handoffId: 'handoff-aaaaaaaaaaaa',
    createdAt: 1_700_000_000_000,
    sourceDeviceId: 'device-aaaaaaaaaaaaa',
    sourceDeviceName: 'laptop',
    meta: { title: 'Fix the parser', provider: 'claude-code', prompt: 'Fix the parser', permission: 'full', providerVersion: '2.1.332' },
    repos: [{ relPath: '.', remoteUrl: '/origins/app.git', branch: 'main', commit: 'a'.repeat(40), mergeBase: 'b'.repeat(40) }],
    providerResume: { provider: 'demo', format: 'demo/state@1', sessionId: null, payload: { turn: 1 } },
    packets: [{ relPath: '.', packet: { verified: { branch: 'main' } } }],
    agents: [{ id: 'main', parentId: null, name: 'Demo agent', role: 'main', status: 'waiting', lastActivityAt: 1 }],
    transcriptTail: [{ id: 'e1', at: 1, role: 'user', agentId: 'main', text: 'hello' }],
    ...overrides,
  };
}

describe('the checkpoint body', () => {
  it('round-trips through its bytes', () => {
    const body = checkpoint();
    const decoded = decodeCheckpoint(encodeCheckpoint(body), body.sessionId, body.handoffId);
    expect(decoded).toEqual({ ok: true, value: body });
  });

  it('rejects a body that belongs to another handoff, even when it opens', () => {
    const body = encodeCheckpoint(checkpoint());
    expect(decodeCheckpoint(body, 'session-aaaaaaaaaaaa', 'handoff-bbbbbbbbbbbb')).toMatchObject({
      ok: false,
      code: 'checkpoint_rejected',
    });
    expect(decodeCheckpoint(body, 'session-bbbbbbbbbbbb', 'handoff-aaaaaaaaaaaa')).toMatchObject({
      ok: false,
      code: 'checkpoint_rejected',
    });
  });

  it('refuses bytes that are not a checkpoint as malformed', () => {
    expect(decodeCheckpoint(Buffer.from('not json'), 's', 'h')).toMatchObject({ ok: false, code: 'malformed_checkpoint' });
    expect(decodeCheckpoint(Buffer.from(JSON.stringify({ format: 'other/1' })), 's', 'h')).toMatchObject({
      ok: false,
      code: 'malformed_checkpoint',
    });
    const wrongResume = { ...checkpoint(), providerResume: { provider: 'nobody', format: 'x', sessionId: null, payload: 1 } };
    expect(decodeCheckpoint(Buffer.from(JSON.stringify(wrongResume)), wrongResume.sessionId, wrongResume.handoffId)).toMatchObject({
      ok: false,
      code: 'malformed_checkpoint',
    });
  });

  it("carries the session's permission level and the source's CLI version; a level it does not know is malformed, a checkpoint from before levels has none", () => {
    const body = checkpoint();
    const decoded = decodeCheckpoint(encodeCheckpoint(body), body.sessionId, body.handoffId);
    expect(decoded.ok && [decoded.value.meta.permission, decoded.value.meta.providerVersion]).toEqual(['full', '2.1.332']);
    const unknown = { ...body, meta: { ...body.meta, permission: 'root' } };
    expect(decodeCheckpoint(Buffer.from(JSON.stringify(unknown)), body.sessionId, body.handoffId)).toMatchObject({
      ok: false,
      code: 'malformed_checkpoint',
    });
    const older = { ...body, meta: { title: 'Fix the parser', provider: 'claude-code', prompt: 'Fix the parser' } };
    const decodedOlder = decodeCheckpoint(Buffer.from(JSON.stringify(older)), body.sessionId, body.handoffId);
    expect(decodedOlder.ok && decodedOlder.value.meta).toEqual(older.meta);
  });

  it('carries only the transcript tail', () => {
    const long = Array.from({ length: TRANSCRIPT_TAIL + 50 }, (_, i) => ({
      id: `e${i}`,
      at: i,
      role: 'assistant' as const,
      agentId: 'main',
      text: `entry ${i}`,
    }));
    const body = checkpoint({ transcriptTail: long });
    const decoded = decodeCheckpoint(encodeCheckpoint(body), body.sessionId, body.handoffId);
    if (!decoded.ok) throw new Error(decoded.message);
    expect(decoded.value.transcriptTail).toHaveLength(TRANSCRIPT_TAIL);
    expect(decoded.value.transcriptTail[0]?.id).toBe('e50');
  });

  it('addresses content by its SHA-256', () => {
    expect(sha256Hex(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
