/**
 * Codex's rollout file: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl` (or
 * `.jsonl.zst`), lines `{timestamp, type, payload}` with `session_meta` first. Finding it, reading it
 * into a transcript, and importing it under another CODEX_HOME.
 *
 * The import writes the rollout's bytes as they came: Codex finds a rollout by scanning `sessions/`,
 * runs in the process's cwd and tells the model the new one, so nothing in the file needs rewriting —
 * and a compressed `.jsonl.zst` rollout (Codex reads those itself) is carried byte for byte, whether
 * or not this Node can decompress zstd (node:zlib has it from 22.15; where it has, the lines are
 * checked as they stream out of the decoder, held to the size the export declared). A rollout of the
 * thread already here is replaced only when it is an earlier state of the incoming one; otherwise
 * the import is a fork (rollout-fork.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { z } from 'zod';
import type { TranscriptEntry } from '../../../shared/agents.ts';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import type { ResumeFile } from '../../../shared/provider.ts';
import type { ZstdDecoder } from '../../io/zstd-stream.ts';
import type { LineSource } from '../earlier-state.ts';
import { readableLines } from '../json-lines.ts';
import { SessionState } from '../session-state.ts';
import { divergedRollout, fileDigest, forkRollout, type RolloutImport } from './rollout-fork.ts';
import { checkRollout, decodedSize, DEFAULT_ZSTD, rolloutLines } from './rollout-lines.ts';

export const CODEX_FORMAT = 'codex/rollout@2';
/** The earlier format: the rollout inline in the payload (base64 when compressed). */
export const CODEX_INLINE_FORMAT = 'codex/rollout@1';
/** The export's one file: the rollout, as Codex wrote it. */
const ROLLOUT = 'rollout';

export const codexPayloadSchema = z.strictObject({
  /** Path under CODEX_HOME, e.g. sessions/2025/08/11/rollout-2025-08-11T01-02-03-<id>.jsonl */
  relativePath: z.string().min(1).max(300),
  /** The workspace the session ran in on the source (for the record; the import does not need it). */
  sourceCwd: z.string().min(1),
  encoding: z.enum(['utf8', 'zstd']),
  /** A compressed rollout's decoded size, when the source could count it: the target decodes no further, and refuses another size. */
  decodedSize: z.number().int().nonnegative().optional(),
});
const inlinePayloadSchema = z.strictObject({
  relativePath: z.string().min(1).max(300),
  sourceCwd: z.string().min(1),
  encoding: z.enum(['utf8', 'zstd-base64']),
  content: z.string(),
});
export type CodexPayload = z.infer<typeof codexPayloadSchema>;

/** The Codex home for `env` (CODEX_HOME, else $HOME/.codex). */
export function codexHome(env: NodeJS.ProcessEnv): string {
  const configured = env.CODEX_HOME;
  return configured !== undefined && configured !== '' ? configured : join(env.HOME ?? env.USERPROFILE ?? '', '.codex');
}

/** A rollout file name: the local start time to the second, then the thread id (any form, all-digit groups too). */
const ROLLOUT_NAME = /^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-([A-Za-z0-9][A-Za-z0-9-]{0,127})\.jsonl(?:\.zst)?$/;

/** True when `path` (relative to CODEX_HOME) is a rollout path for thread `id`. */
export function isRolloutPath(path: string, id: string): boolean {
  const parts = path.split('/');
  if (parts.length !== 5 || parts[0] !== 'sessions' || !/^\d{4}$/.test(parts[1] ?? '')) return false;
  if (!/^\d{2}$/.test(parts[2] ?? '') || !/^\d{2}$/.test(parts[3] ?? '')) return false;
  return ROLLOUT_NAME.exec(parts[4] ?? '')?.[1] === id;
}

/** Every rollout file of thread `id` under `home`, as paths relative to it, sorted. */
export async function rolloutsOf(home: string, id: string): Promise<string[]> {
  const entries = await readdir(join(home, 'sessions'), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && (e.name.endsWith(`-${id}.jsonl`) || e.name.endsWith(`-${id}.jsonl.zst`)))
    .map((e) => relative(home, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((path) => isRolloutPath(path, id))
    .sort();
}

/** The rollout file of thread `id` under `home`, as a path relative to it, or null. */
export async function findRollout(home: string, id: string): Promise<string | null> {
  return (await rolloutsOf(home, id)).at(-1) ?? null;
}

/**
 * Names thread `id`'s rollout under `home` for the checkpoint (nothing is read but, for a compressed
 * one, its decoded size, counted as it streams through this Node's decoder where it has one, which the
 * target holds it to); `sourceCwd` is the workspace it ran in.
 */
export async function exportRollout(
  home: string,
  id: string,
  sourceCwd: string,
  zstd: ZstdDecoder | null = DEFAULT_ZSTD,
): Promise<Result<{ payload: CodexPayload; files: ResumeFile[] }, 'export_failed'>> {
  const relativePath = await findRollout(home, id);
  const size =
    relativePath === null
      ? null
      : await stat(join(home, relativePath)).then(
          (s) => s.size,
          () => null,
        );
  if (relativePath === null || size === null) return fail('export_failed', `No Codex rollout for session ${id} under ${home}.`);
  const path = join(home, relativePath);
  if (!relativePath.endsWith('.zst'))
    return ok({ payload: { relativePath, sourceCwd, encoding: 'utf8' }, files: [{ name: ROLLOUT, path, size }] });
  const decoded = await decodedSize(path, zstd);
  const payload: CodexPayload = { relativePath, sourceCwd, encoding: 'zstd', ...(decoded !== null && { decodedSize: decoded }) };
  return ok({ payload, files: [{ name: ROLLOUT, path, size }] });
}

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

/** The import's rollout from either format: where it goes, its lines (null: compressed, and no decoder here), how to write its bytes. */
interface Incoming {
  relativePath: string;
  compressed: boolean;
  lines: LineSource | null;
  /** Its first bytes (to tell zstd data where it cannot be decoded). */
  head(): Promise<Buffer>;
  /** SHA-256 of its bytes as they came. */
  digest(): Promise<string>;
  write(to: string): Promise<void>;
}

function incoming(data: { payload: unknown; files?: ResumeFile[] }, zstd: ZstdDecoder | null): Result<Incoming, 'malformed'> {
  if (data.files) {
    const payload = codexPayloadSchema.safeParse(data.payload);
    if (!payload.success) return fail('malformed', payload.error.issues[0]?.message ?? 'unknown');
    const file = data.files.find((f) => f.name === ROLLOUT);
    if (!file || data.files.length !== 1) return fail('malformed', 'it does not carry exactly its rollout');
    const { relativePath, encoding, decodedSize: declared } = payload.data;
    const compressed = encoding === 'zstd';
    return ok({
      relativePath,
      compressed,
      lines: rolloutLines({ path: file.path }, compressed, zstd, declared),
      head: () => readHead(file.path),
      digest: () => fileDigest(file.path),
      write: (to) => copyFile(file.path, to),
    });
  }
  const inline = inlinePayloadSchema.safeParse(data.payload);
  if (!inline.success) return fail('malformed', inline.error.issues[0]?.message ?? 'unknown');
  const { relativePath, encoding, content } = inline.data;
  const compressed = encoding !== 'utf8';
  const bytes = compressed ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8');
  return ok({
    relativePath,
    compressed,
    lines: compressed ? rolloutLines({ bytes }, true, zstd) : rolloutLines({ text: content }, false, zstd),
    head: async () => bytes.subarray(0, 4),
    digest: async () => createHash('sha256').update(bytes).digest('hex'),
    write: (to) => writeFile(to, bytes),
  });
}

async function readHead(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await file.read(head, 0, 4, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/**
 * Writes the rollout of thread `id` under `home` (the target's CODEX_HOME) as its bytes came (either
 * format), after checking it: a rollout path for that id, and — where it can be read here — JSON
 * lines with `session_meta` first naming the same id, read one line at a time (a compressed one
 * decoded as a stream, to its declared size). Other copies of the thread there are replaced only
 * when each is an earlier state of it (an earlier stay); otherwise they are kept untouched and it is
 * written as a fork under a new thread id (rollout-fork.ts), as it always is for `fork`. Nothing changes when a check or the write fails.
 */
export async function importRollout(
  home: string,
  id: string,
  data: { payload: unknown; files?: ResumeFile[] },
  zstd: ZstdDecoder | null = DEFAULT_ZSTD,
  fork = false,
  /** The device importing, as a fork note names it. */
  device = 'this device',
): Promise<Result<RolloutImport, 'import_check_failed'>> {
  const rollout = incoming(data, zstd);
  if (!rollout.ok) return fail('import_check_failed', `The Codex session data is malformed: ${rollout.message}.`);
  const { relativePath, compressed, lines } = rollout.value;
  if (!isRolloutPath(relativePath, id)) return fail('import_check_failed', `"${relativePath}" is not a rollout path for session ${id}.`);
  if (compressed && !(await rollout.value.head()).equals(ZSTD_MAGIC))
    return fail('import_check_failed', 'The Codex rollout is marked zstd but is not zstd data.');
  // A compressed rollout this Node cannot decode is carried unchecked: Codex reads it itself.
  const refused = lines === null ? null : await checkRollout(id, lines);
  if (refused !== null) return fail('import_check_failed', refused);
  if (fork) {
    const forked = await forkRollout(home, id, relativePath, lines);
    if (!forked.ok) return forked;
    const { threadId } = forked.value;
    return ok({ threadId, forkNote: `Codex thread ${id} was forked here as thread ${threadId}; the rollout of ${id} is left as it is.` });
  }
  const copies = await rolloutsOf(home, id);
  const diverged = await divergedRollout(home, copies, rollout.value, zstd);
  if (diverged !== null) return forkRollout(home, id, relativePath, lines, device);
  const target = join(home, relativePath);
  const staged = `${target}.baton-import-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(dirname(target), { recursive: true });
    await rollout.value.write(staged);
    await rename(staged, target);
  } catch (error) {
    await rm(staged, { force: true }).catch(() => undefined);
    return fail('import_check_failed', `The Codex rollout could not be written here: ${(error as Error).message}.`);
  }
  for (const path of copies.filter((p) => p !== relativePath)) await rm(join(home, path), { force: true }).catch(() => undefined);
  return ok({ threadId: id, forkNote: null });
}

function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '',
    )
    .join('\n');
}

/** Reads a rollout's messages and tool calls into transcript entries (injected context blocks are skipped). */
export function readRollout(text: string): TranscriptEntry[] {
  let at = 0;
  const state = new SessionState(() => at, 'codex');
  for (const line of readableLines(text)) {
    const payload = line.payload as Record<string, unknown> | undefined;
    if (line.type !== 'response_item' || !payload) continue;
    const stamp = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
    if (!Number.isNaN(stamp)) at = stamp;
    if (payload.type === 'message' && (payload.role === 'user' || payload.role === 'assistant')) {
      const body = contentText(payload.content).trim();
      if (body !== '' && !body.startsWith('<environment_context>') && !body.startsWith('<user_instructions>'))
        state.addEntry(payload.role, 'main', body);
    } else if ((payload.type === 'function_call' || payload.type === 'custom_tool_call') && typeof payload.name === 'string') {
      const input = typeof payload.arguments === 'string' ? payload.arguments : typeof payload.input === 'string' ? payload.input : '';
      state.addEntry('tool', 'main', `${payload.name} ${input.slice(0, 300)}`.trim());
    }
  }
  return state.snapshot().transcript;
}
