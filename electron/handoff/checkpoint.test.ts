import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECKPOINT_FORMAT, sha256Hex, type Checkpoint } from './checkpoint.ts';
import { CheckpointReader } from './checkpoint-reader.ts';
import { checkpointHead, writeCheckpoint } from './checkpoint-writer.ts';
import { transcriptOf, type CheckpointTranscript } from './checkpoint-transcript.ts';
import type { TranscriptEntry } from '../../shared/agents.ts';

const dir = mkdtempSync(join(tmpdir(), 'baton-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let stages = 0;

/** A checkpoint whose transcript is `transcript` (one entry when not given), held in memory. */
function checkpoint(overrides: Partial<Omit<Checkpoint, 'transcript'>> & { transcript?: TranscriptEntry[] } = {}): Checkpoint {
  const { transcript = [{ id: 'e1', at: 1, role: 'user', agentId: 'main', text: 'hello\nwith a newline' }], ...rest } = overrides;
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
    ...rest,
    transcript: transcriptOf(transcript),
  };
}

/** Every entry of a checkpoint's transcript, read from where it is kept. */
async function entriesOf(transcript: CheckpointTranscript): Promise<TranscriptEntry[]> {
  const all: TranscriptEntry[] = [];
  for await (const entry of transcript.entries()) all.push(entry);
  return all;
}

/** A checkpoint with its transcript read out, to compare whole. */
async function readOut(value: Checkpoint) {
  return { ...value, transcript: await entriesOf(value.transcript) };
}

/** The body's bytes (each chunk copied: the writer reuses its buffer). */
async function encode(body: Checkpoint): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await writeCheckpoint(body, async (chunk) => void chunks.push(Buffer.from(chunk)));
  return Buffer.concat(chunks);
}

/** Reads `bytes` fed in pieces of `piece` bytes into a fresh staging folder. */
async function decode(bytes: Buffer, sessionId = 'session-aaaaaaaaaaaa', handoffId = 'handoff-aaaaaaaaaaaa', piece = 4093) {
  const staging = join(dir, `stage-${(stages += 1)}`);
  const reader = new CheckpointReader(staging, sessionId, handoffId);
  for (let at = 0; at < bytes.length; at += piece) await reader.push(bytes.subarray(at, at + piece));
  return { result: await reader.end(), reader, staging };
}

/** A provider file on disk for a checkpoint to carry. */
function providerFile(name: string, bytes: Buffer) {
  const path = join(dir, `${name.replace(/\//g, '-')}-${(stages += 1)}`);
  writeFileSync(path, bytes);
  return { name, path, size: bytes.length };
}

describe('the checkpoint body', () => {
  it("round-trips in any chunking, the provider's files as binary parts staged as files", async () => {
    const transcriptFile = randomBytes(30_000);
    const side = Buffer.from('{"type":"user"}\n');
    const body = checkpoint({
      providerResume: {
        provider: 'claude-code',
        format: 'claude-code/transcript@2',
        sessionId: 'abc',
        payload: { sourceCwd: '/ws' },
        files: [providerFile('transcript', transcriptFile), providerFile('side/a.jsonl', side), providerFile('empty', Buffer.alloc(0))],
      },
    });
    const bytes = await encode(body);
    // No base64: the body is barely longer than what it carries.
    expect(bytes.length).toBeLessThan(transcriptFile.length + side.length + 2000);
    for (const piece of [1, 8, 4093, 1 << 20]) {
      const { result, staging } = await decode(bytes, body.sessionId, body.handoffId, piece);
      if (!result.ok) throw new Error(result.message);
      const files = result.value.providerResume!.files!;
      expect(files.map((f) => [f.name, f.size, f.path.startsWith(staging)])).toEqual([
        ['transcript', transcriptFile.length, true],
        ['side/a.jsonl', side.length, true],
        ['empty', 0, true],
      ]);
      expect(readFileSync(files[0]!.path).equals(transcriptFile)).toBe(true);
      expect(readFileSync(files[1]!.path).equals(side)).toBe(true);
      expect({ ...(await readOut(result.value)), providerResume: null }).toEqual({ ...(await readOut(body)), providerResume: null });
    }
  });

  it('rejects a body that belongs to another handoff or session, even when it reads', async () => {
    const bytes = await encode(checkpoint());
    expect((await decode(bytes, 'session-aaaaaaaaaaaa', 'handoff-bbbbbbbbbbbb')).result).toMatchObject({
      ok: false,
      code: 'checkpoint_rejected',
    });
    expect((await decode(bytes, 'session-bbbbbbbbbbbb', 'handoff-aaaaaaaaaaaa')).result).toMatchObject({
      ok: false,
      code: 'checkpoint_rejected',
    });
  });

  it('refuses bytes that are not a checkpoint as malformed', async () => {
    expect((await decode(Buffer.from('not json'))).result).toMatchObject({ ok: false, code: 'malformed_checkpoint' });
    expect((await decode(Buffer.from(JSON.stringify({ format: 'other/1' })))).result).toMatchObject({
      ok: false,
      code: 'malformed_checkpoint',
    });
    const wrongResume = {
      ...checkpointHead(checkpoint()),
      providerResume: { provider: 'nobody', format: 'x', sessionId: null, payload: 1 },
    };
    expect((await decode(Buffer.from(`${JSON.stringify(wrongResume)}\n`))).result).toMatchObject({
      ok: false,
      code: 'malformed_checkpoint',
    });
    expect((await decode(Buffer.alloc(0))).result).toMatchObject({ ok: false, code: 'malformed_checkpoint' });
  });

  it("carries the session's permission level and the source's CLI version; a level it does not know is malformed, a checkpoint from before levels has none", async () => {
    const body = checkpoint();
    const decoded = (await decode(await encode(body))).result;
    expect(decoded.ok && [decoded.value.meta.permission, decoded.value.meta.providerVersion]).toEqual(['full', '2.1.332']);
    const unknown = { ...checkpointHead(body), meta: { ...body.meta, permission: 'root' } };
    expect((await decode(Buffer.from(`${JSON.stringify(unknown)}\n`))).result).toMatchObject({ ok: false, code: 'malformed_checkpoint' });
    const olderMeta = { title: 'Fix the parser', provider: 'claude-code', prompt: 'Fix the parser' };
    const older = await decode(Buffer.from(`${JSON.stringify({ ...checkpointHead(body), transcriptEntries: 0, meta: olderMeta })}\n`));
    expect(older.result.ok && older.result.value.meta).toEqual(olderMeta);
  });

  it('carries the whole transcript, one line per entry, however long the session', async () => {
    const long = Array.from({ length: 5000 }, (_, i) => ({
      id: `e${i}`,
      at: i,
      role: i % 7 === 0 ? ('system' as const) : ('assistant' as const),
      agentId: 'main',
      text: `entry ${i}\n"quoted" and \u2028 separated`,
    }));
    const body = checkpoint({ transcript: long });
    const bytes = await encode(body);
    expect(bytes.toString('utf8').split('\n')).toHaveLength(long.length + 2);
    const { result } = await decode(bytes);
    if (!result.ok) throw new Error(result.message);
    // Staged to a file as it arrived, the newest kept at hand.
    expect(result.value.transcript.count).toBe(long.length);
    expect(await entriesOf(result.value.transcript)).toEqual(long);
    expect(result.value.transcript.newest).toEqual(long.slice(-200));
  });

  it('refuses a transcript cut short or with a broken entry as malformed', async () => {
    const body = checkpoint({
      transcript: [1, 2, 3].map((i) => ({ id: `e${i}`, at: i, role: 'user' as const, agentId: 'main', text: 't' })),
    });
    const lines = (await encode(body)).toString('utf8').split('\n');
    const cut = Buffer.from(lines.slice(0, 3).join('\n') + '\n');
    expect((await decode(cut)).result).toMatchObject({ ok: false, code: 'malformed_checkpoint' });
    const midEntry = Buffer.from(lines.slice(0, 3).join('\n') + '\n{"id":');
    expect((await decode(midEntry)).result).toMatchObject({ ok: false, message: 'The checkpoint transcript ends mid-entry.' });
    const broken = Buffer.from([...lines.slice(0, 2), '{"id":"e2"}', ...lines.slice(3)].join('\n'));
    expect((await decode(broken)).result).toMatchObject({
      ok: false,
      code: 'malformed_checkpoint',
      message: expect.stringContaining('entry 2'),
    });
  });

  it('refuses a provider file cut short, of another length than its head says, or followed by more bytes; discard removes what was staged', async () => {
    const file = providerFile('rollout', randomBytes(10_000));
    const body = checkpoint({
      providerResume: { provider: 'codex', format: 'codex/rollout@2', sessionId: 't', payload: {}, files: [file] },
    });
    const bytes = await encode(body);
    const cut = await decode(bytes.subarray(0, bytes.length - 1));
    expect(cut.result).toMatchObject({ ok: false, message: 'The checkpoint ends before its last provider file.' });
    expect(existsSync(cut.staging)).toBe(true);
    await cut.reader.discard();
    expect(existsSync(cut.staging)).toBe(false);
    const longer = await decode(Buffer.concat([bytes, Buffer.from('x')]));
    expect(longer.result).toMatchObject({ ok: false, message: 'The checkpoint has bytes after its last part.' });
    const lying = Buffer.from(bytes);
    lying.writeBigUInt64BE(9_999n, bytes.length - 10_000 - 8);
    expect((await decode(lying)).result).toMatchObject({
      ok: false,
      message: 'Provider file rollout of the checkpoint is 9999 bytes, not 10000.',
    });
  });

  it('refuses a line longer than 16 MiB without waiting for its end', async () => {
    const reader = new CheckpointReader(join(dir, 'long-line'), 's', 'h');
    await reader.push(Buffer.alloc(17 * 1024 * 1024, 0x20));
    expect(await reader.end()).toMatchObject({ ok: false, message: expect.stringContaining('longer than 16777216 bytes') });
  });

  it('still reads the earlier formats: one line per entry with the export inline, and the one that held only a tail', async () => {
    const { transcript: held, ...rest } = checkpoint();
    const transcript = await entriesOf(held);
    const inline = Buffer.from(
      [
        JSON.stringify({ ...rest, format: 'baton-checkpoint/2', transcriptEntries: 1 }),
        ...transcript.map((e) => JSON.stringify(e)),
        '',
      ].join('\n'),
    );
    const fromInline = (await decode(inline)).result;
    if (!fromInline.ok) throw new Error(fromInline.message);
    expect(await readOut(fromInline.value)).toEqual({ ...rest, transcript });
    const earlier = Buffer.from(JSON.stringify({ ...rest, format: 'baton-checkpoint/1', transcriptTail: transcript }));
    const fromEarlier = (await decode(earlier)).result;
    if (!fromEarlier.ok) throw new Error(fromEarlier.message);
    expect(await readOut(fromEarlier.value)).toEqual({ ...rest, transcript });
  });

  it("carries each capsule's bundle as a part after the provider's files, as format 4, and refuses carried work in a format 3 head", async () => {
    const rollout = providerFile('rollout', randomBytes(3000));
    const bundle = providerFile('bundle', randomBytes(70_000));
    const carried = {
      relPath: '.',
      base: 'b'.repeat(40),
      head: 'a'.repeat(40),
      indexTree: 'c'.repeat(40),
      workTree: 'd'.repeat(40),
      bundle: { path: bundle.path, size: bundle.size },
    };
    const body = checkpoint({
      providerResume: { provider: 'codex', format: 'codex/rollout@2', sessionId: 't', payload: {}, files: [rollout] },
      carry: {
        repos: [carried],
        counts: { changed: 1, added: 0, deleted: 0, commits: 1 },
        keptAs: 'baton: carried to desk at 18:05 (handoff h)',
      },
    });
    const bytes = await encode(body);
    expect(checkpointHead(body).format).toBe('baton-checkpoint/4');
    for (const piece of [7, 1 << 20]) {
      const { result, staging } = await decode(bytes, body.sessionId, body.handoffId, piece);
      if (!result.ok) throw new Error(result.message);
      const staged = result.value.carry!.repos[0]!;
      expect(staged.bundle.path.startsWith(staging)).toBe(true);
      expect(readFileSync(staged.bundle.path).equals(readFileSync(bundle.path))).toBe(true);
      expect({ ...staged, bundle: null }).toEqual({ ...carried, bundle: null });
      expect(result.value.carry).toMatchObject({ counts: body.carry!.counts, keptAs: body.carry!.keptAs });
      expect(readFileSync(result.value.providerResume!.files![0]!.path).equals(readFileSync(rollout.path))).toBe(true);
    }
    const lying = Buffer.from(bytes);
    lying.writeBigUInt64BE(1n, bytes.length - bundle.size - 8);
    expect((await decode(lying)).result).toMatchObject({
      ok: false,
      message: 'The carried changes of . of the checkpoint is 1 bytes, not 70000.',
    });
    const asFormat3 = Buffer.from(`${JSON.stringify({ ...checkpointHead(body), format: CHECKPOINT_FORMAT })}\n`);
    expect((await decode(asFormat3)).result).toMatchObject({
      ok: false,
      message: 'The checkpoint names carried work its format does not hold.',
    });
  });

  it('addresses content by its SHA-256', () => {
    expect(sha256Hex(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
