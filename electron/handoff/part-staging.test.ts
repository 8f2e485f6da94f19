/**
 * The provider-part staging of a received checkpoint (part-staging.ts through receiveCheckpoint):
 * really sealed with the envelope, a Claude transcript is rewritten into the private staging folder
 * as it is unsealed — and when the body's tag fails (one byte of the second half of the Claude part
 * flipped, its digest made to match so the tag is what refuses it) the staging folder is removed and
 * nothing reaches Claude's projects folder. The backend is a file read in chunks: a real backend
 * stores bodies by their digest, so it could not hand out a tampered one under a matching digest (the
 * two-device tamper test covers that path).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Handoff } from '../../shared/api/handoffs.ts';
import { ok } from '../../shared/errors.ts';
import { checkpointContext } from '../crypto/envelope.ts';
import { startOpen, startSeal } from '../crypto/envelope-stream.ts';
import { generateAdk, KeyRing } from '../crypto/key-ring.ts';
import { ClaudeCodeSession } from '../providers/claude-code/claude-code-session.ts';
import { exportClaudeSession } from '../providers/claude-code/session-export.ts';
import { sessionFiles } from '../providers/claude-code/paths.ts';
import { CHECKPOINT_FORMAT, type Checkpoint } from './checkpoint.ts';
import { receiveCheckpoint, sealCheckpointToFile } from './checkpoint-transfer.ts';
import { transcriptOf } from './checkpoint-transcript.ts';
import { providerStaging } from './part-staging.ts';

const CLAUDE_SESSION = 'c0ffee00-1111-2222-3333-444455556666';
let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'baton-part-staging-')));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A sealed checkpoint carrying a Claude session of about 2 MiB; its body's bytes and how to receive it on a target. */
async function sealedClaudeCheckpoint() {
  const source = join(root, 'source ws');
  const target = join(root, 'target ws');
  await mkdir(source);
  await mkdir(target);
  const sourceEnv = { CLAUDE_CONFIG_DIR: join(root, 'cfg-source') };
  const files = await sessionFiles(sourceEnv, source, CLAUDE_SESSION);
  await mkdir(files.projectDir, { recursive: true });
  const line = (i: number) => JSON.stringify({ type: 'user', uuid: `u${i}`, cwd: source, message: { content: 'word '.repeat(200) } });
  await writeFile(files.transcript, `${Array.from({ length: 2000 }, (_, i) => line(i)).join('\n')}\n`);
  const exported = await exportClaudeSession(sourceEnv, source, CLAUDE_SESSION);
  if (!exported.ok) throw new Error(exported.message);
  const [sessionId, handoffId] = ['session-aaaaaaaaaaaa', 'handoff-aaaaaaaaaaaa'];
  const ring = new KeyRing([[1, generateAdk()]]);
  const context = checkpointContext('account-a', sessionId, handoffId);
  const checkpoint: Checkpoint = {
    format: CHECKPOINT_FORMAT,
    sessionId,
    handoffId,
    createdAt: 1,
    sourceDeviceId: 'device-aaaaaaaaaaaaa',
    sourceDeviceName: 'laptop',
    meta: { title: 't', provider: 'claude-code', prompt: 'p' },
    repos: [{ relPath: '.', remoteUrl: '/origins/app.git', branch: 'main', commit: 'a'.repeat(40), mergeBase: null }],
    providerResume: { provider: 'claude-code', format: 'claude-code/transcript@2', sessionId: CLAUDE_SESSION, ...exported.value },
    packets: [],
    agents: [],
    transcript: transcriptOf([]),
  };
  const sealed = await sealCheckpointToFile(startSeal(ring, context), checkpoint, join(root, 'sealed'));
  const body = await readFile(sealed.path);
  const targetEnv = { CLAUDE_CONFIG_DIR: join(root, 'cfg-target') };
  const staging = join(root, 'staging');
  const stagedFiles: string[] = [];
  const stage = providerStaging(
    {
      selfId: 'desktop',
      state: { readSession: () => undefined, readSessions: () => [] },
      git: { locate: async () => target },
      providers: { create: () => new ClaudeCodeSession({ env: targetEnv }) },
      config: { workspaceRoot: root },
    },
    'session-1',
  );
  /** Receives `bytes` as the handoff's body (its digest theirs), served in 64 KiB chunks. */
  const receive = (bytes: Buffer) => {
    const handoff = {
      id: handoffId,
      sessionId,
      checkpoint: { digest: createHash('sha256').update(bytes).digest('hex'), size: bytes.length },
    };
    const backend = {
      async getBlobTo(_digest: string, sink: (chunk: Buffer) => void | Promise<void>) {
        for (let at = 0; at < bytes.length; at += 65_536) await sink(Buffer.from(bytes.subarray(at, at + 65_536)));
        return ok({ size: bytes.length });
      },
    };
    const seal = { startCheckpointOpen: (_s: string, _h: string, size: number) => startOpen(ring, context, size) };
    return receiveCheckpoint({ backend, seal }, handoff as Handoff, staging, undefined, async (head, resume, file) => {
      const stager = await stage(head, resume, file);
      if (stager) stagedFiles.push(file.name);
      return stager;
    });
  };
  return { body, receive, staging, stagedFiles, target, targetEnv };
}

describe('staging a Claude part as the checkpoint is unsealed', () => {
  it('rewrites the transcript for the target in staging; a tag that fails removes the staging folder and writes nothing to Claude', async () => {
    const { body, receive, staging, stagedFiles, target, targetEnv } = await sealedClaudeCheckpoint();
    const intact = await receive(body);
    if (!intact.ok) throw new Error(intact.message);
    expect(stagedFiles).toEqual(['transcript']);
    const staged = intact.value.checkpoint.providerResume!.files![0]!.path;
    expect((await readFile(staged, 'utf8')).split('\n')[0]).toContain(`"cwd":${JSON.stringify(target)}`);
    expect(existsSync(`${staged}.staged.json`)).toBe(true);

    const tampered = Buffer.from(body);
    // In the second half of the Claude part (the part is nearly all of the body).
    tampered[Math.floor(tampered.length * 0.75)]! ^= 0x01;
    const refused = await receive(tampered);
    expect(refused).toMatchObject({ ok: false, code: 'checkpoint_rejected' });
    expect(stagedFiles).toEqual(['transcript', 'transcript']);
    expect(existsSync(staging)).toBe(false);
    expect(await readdir(targetEnv.CLAUDE_CONFIG_DIR).catch(() => [])).toEqual([]);
  });
});
