import { describe, expect, it } from 'vitest';
import { CHECKPOINT_FORMAT, decodeCheckpoint, encodeCheckpoint, sha256Hex, type Checkpoint } from './checkpoint.ts';

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
    transcript: [{ id: 'e1', at: 1, role: 'user', agentId: 'main', text: 'hello\nwith a newline' }],
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

  it('carries the whole transcript, one line per entry, however long the session', () => {
    const long = Array.from({ length: 5000 }, (_, i) => ({
      id: `e${i}`,
      at: i,
      role: i % 7 === 0 ? ('system' as const) : ('assistant' as const),
      agentId: 'main',
      text: `entry ${i}\n"quoted" and \u2028 separated`,
    }));
    const body = checkpoint({ transcript: long });
    const bytes = encodeCheckpoint(body);
    expect(Buffer.from(bytes).toString('utf8').split('\n')).toHaveLength(long.length + 2);
    const decoded = decodeCheckpoint(bytes, body.sessionId, body.handoffId);
    if (!decoded.ok) throw new Error(decoded.message);
    expect(decoded.value.transcript).toEqual(long);
  });

  it('refuses a transcript cut short or with a broken entry as malformed', () => {
    const body = checkpoint({
      transcript: [1, 2, 3].map((i) => ({ id: `e${i}`, at: i, role: 'user' as const, agentId: 'main', text: 't' })),
    });
    const bytes = Buffer.from(encodeCheckpoint(body));
    const lines = bytes.toString('utf8').split('\n');
    const cut = Buffer.from(lines.slice(0, 3).join('\n') + '\n');
    expect(decodeCheckpoint(cut, body.sessionId, body.handoffId)).toMatchObject({ ok: false, code: 'malformed_checkpoint' });
    const broken = Buffer.from([...lines.slice(0, 2), '{"id":"e2"}', ...lines.slice(3)].join('\n'));
    expect(decodeCheckpoint(broken, body.sessionId, body.handoffId)).toMatchObject({
      ok: false,
      code: 'malformed_checkpoint',
      message: expect.stringContaining('entry 2'),
    });
  });

  it('still reads the earlier format that held only a tail', () => {
    const { transcript, ...rest } = checkpoint();
    const earlier = Buffer.from(JSON.stringify({ ...rest, format: 'baton-checkpoint/1', transcriptTail: transcript }));
    expect(decodeCheckpoint(earlier, rest.sessionId, rest.handoffId)).toEqual({ ok: true, value: { ...rest, transcript } });
  });

  it('addresses content by its SHA-256', () => {
    expect(sha256Hex(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
