/**
 * Codex's rollout file: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl` (or
 * `.jsonl.zst`), lines `{timestamp, type, payload}` with `session_meta` first. Finding it, reading it
 * into a transcript, and importing it under another CODEX_HOME.
 *
 * The import writes the rollout's bytes as they came: Codex finds a rollout by scanning `sessions/`,
 * runs in the process's cwd and tells the model the new one, so nothing in the file needs rewriting —
 * and a compressed `.jsonl.zst` rollout (Codex reads those itself) is carried byte for byte, whether
 * or not this Node can decompress zstd (node:zlib has it from 22.15).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import * as zlib from 'node:zlib';
import { z } from 'zod';
import type { TranscriptEntry } from '../../../shared/agents.ts';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import { parseJsonLines, readableLines } from '../json-lines.ts';
import { SessionState } from '../session-state.ts';

export const CODEX_FORMAT = 'codex/rollout@1';

export const codexPayloadSchema = z.strictObject({
  /** Path under CODEX_HOME, e.g. sessions/2025/08/11/rollout-2025-08-11T01-02-03-<id>.jsonl */
  relativePath: z.string().min(1).max(300),
  /** The workspace the session ran in on the source (for the record; the import does not need it). */
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
async function rolloutsOf(home: string, id: string): Promise<string[]> {
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

/** Reads thread `id`'s rollout under `home` for the checkpoint; `sourceCwd` is the workspace it ran in. */
export async function exportRollout(home: string, id: string, sourceCwd: string): Promise<Result<CodexPayload, 'export_failed'>> {
  const relativePath = await findRollout(home, id);
  if (relativePath === null) return fail('export_failed', `No Codex rollout for session ${id} under ${home}.`);
  const bytes = await readFile(join(home, relativePath));
  return relativePath.endsWith('.zst')
    ? ok({ relativePath, sourceCwd, encoding: 'zstd-base64', content: bytes.toString('base64') })
    : ok({ relativePath, sourceCwd, encoding: 'utf8', content: bytes.toString('utf8') });
}

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
type Zstd = { zstdDecompressSync?: (data: Buffer) => Buffer };

/** The rollout's text when this Node can read it (plain, or zstd where node:zlib has it); null for zstd here without it. */
function rolloutText(payload: CodexPayload, bytes: Buffer): Result<string | null, 'import_check_failed'> {
  if (payload.encoding === 'utf8') return ok(payload.content);
  if (!bytes.subarray(0, 4).equals(ZSTD_MAGIC))
    return fail('import_check_failed', 'The Codex rollout is marked zstd but is not zstd data.');
  const decompress = (zlib as unknown as Zstd).zstdDecompressSync;
  if (typeof decompress !== 'function') return ok(null);
  try {
    return ok(decompress(bytes).toString('utf8'));
  } catch (error) {
    return fail('import_check_failed', `The Codex rollout does not decompress: ${(error as Error).message}.`);
  }
}

/** Checks the rollout text: JSON lines, `session_meta` first naming thread `id`. */
function checkRollout(text: string, id: string): Result<void, 'import_check_failed'> {
  const lines = parseJsonLines(text);
  if (!lines.ok) return fail('import_check_failed', `The Codex rollout is damaged: ${lines.message}.`);
  const meta = lines.value[0];
  const metaId = (meta?.payload as Record<string, unknown> | undefined)?.id;
  if (meta?.type !== 'session_meta' || metaId !== id) {
    return fail('import_check_failed', `The Codex rollout does not start with the session_meta of session ${id}.`);
  }
  return ok(undefined);
}

/**
 * Writes the rollout of thread `id` under `home` (the target's CODEX_HOME) as its bytes came, after
 * checking it: a rollout path for that id, and — where it can be read here — JSON lines with
 * `session_meta` first naming the same id. Other copies of the thread there (an earlier stay) are
 * replaced. Nothing changes when a check or the write fails. Resolves to the rollout text, or null
 * for a compressed rollout this Node cannot read (Codex can).
 */
export async function importRollout(home: string, id: string, payload: unknown): Promise<Result<string | null, 'import_check_failed'>> {
  const parsed = codexPayloadSchema.safeParse(payload);
  if (!parsed.success) {
    return fail('import_check_failed', `The Codex session data is malformed: ${parsed.error.issues[0]?.message ?? 'unknown'}.`);
  }
  const { relativePath, encoding, content } = parsed.data;
  if (!isRolloutPath(relativePath, id)) return fail('import_check_failed', `"${relativePath}" is not a rollout path for session ${id}.`);
  const bytes = encoding === 'utf8' ? Buffer.from(content, 'utf8') : Buffer.from(content, 'base64');
  const text = rolloutText(parsed.data, bytes);
  if (!text.ok) return text;
  if (text.value !== null) {
    const checked = checkRollout(text.value, id);
    if (!checked.ok) return checked;
  }
  const older = (await rolloutsOf(home, id)).filter((path) => path !== relativePath);
  const target = join(home, relativePath);
  const staged = `${target}.baton-import-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(staged, bytes);
    await rename(staged, target);
  } catch (error) {
    await rm(staged, { force: true }).catch(() => undefined);
    return fail('import_check_failed', `The Codex rollout could not be written here: ${(error as Error).message}.`);
  }
  for (const path of older) await rm(join(home, path), { force: true }).catch(() => undefined);
  return ok(text.value);
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
