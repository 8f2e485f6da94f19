/**
 * A child process that receives and imports one hostile (or just huge) checkpoint as a target device
 * does, and reports its own memory: its resident size once warm and idle, and its peak over the work
 * (sealing the checkpoint on the source side included). The cases, each with its input files made
 * beforehand by the test under `dir/input` (see hostile-checkpoint-memory.test.ts):
 *
 *   zstd-400   a Codex rollout `.jsonl.zst` of 400 MiB: checked as it streams through the decoder, written
 *   zstd-bomb  a zstd rollout of a few MiB that inflates to 64 GiB, declaring 1 MiB: refused at the limit
 *   line-200   a Claude transcript that is one 200 MiB line: refused as damaged while it is staged
 *   files-10k  a Claude session with 9,999 side files: staged and imported
 *
 * The decoder is fzstd (this Node has no zstd in node:zlib). Run as `node --import tsx
 * dev-env/hostile-checkpoint-probe.ts` with { case, dir, input } as JSON in BATON_PROBE; prints one JSON
 * line: { idleMiB, peakMiB, outcome }.
 */
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResumeData } from '../shared/provider.ts';
import { importClaudeSession } from '../electron/providers/claude-code/session-export.ts';
import { exportRollout, importRollout } from '../electron/providers/codex/rollout.ts';
import { fzstdDecoder } from './fzstd-decoder.ts';
import { memoryOf, resetPeak } from './process-memory.ts';
import { sealedCheckpoint, sealedClaudeCheckpoint } from './sealed-checkpoint.ts';

export type ProbeCase = 'zstd-400' | 'zstd-bomb' | 'line-200' | 'files-10k';
export const CODEX_THREAD = '0199a213-81c0-7800-8aa1-bbab2a035a53';
export const ROLLOUT_PATH = `sessions/2025/08/11/rollout-2025-08-11T01-02-03-${CODEX_THREAD}.jsonl.zst`;

/** The input the test made for `probeCase`, under `input`. */
export const inputFile = (input: string, probeCase: ProbeCase) => join(input, `${probeCase}.input`);

/** Receives a Codex checkpoint of the rollout at `zst` under `root` and imports it; the import's outcome. */
async function codexMove(root: string, zst: string, declared?: number): Promise<string> {
  const sourceHome = join(root, 'codex-source');
  await mkdir(join(sourceHome, 'sessions/2025/08/11'), { recursive: true });
  await copyFile(zst, join(sourceHome, ROLLOUT_PATH));
  const exported = await exportRollout(sourceHome, CODEX_THREAD, '/src/app', declared === undefined ? fzstdDecoder : null);
  if (!exported.ok) throw new Error(exported.message);
  const payload = declared === undefined ? exported.value.payload : { ...exported.value.payload, decodedSize: declared };
  const resume: ResumeData = { provider: 'codex', format: 'codex/rollout@2', sessionId: CODEX_THREAD, ...exported.value, payload };
  const { receive } = await sealedCheckpoint(root, resume);
  const received = await receive(join(root, 'staging'));
  if (!received.ok) return `not received: ${received.message}`;
  const imported = await importRollout(join(root, 'codex-target'), CODEX_THREAD, received.value.checkpoint.providerResume!, fzstdDecoder);
  return imported.ok ? 'imported' : imported.message;
}

/** Receives a Claude checkpoint of `sideFiles` side files (its transcript copied from `transcript` when given) and imports it. */
async function claudeMove(root: string, sideFiles: number, transcript?: string): Promise<string> {
  const shape = { sideFiles, ...(transcript !== undefined && { transcript: (path: string) => copyFile(transcript, path) }) };
  const { receive, target, targetEnv } = await sealedClaudeCheckpoint(root, shape);
  const received = await receive(join(root, 'staging'));
  if (!received.ok) return `not received: ${received.message}`;
  const resume = received.value.checkpoint.providerResume!;
  const imported = await importClaudeSession(targetEnv, target, resume.sessionId!, resume);
  return imported.ok ? 'imported' : imported.message;
}

async function run(probeCase: ProbeCase, root: string, input: string): Promise<string> {
  if (probeCase === 'zstd-400') return codexMove(root, input);
  if (probeCase === 'zstd-bomb') return codexMove(root, input, 1024 * 1024);
  if (probeCase === 'line-200') return claudeMove(root, 0, input);
  return claudeMove(root, 9_999);
}

async function main(): Promise<void> {
  const settings = JSON.parse(process.env.BATON_PROBE ?? '{}') as { case: ProbeCase; dir: string; input: string };
  const { case: probeCase, dir, input } = settings;
  // Warm: the same paths once on a small checkpoint of each kind, so the idle reading includes their code.
  await claudeMove(join(dir, 'warm-claude'), 4);
  await codexMove(join(dir, 'warm-codex'), join(input, 'small.zst'));
  await rm(join(dir, 'warm-claude'), { recursive: true, force: true });
  await rm(join(dir, 'warm-codex'), { recursive: true, force: true });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const idleMiB = memoryOf(process.pid).rssMiB;
  resetPeak(process.pid);
  const outcome = await run(probeCase, join(dir, 'work'), inputFile(input, probeCase));
  console.log(JSON.stringify({ idleMiB, peakMiB: memoryOf(process.pid).peakMiB, outcome }));
}

if (process.env.BATON_PROBE) await main();
