/**
 * A Codex thread whose rollout is already on this device when an import brings it again. Codex only
 * appends to a rollout (`codex exec resume`, checked with the real 0.171.0), so a copy whose entries
 * are the first entries of the incoming rollout is an earlier state of it (an earlier stay here),
 * which the import replaces. One that is not went on without the moved thread (resumed here in a
 * terminal while it was away) or is another thread under that id: it is kept untouched, and the
 * moved thread is written as a fork under a new thread id — in its `session_meta` and its file
 * name, as `codex fork` names one. Unlike `codex fork`, whose rollout refers to its parent's for the
 * history (`forked_from_id`), the fork holds the moved history itself: the parent here is the other
 * branch. It is written plain (`.jsonl`), which Codex reads as it reads a compressed one.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { capitalized } from '../../../shared/sentence-case.ts';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import { forEachChunk } from '../../io/file-chunks.ts';
import { LineWriter } from '../../io/line-writer.ts';
import type { ZstdDecoder } from '../../io/zstd-stream.ts';
import { isEarlierState, type LineSource } from '../earlier-state.ts';
import { rolloutLines, sameRolloutEntry } from './rollout-lines.ts';

/** What an import wrote: the thread's id here (the moved one's, or a fork's), and for a fork, why. */
export interface RolloutImport {
  threadId: string;
  forkNote: string | null;
}

/**
 * The first of `copies` (rollouts of the thread under `home`) that is not an earlier state of the
 * incoming rollout (its `lines`, and the digest of its bytes), or null when each one is; one that
 * cannot be read here (compressed, and no decoder) counts as not earlier unless it is the same bytes.
 */
export async function divergedRollout(
  home: string,
  copies: readonly string[],
  incoming: { lines: LineSource | null; digest(): Promise<string> },
  zstd: ZstdDecoder | null,
): Promise<string | null> {
  const { lines } = incoming;
  let theirs: Promise<string> | null = null;
  for (const copy of copies) {
    const mine = rolloutLines({ path: join(home, copy) }, copy.endsWith('.zst'), zstd);
    if (mine !== null && lines !== null) {
      if (!(await isEarlierState(mine, lines, sameRolloutEntry))) return copy;
      continue;
    }
    // What cannot be decoded here is an earlier state only when it is the very same bytes (an import retried).
    if ((await fileDigest(join(home, copy))) !== (await (theirs ??= incoming.digest()))) return copy;
  }
  return null;
}

/** SHA-256 of a file's bytes, read in chunks. */
export async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  await forEachChunk(path, (chunk) => void hash.update(chunk));
  return hash.digest('hex');
}

/** A new thread id of Codex's form: a UUID v7 (its first 48 bits the time in milliseconds). */
function newThreadId(): string {
  const time = Date.now().toString(16).padStart(12, '0');
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15, 18)}-${random.slice(19)}`;
}

/** The session_meta line `raw` with thread `from` renamed `to`. */
function renamedMeta(raw: string, from: string, to: string): string {
  const line = JSON.parse(raw) as { payload: Record<string, unknown> };
  const payload = { ...line.payload, id: to, ...(line.payload.session_id === from && { session_id: to }) };
  return JSON.stringify({ ...line, payload });
}

/**
 * Writes the incoming rollout `lines` of thread `id` (meant for `relativePath`) under `home` as a fork:
 * a new thread id in its session_meta and its name, every other line as it came. Nothing else is touched.
 */
export async function forkRollout(
  home: string,
  id: string,
  relativePath: string,
  lines: LineSource | null,
  /** The device importing, as the fork note (read on every device) names it. */
  device = 'this device',
): Promise<Result<RolloutImport, 'import_check_failed'>> {
  if (lines === null) {
    return fail(
      'import_check_failed',
      `This device already has Codex thread ${id}, and the compressed rollout that moved here can neither be compared with it nor forked: this device's Node cannot decode zstd.`,
    );
  }
  const threadId = newThreadId();
  const target = join(home, relativePath.replace(/\.zst$/, '').replace(new RegExp(`-${id}\\.jsonl$`), `-${threadId}.jsonl`));
  const staged = `${target}.baton-import-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(dirname(target), { recursive: true });
    const out = await LineWriter.create(staged);
    let meta = true;
    try {
      await lines((raw, _number, bytes) => {
        if (meta && raw.trim() !== '') {
          meta = false;
          return out.write(renamedMeta(raw, id, threadId));
        }
        return out.writeParts([bytes ?? raw]);
      });
    } finally {
      await out.close();
    }
    await rename(staged, target);
  } catch (error) {
    await rm(staged, { force: true }).catch(() => undefined);
    return fail('import_check_failed', `The Codex rollout could not be written here: ${(error as Error).message}.`);
  }
  const forkNote =
    `${capitalized(device)} already had Codex thread ${id}, which is not an earlier state of the one that moved to it: it went on ` +
    `without it (for example with codex exec resume in a terminal on ${device}) or is another thread. It was kept as it is, and the ` +
    `moved thread was imported as a fork, thread ${threadId}.`;
  return ok({ threadId, forkNote });
}
