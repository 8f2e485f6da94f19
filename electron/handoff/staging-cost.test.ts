/**
 * A checkpoint with thousands of provider files (a Claude session with many side files) is staged
 * in time linear in its files, and the target's thread is never held for long while it is: each
 * file is one part read, rewritten where its provider rewrites it, and written into staging.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealedClaudeCheckpoint } from '../../dev-env/sealed-checkpoint.ts';
import { watchStalls } from '../../dev-env/thread-stall.ts';

let root: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'baton-staging-cost-')));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/**
 * Stages a sealed checkpoint of `files` side files; resolves to the time it took and the thread's
 * longest hold while the parts staged (ms: on a CPU, and wall-clock), and over the whole receipt.
 */
async function stage(files: number): Promise<{ ms: number; stallMs: number; headMs: number; wallMs: number; staged: number }> {
  const { receive } = await sealedClaudeCheckpoint(join(root, `n${files}`), { sideFiles: files });
  const whole = watchStalls();
  let parts: ReturnType<typeof watchStalls> | null = null;
  const started = performance.now();
  // The parts' staging is watched from the first part on: the head (10,000 names) is one parse before it.
  const received = await receive(join(root, `n${files}`, 'staging'), undefined, () => void (parts ??= watchStalls()));
  const ms = performance.now() - started;
  const { cpuMs: headMs } = whole.stop();
  const { cpuMs, wallMs } = parts!.stop();
  if (!received.ok) throw new Error(received.message);
  return { ms, stallMs: cpuMs, headMs, wallMs, staged: received.value.checkpoint.providerResume?.files?.length ?? 0 };
}

const best = <T extends { ms: number }>(runs: T[]): T => runs.reduce((a, b) => (b.ms < a.ms ? b : a));

describe('staging a checkpoint with many provider files', () => {
  it('takes time in proportion to its files, and holds the thread only briefly', async () => {
    await stage(200); // warm: the code paths compiled once
    // The best of a few runs: other work on the machine only ever adds time.
    const small = best([await stage(1_000), await stage(1_000), await stage(1_000)]);
    const large = best([await stage(4_000), await stage(4_000)]);
    const huge = await stage(9_999); // with the transcript, the 10,000 files a checkpoint may carry
    console.log(
      `staged 1,000 files in ${small.ms.toFixed(0)} ms, 4,000 in ${large.ms.toFixed(0)} ms, 10,000 in ${huge.ms.toFixed(0)} ms; ` +
        `the thread held at most ${small.stallMs.toFixed(1)} / ${large.stallMs.toFixed(1)} / ${huge.stallMs.toFixed(1)} ms on a CPU ` +
        `(${small.wallMs.toFixed(0)} / ${large.wallMs.toFixed(0)} / ${huge.wallMs.toFixed(0)} ms wall-clock), ` +
        `${huge.headMs.toFixed(1)} ms with the head of 10,000`,
    );
    expect([small.staged, large.staged, huge.staged]).toEqual([1_001, 4_001, 10_000]);
    // Linear: four times the files in at most twice that time (quadratic: sixteen; a busy machine
    // stretches one run more than another, so the bound leaves room).
    expect(large.ms).toBeLessThan(8 * small.ms);
    // And ten times the files in at most twice that (quadratic: a hundred), measured against the same run.
    expect(huge.ms).toBeLessThan(20 * small.ms);
    // Between two turns of the event loop the thread does a few parts' work, whatever their number:
    // the per-part rebuild of every staged path held it longer the more files there were (at 1,000 /
    // 2,000 / 4,000 files: 5.6-6.8 / 10.9 / 24.8 ms on a CPU, measured, and 4,000 took 12 times 1,000).
    // Measured against the 1,000-file run: ten times the files may not hold the thread much longer.
    expect(Math.max(large.stallMs, huge.stallMs)).toBeLessThan(3 * small.stallMs + 5);
    // The head's parse of 10,000 names is the one longer stretch (10-25 ms here), a small part of the whole.
    expect(huge.headMs).toBeLessThan(huge.ms / 5);
  }, 180_000);
});
