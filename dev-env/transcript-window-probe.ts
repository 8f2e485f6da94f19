/**
 * A child process that opens a device profile whose session has a long transcript log (written
 * beforehand by the test, see `writeLongLog`) and reports its own memory while it works on it as a
 * device does: the count, the newest page, an older page, an append, a sealed checkpoint written
 * from the log, and a Move's merge of that checkpoint's transcript into a second session's log that
 * lacks some of its entries (the rewrite path). A test holds the growth to a bound far below the
 * log's size. Run as `node --import tsx dev-env/transcript-window-probe.ts` with its settings as
 * JSON in BATON_PROBE; prints one JSON line: { idleMiB, peaks, count, ... }.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TranscriptEntry } from '../shared/agents.ts';
import { checkpointContext } from '../electron/crypto/envelope.ts';
import { startSeal } from '../electron/crypto/envelope-stream.ts';
import { generateAdk, KeyRing } from '../electron/crypto/key-ring.ts';
import { CHECKPOINT_FORMAT, type Checkpoint } from '../electron/handoff/checkpoint.ts';
import { CheckpointReader } from '../electron/handoff/checkpoint-reader.ts';
import { logTranscript } from '../electron/handoff/checkpoint-transcript.ts';
import { sealCheckpointToFile } from '../electron/handoff/checkpoint-transfer.ts';
import { writeCheckpoint } from '../electron/handoff/checkpoint-writer.ts';
import { mergeEntries } from '../electron/handoff/transcript-merge.ts';
import { LocalState } from '../electron/local-state/local-state.ts';
import { memoryOf, resetPeak } from './process-memory.ts';

interface ProbeSettings {
  /** The device profile (its logs under runtime/transcripts/). */
  profile: string;
  /** The session whose log holds every entry, and the one that lacks every thousandth. */
  sessionId: string;
  targetId: string;
}

/** Entry `i` of the long transcript: about 512 bytes as a line. */
export function longEntry(i: number): TranscriptEntry {
  const text = `turn ${i}: ${'the agent read the parser and changed the tokenizer; '.repeat(8)}`;
  return { id: `entry-${i}`, at: 1_700_000_000_000 + i, role: i % 5 === 0 ? 'user' : 'assistant', agentId: 'main', text };
}

/**
 * Writes the log of `entries` long entries (those `keep` accepts) to `path` in batches, the way the
 * device writes it: one JSON line per entry.
 */
export function writeLongLog(path: string, entries: number, keep: (i: number) => boolean = () => true): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    let batch: string[] = [];
    for (let i = 0; i < entries; i++) {
      if (keep(i)) batch.push(`${JSON.stringify(longEntry(i))}\n`);
      if (batch.length === 2000) {
        writeSync(fd, batch.join(''));
        batch = [];
      }
    }
    writeSync(fd, batch.join(''));
  } finally {
    closeSync(fd);
  }
}

async function main(): Promise<void> {
  const settings = JSON.parse(process.env.BATON_PROBE ?? '{}') as ProbeSettings;
  const { sessionId, targetId } = settings;
  const state = new LocalState(settings.profile);
  // Warm: the code paths once on a small log, so the idle reading includes them.
  state.appendTranscript('warm-up', [longEntry(0)], true);
  await state.settled();
  state.transcriptPage('warm-up', 0, 1);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const idleMiB = memoryOf(process.pid).rssMiB;
  resetPeak(process.pid);
  const peaks: Record<string, number> = {};
  const mark = (phase: string) => (peaks[phase] = memoryOf(process.pid).peakMiB);

  const count = state.transcriptCount(sessionId);
  mark('open');
  const newest = state.transcriptPage(sessionId, count - 200, 200);
  const older = state.transcriptPage(sessionId, 1234, 200);
  mark('pages');
  state.appendTranscript(sessionId, [longEntry(count)], true);
  await state.settled();
  const afterAppend = state.transcriptCount(sessionId);
  mark('append');

  const ring = new KeyRing([[1, generateAdk()]]);
  const checkpoint: Checkpoint = {
    format: CHECKPOINT_FORMAT,
    sessionId,
    handoffId: 'handoff-probe',
    createdAt: 1,
    sourceDeviceId: 'probe',
    sourceDeviceName: 'probe',
    meta: { title: 'probe', provider: 'demo', prompt: 'probe' },
    repos: [],
    providerResume: null,
    packets: [],
    agents: [],
    transcript: logTranscript(state, sessionId),
  };
  const sealed = await sealCheckpointToFile(
    startSeal(ring, checkpointContext('account-probe', sessionId, 'handoff-probe')),
    checkpoint,
    state.scratchFile('probe.sealed'),
  );
  mark('checkpoint');

  // The target's side: the body read (its entry lines staged to a file), then merged into a log that
  // lacks some of its entries, so the log is rewritten line by line.
  const reader = new CheckpointReader(join(settings.profile, 'staging'), sessionId, 'handoff-probe');
  await writeCheckpoint(checkpoint, (chunk) => reader.push(chunk));
  const received = await reader.end();
  if (!received.ok) throw new Error(received.message);
  const before = state.transcriptCount(targetId);
  await state.rewriteTranscript(targetId, (mine) => mergeEntries(mine, received.value.transcript));
  mark('merge');
  const merged = state.transcriptCount(targetId);
  const mergedSample = state.transcriptPage(targetId, 499, 3).map((e) => e.id);

  const ids = createHash('sha256');
  for (const entry of [...newest, ...older]) ids.update(entry.id);
  console.log(
    JSON.stringify({
      idleMiB,
      peaks,
      count,
      afterAppend,
      newestFirst: newest[0]?.id,
      olderFirst: older[0]?.id,
      olderLast: older.at(-1)?.id,
      sealedBytes: sealed.size,
      checkpointEntries: received.value.transcript.count,
      targetBefore: before,
      targetAfter: merged,
      mergedSample,
    }),
  );
}

if (process.env.BATON_PROBE) await main();
