/**
 * Sealed checkpoints made on disk the way a source makes one, and the target's receipt of each
 * through the real path (download in 64 KiB chunks, SHA-256, unseal, read, each provider file staged
 * through its adapter's rewriter when it has one): `sealedCheckpoint` for any provider export, and
 * `sealedClaudeCheckpoint` for a Claude session of a chosen shape — how many side files (half of
 * them `.jsonl` subagent transcripts the stager rewrites, half tool results staged as they are), and
 * the transcript's lines. Used by the staging-cost test and the hostile-checkpoint memory probe.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Handoff } from '../shared/api/handoffs.ts';
import { ok } from '../shared/errors.ts';
import type { ResumeData } from '../shared/provider.ts';
import { checkpointContext } from '../electron/crypto/envelope.ts';
import { startOpen, startSeal } from '../electron/crypto/envelope-stream.ts';
import { generateAdk, KeyRing } from '../electron/crypto/key-ring.ts';
import { CHECKPOINT_FORMAT, type Checkpoint } from '../electron/handoff/checkpoint.ts';
import type { StagePart } from '../electron/handoff/checkpoint-reader.ts';
import { receiveCheckpoint, sealCheckpointToFile } from '../electron/handoff/checkpoint-transfer.ts';
import { transcriptOf } from '../electron/handoff/checkpoint-transcript.ts';
import { providerStaging } from '../electron/handoff/part-staging.ts';
import { forEachChunk } from '../electron/io/file-chunks.ts';
import { ClaudeCodeSession } from '../electron/providers/claude-code/claude-code-session.ts';
import { sessionFiles } from '../electron/providers/claude-code/paths.ts';
import { exportClaudeSession } from '../electron/providers/claude-code/session-export.ts';

export const CLAUDE_SESSION = 'c0ffee00-1111-2222-3333-444455556666';
const [SESSION_ID, HANDOFF_ID] = ['session-aaaaaaaaaaaa', 'handoff-aaaaaaaaaaaa'];

export interface ClaudeSessionShape {
  /** Side files: even ones `subagents/agent-<i>.jsonl` (two lines), odd ones `tool-results/r-<i>.txt`. */
  sideFiles: number;
  /** Writes the transcript's lines into `path` (default: three short message lines); `cwd` is the source workspace. */
  transcript?(path: string, cwd: string): Promise<void>;
}

/** A transcript line of the source workspace `cwd`. */
export const claudeLine = (i: number, cwd: string, text = `message ${i}`): string =>
  JSON.stringify({ type: 'user', uuid: `u${i}`, sessionId: CLAUDE_SESSION, cwd, message: { content: text } });

/** The source's Claude session of `shape` under `root`, sealed as a checkpoint into `root/sealed`. */
export async function sealedClaudeCheckpoint(root: string, shape: ClaudeSessionShape) {
  const source = join(root, 'source ws');
  const target = join(root, 'target ws');
  await mkdir(source, { recursive: true });
  await mkdir(target, { recursive: true });
  const sourceEnv = { CLAUDE_CONFIG_DIR: join(root, 'cfg-source') };
  const files = await sessionFiles(sourceEnv, source, CLAUDE_SESSION);
  await mkdir(join(files.sideFolder, 'subagents'), { recursive: true });
  await mkdir(join(files.sideFolder, 'tool-results'), { recursive: true });
  if (shape.transcript) await shape.transcript(files.transcript, files.cwd);
  else await writeFile(files.transcript, `${[0, 1, 2].map((i) => claudeLine(i, files.cwd)).join('\n')}\n`);
  for (let i = 0; i < shape.sideFiles; i++) {
    const side =
      i % 2 === 0
        ? [join(files.sideFolder, 'subagents', `agent-${i}.jsonl`), `${claudeLine(i, files.cwd)}\n${claudeLine(i + 1, files.cwd)}\n`]
        : [join(files.sideFolder, 'tool-results', `r-${i}.txt`), `tool output ${i}\n`.repeat(8)];
    await writeFile(side[0]!, side[1]!);
  }
  const exported = await exportClaudeSession(sourceEnv, source, CLAUDE_SESSION);
  if (!exported.ok) throw new Error(exported.message);
  const targetEnv = { CLAUDE_CONFIG_DIR: join(root, 'cfg-target') };
  const stage = providerStaging(
    {
      selfId: 'desktop',
      state: { readSession: () => undefined, readSessions: () => [] },
      git: { locate: async () => target },
      providers: { create: () => new ClaudeCodeSession({ env: targetEnv }) },
      config: { workspaceRoot: root },
    },
    SESSION_ID,
  );
  const resume: ResumeData = { provider: 'claude-code', format: 'claude-code/transcript@2', sessionId: CLAUDE_SESSION, ...exported.value };
  const sealed = await sealedCheckpoint(root, resume, stage);
  return { ...sealed, target, targetEnv, sourceCwd: files.cwd };
}

/**
 * A checkpoint carrying `resume` (the provider's export, its files on disk), sealed into `root/sealed`,
 * and its receipt as the target makes it, each file staged through `stage` when given.
 */
export async function sealedCheckpoint(root: string, resume: ResumeData, stage?: StagePart) {
  const ring = new KeyRing([[1, generateAdk()]]);
  const context = checkpointContext('account-a', SESSION_ID, HANDOFF_ID);
  const checkpoint: Checkpoint = {
    format: CHECKPOINT_FORMAT,
    sessionId: SESSION_ID,
    handoffId: HANDOFF_ID,
    createdAt: 1,
    sourceDeviceId: 'device-aaaaaaaaaaaaa',
    sourceDeviceName: 'laptop',
    meta: { title: 't', provider: resume.provider, prompt: 'p' },
    repos: [{ relPath: '.', remoteUrl: '/origins/app.git', branch: 'main', commit: 'a'.repeat(40), mergeBase: null }],
    providerResume: resume,
    packets: [],
    agents: [],
    transcript: transcriptOf([]),
  };
  const sealed = await sealCheckpointToFile(startSeal(ring, context), checkpoint, join(root, 'sealed'));
  /** The names of the files staged through the adapter's rewriter, in the order they were, over every receipt. */
  const stagedFiles: string[] = [];
  /**
   * Receives the sealed body as the target does into `staging`: served in 64 KiB chunks from its file,
   * or `body` instead (its digest made to match, so only the envelope's tag can refuse it); `onPart`
   * hears each provider file begin.
   */
  const receive = (staging: string, body?: Buffer, onPart?: () => void) => {
    const digest = body ? createHash('sha256').update(body).digest('hex') : sealed.sha256;
    const size = body?.length ?? sealed.size;
    const handoff = { id: HANDOFF_ID, sessionId: SESSION_ID, checkpoint: { digest, size } };
    const backend = {
      async getBlobTo(_digest: string, sink: (chunk: Buffer) => void | Promise<void>) {
        if (!body) await forEachChunk(sealed.path, (chunk) => sink(chunk));
        else for (let at = 0; at < body.length; at += 65_536) await sink(Buffer.from(body.subarray(at, at + 65_536)));
        return ok({ size });
      },
    };
    const seal = { startCheckpointOpen: (_s: string, _h: string, bytes: number) => startOpen(ring, context, bytes) };
    return receiveCheckpoint({ backend, seal }, handoff as Handoff, staging, undefined, async (head, resume, file) => {
      onPart?.();
      const stager = stage ? await stage(head, resume, file) : null;
      if (stager) stagedFiles.push(file.name);
      return stager;
    });
  };
  return { receive, sealed, stagedFiles };
}
