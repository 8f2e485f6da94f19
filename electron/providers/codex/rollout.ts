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
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import * as zlib from 'node:zlib';
import { z } from 'zod';
import type { TranscriptEntry } from '../../../shared/agents.ts';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import type { ResumeFile } from '../../../shared/provider.ts';
import { forEachLine, forEachTextLine, type LineHandler } from '../../io/line-reader.ts';
import { readableLines } from '../json-lines.ts';
import { SessionState } from '../session-state.ts';

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

/** Names thread `id`'s rollout under `home` for the checkpoint (nothing is read); `sourceCwd` is the workspace it ran in. */
export async function exportRollout(
  home: string,
  id: string,
  sourceCwd: string,
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
  const encoding = relativePath.endsWith('.zst') ? 'zstd' : 'utf8';
  return ok({ payload: { relativePath, sourceCwd, encoding }, files: [{ name: ROLLOUT, path: join(home, relativePath), size }] });
}

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
type Zstd = { zstdDecompressSync?: (data: Buffer) => Buffer };

/** A rollout's lines checked one at a time: JSON objects, `session_meta` first naming thread `id`. */
class RolloutCheck {
  private first = true;

  constructor(private readonly id: string) {}

  take(raw: string, lineNumber: number): string | null {
    if (raw.trim() === '') return null;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return `The Codex rollout is damaged: line ${lineNumber} is not JSON.`;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      return `The Codex rollout is damaged: line ${lineNumber} is not a JSON object.`;
    if (this.first) {
      this.first = false;
      const line = value as Record<string, unknown>;
      if (line.type !== 'session_meta' || (line.payload as Record<string, unknown> | undefined)?.id !== this.id)
        return `The Codex rollout does not start with the session_meta of session ${this.id}.`;
    }
    return null;
  }

  finish(): string | null {
    return this.first ? `The Codex rollout does not start with the session_meta of session ${this.id}.` : null;
  }
}

/** A refusal raised from a line handler, so reading stops there. */
class Refused extends Error {}

/** Checks a rollout's lines from `lines` (where this Node can read them); resolves to the reason it is refused, or null. */
async function checkLines(id: string, lines: (each: LineHandler) => Promise<number>): Promise<string | null> {
  const check = new RolloutCheck(id);
  try {
    await lines((raw, number) => {
      const refused = check.take(raw, number);
      if (refused !== null) throw new Refused(refused);
    });
  } catch (error) {
    if (error instanceof Refused) return error.message;
    throw error;
  }
  return check.finish();
}

/** Checks compressed rollout bytes: zstd, and — where node:zlib has zstd — their lines. */
async function checkCompressed(id: string, bytes: Buffer): Promise<string | null> {
  if (!bytes.subarray(0, 4).equals(ZSTD_MAGIC)) return 'The Codex rollout is marked zstd but is not zstd data.';
  const decompress = (zlib as unknown as Zstd).zstdDecompressSync;
  if (typeof decompress !== 'function') return null;
  let text: string;
  try {
    text = decompress(bytes).toString('utf8');
  } catch (error) {
    return `The Codex rollout does not decompress: ${(error as Error).message}.`;
  }
  return checkLines(id, (each) => forEachTextLine(text, each));
}

/** The import's rollout from either format: where it goes, and how to check and write it. */
function incoming(data: {
  payload: unknown;
  files?: ResumeFile[];
}): Result<{ relativePath: string; check(id: string): Promise<string | null>; write(to: string): Promise<void> }, 'malformed'> {
  if (data.files) {
    const payload = codexPayloadSchema.safeParse(data.payload);
    if (!payload.success) return fail('malformed', payload.error.issues[0]?.message ?? 'unknown');
    const file = data.files.find((f) => f.name === ROLLOUT);
    if (!file || data.files.length !== 1) return fail('malformed', 'it does not carry exactly its rollout');
    const { relativePath, encoding } = payload.data;
    return ok({
      relativePath,
      check: async (id) =>
        encoding === 'utf8' ? checkLines(id, (each) => forEachLine(file.path, each)) : checkCompressed(id, await readFile(file.path)),
      write: (to) => copyFile(file.path, to),
    });
  }
  const inline = inlinePayloadSchema.safeParse(data.payload);
  if (!inline.success) return fail('malformed', inline.error.issues[0]?.message ?? 'unknown');
  const { relativePath, encoding, content } = inline.data;
  const bytes = encoding === 'utf8' ? Buffer.from(content, 'utf8') : Buffer.from(content, 'base64');
  return ok({
    relativePath,
    check: (id) => (encoding === 'utf8' ? checkLines(id, (each) => forEachTextLine(content, each)) : checkCompressed(id, bytes)),
    write: (to) => writeFile(to, bytes),
  });
}

/**
 * Writes the rollout of thread `id` under `home` (the target's CODEX_HOME) as its bytes came (either
 * format), after checking it: a rollout path for that id, and — where it can be read here — JSON
 * lines with `session_meta` first naming the same id, read one line at a time. Other copies of the
 * thread there (an earlier stay) are replaced. Nothing changes when a check or the write fails.
 */
export async function importRollout(
  home: string,
  id: string,
  data: { payload: unknown; files?: ResumeFile[] },
): Promise<Result<void, 'import_check_failed'>> {
  const rollout = incoming(data);
  if (!rollout.ok) return fail('import_check_failed', `The Codex session data is malformed: ${rollout.message}.`);
  const { relativePath } = rollout.value;
  if (!isRolloutPath(relativePath, id)) return fail('import_check_failed', `"${relativePath}" is not a rollout path for session ${id}.`);
  const refused = await rollout.value.check(id);
  if (refused !== null) return fail('import_check_failed', refused);
  const older = (await rolloutsOf(home, id)).filter((path) => path !== relativePath);
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
  for (const path of older) await rm(join(home, path), { force: true }).catch(() => undefined);
  return ok(undefined);
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
