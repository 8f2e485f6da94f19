/**
 * Hostile or huge checkpoints on a target: a device's memory stays within 64 MiB of its idle size
 * whatever a checkpoint holds — a 400 MiB zstd rollout, a zstd bomb, a 200 MiB single line, 10,000
 * files — each received and imported by a child process that measures itself
 * (dev-env/hostile-checkpoint-probe.ts).
 */
import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CODEX_THREAD, inputFile, type ProbeCase } from '../../dev-env/hostile-checkpoint-probe.ts';
import { writeRawZstd, zstdBomb } from '../../dev-env/zstd-frames.ts';

const MiB = 1024 * 1024;
const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'baton-checkpoint-memory-'));
const input = join(dir, 'input');
mkdirSync(input);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const meta = JSON.stringify({
  timestamp: '2025-08-11T01:02:03.000Z',
  type: 'session_meta',
  payload: { id: CODEX_THREAD, cwd: '/src/app' },
});
const item = (i: number) =>
  JSON.stringify({
    timestamp: '2025-08-11T01:02:04.000Z',
    type: 'response_item',
    payload: {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: `turn ${i}: ${'the agent changed the parser. '.repeat(30)}` }],
    },
  });

/** About `bytes` of rollout lines, a MiB at a time. */
function* rolloutPieces(bytes: number): Generator<Buffer> {
  yield Buffer.from(`${meta}\n`);
  for (let done = 0, i = 0; done < bytes;) {
    const lines: string[] = [];
    for (let size = 0; size < MiB; i++) {
      const line = item(i);
      lines.push(line);
      size += line.length + 1;
    }
    const piece = Buffer.from(`${lines.join('\n')}\n`);
    done += piece.length;
    yield piece;
  }
}

function makeInputs(): void {
  writeRawZstd(join(input, 'small.zst'), rolloutPieces(64 * 1024));
  writeRawZstd(inputFile(input, 'zstd-400'), rolloutPieces(400 * MiB));
  writeFileSync(inputFile(input, 'zstd-bomb'), zstdBomb(Buffer.from(`${meta}\n`), 64 * 1024 * MiB));
  const line = openSync(inputFile(input, 'line-200'), 'w');
  writeSync(line, '{"type":"user","uuid":"u1","cwd":"/src/app","message":{"content":"');
  const block = Buffer.alloc(MiB, 'x');
  for (let i = 0; i < 200; i++) writeSync(line, block);
  writeSync(line, '"}}\n');
  closeSync(line);
}

async function probe(probeCase: ProbeCase): Promise<{ idleMiB: number; peakMiB: number; outcome: string }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'dev-env/hostile-checkpoint-probe.ts'], {
    cwd: ROOT,
    env: { ...process.env, BATON_PROBE: JSON.stringify({ case: probeCase, dir: join(dir, probeCase), input }) },
    maxBuffer: MiB,
  });
  rmSync(join(dir, probeCase), { recursive: true, force: true });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { idleMiB: number; peakMiB: number; outcome: string };
}

describe('a target receiving a hostile or huge checkpoint', () => {
  it('stays within 64 MiB of its idle memory for each, importing what is sound and refusing the rest with why', async () => {
    makeInputs();
    expect(statSync(inputFile(input, 'zstd-400')).size).toBeGreaterThan(400 * MiB);
    expect(statSync(inputFile(input, 'zstd-bomb')).size).toBeLessThan(3 * MiB);
    const expected: Record<ProbeCase, string> = {
      'zstd-400': 'imported',
      'zstd-bomb': 'The Codex rollout is refused: it decompresses to more than 1048576 bytes.',
      'line-200': 'The Claude transcript is damaged: line 1 is longer than 16777216 bytes.',
      'files-10k': 'imported',
    };
    for (const probeCase of Object.keys(expected) as ProbeCase[]) {
      const { idleMiB, peakMiB, outcome } = await probe(probeCase);
      console.log(
        `${probeCase}: idle ${idleMiB.toFixed(1)} MiB, peak ${peakMiB.toFixed(1)} MiB (+${(peakMiB - idleMiB).toFixed(1)}): ${outcome}`,
      );
      expect(outcome).toBe(expected[probeCase]);
      expect(peakMiB - idleMiB).toBeLessThan(64);
    }
  }, 600_000);
});
