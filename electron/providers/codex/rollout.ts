/**
 * Codex's rollout file: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<timestamp>-<id>.jsonl` (or
 * `.jsonl.zst`), lines `{timestamp, type, payload}` with `session_meta` first. Finding it, reading
 * it into a transcript, and importing it under another CODEX_HOME with `cwd` rewritten in the
 * `session_meta` and `turn_context` lines.
 *
 * Compressed rollouts: node:zlib has zstd only from Node 22.15 / 23.8. The export carries a
 * `.jsonl.zst` file's bytes as they are (base64); the import decompresses them when this Node can,
 * and otherwise fails its check, so the target falls back to summary continuation with that reason.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import * as zlib from 'node:zlib';
import { z } from 'zod';
import type { TranscriptEntry } from '../../../shared/agents.ts';
import type { Result } from '../../../shared/errors.ts';
import { movePath, parseJsonLines, readableLines, type JsonLine } from '../json-lines.ts';
import { SessionState } from '../session-state.ts';

export const CODEX_FORMAT = 'codex/rollout@1';

export const codexPayloadSchema = z.strictObject({
  /** Path under CODEX_HOME, e.g. sessions/2025/08/11/rollout-2025-08-11T01-02-03-<id>.jsonl */
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

const ID = '[A-Za-z0-9][A-Za-z0-9-]{0,127}';
/** True when `path` is a rollout path under CODEX_HOME for session `id`. */
function isRolloutPath(path: string, id: string): boolean {
  const match = new RegExp(`^sessions/\\d{4}/\\d{2}/\\d{2}/rollout-[0-9T:-]+-(${ID})\\.jsonl(\\.zst)?$`).exec(path);
  return match !== null && match[1] === id;
}

/** The rollout file of session `id` under `home`, as a path relative to it, or null. */
export async function findRollout(home: string, id: string): Promise<string | null> {
  let entries;
  try {
    entries = await readdir(join(home, 'sessions'), { recursive: true, withFileTypes: true });
  } catch {
    return null;
  }
  const found = entries
    .filter((e) => e.isFile() && (e.name.endsWith(`-${id}.jsonl`) || e.name.endsWith(`-${id}.jsonl.zst`)))
    .map((e) => relative(home, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((path) => isRolloutPath(path, id))
    .sort();
  return found.at(-1) ?? null;
}

/** Reads session `id`'s rollout under `home` for the checkpoint; `sourceCwd` is the workspace it ran in. */
export async function exportRollout(home: string, id: string, sourceCwd: string): Promise<Result<CodexPayload, 'export_failed'>> {
  const relativePath = await findRollout(home, id);
  if (relativePath === null) return { ok: false, code: 'export_failed', message: `No Codex rollout for session ${id} under ${home}.` };
  const bytes = await readFile(join(home, relativePath));
  return relativePath.endsWith('.zst')
    ? { ok: true, value: { relativePath, sourceCwd, encoding: 'zstd-base64', content: bytes.toString('base64') } }
    : { ok: true, value: { relativePath, sourceCwd, encoding: 'utf8', content: bytes.toString('utf8') } };
}

type Zstd = { zstdDecompressSync?: (data: Buffer) => Buffer };

/** The rollout text of a payload, or why it cannot be read here. */
function rolloutText(payload: CodexPayload): Result<string, 'import_check_failed'> {
  if (payload.encoding === 'utf8') return { ok: true, value: payload.content };
  const decompress = (zlib as unknown as Zstd).zstdDecompressSync;
  if (typeof decompress !== 'function') {
    return {
      ok: false,
      code: 'import_check_failed',
      message: `The Codex rollout is zstd-compressed and this Node (${process.version}) cannot decompress zstd to rewrite its cwd.`,
    };
  }
  try {
    return { ok: true, value: decompress(Buffer.from(payload.content, 'base64')).toString('utf8') };
  } catch (error) {
    return { ok: false, code: 'import_check_failed', message: `The Codex rollout does not decompress: ${(error as Error).message}.` };
  }
}

function withCwd(line: JsonLine, from: string, to: string): JsonLine {
  const payload = line.payload as Record<string, unknown> | undefined;
  if ((line.type !== 'session_meta' && line.type !== 'turn_context') || !payload || typeof payload.cwd !== 'string') return line;
  return { ...line, payload: { ...payload, cwd: movePath(payload.cwd, from, to) } };
}

/**
 * Writes the rollout of session `id` under `home` (the target's CODEX_HOME) with its cwd rewritten to
 * `targetCwd`, after checking it: a rollout path for that id, JSON lines, `session_meta` first with
 * the same id. Nothing is written when a check fails. Resolves to the written text.
 */
export async function importRollout(
  home: string,
  id: string,
  targetCwd: string,
  payload: unknown,
): Promise<Result<string, 'import_check_failed'>> {
  const refuse = (message: string): Result<string, 'import_check_failed'> => ({ ok: false, code: 'import_check_failed', message });
  const parsed = codexPayloadSchema.safeParse(payload);
  if (!parsed.success) return refuse(`The Codex session data is malformed: ${parsed.error.issues[0]?.message ?? 'unknown'}.`);
  if (!isRolloutPath(parsed.data.relativePath, id)) return refuse(`"${parsed.data.relativePath}" is not a rollout path for session ${id}.`);
  const text = rolloutText(parsed.data);
  if (!text.ok) return text;
  const lines = parseJsonLines(text.value);
  if (!lines.ok) return refuse(`The Codex rollout is damaged: ${lines.message}.`);
  const meta = lines.value[0];
  const metaId = (meta?.payload as Record<string, unknown> | undefined)?.id;
  if (meta?.type !== 'session_meta' || metaId !== id)
    return refuse(`The Codex rollout does not start with the session_meta of session ${id}.`);
  const out = lines.value.map((line) => JSON.stringify(withCwd(line, parsed.data.sourceCwd, targetCwd))).join('\n');
  const target = join(home, parsed.data.relativePath.replace(/\.zst$/, ''));
  await mkdir(join(target, '..'), { recursive: true });
  await writeFile(target, `${out}\n`);
  return { ok: true, value: `${out}\n` };
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
      // Function tools carry JSON `arguments`; custom tools (apply_patch) their freeform `input`.
      const input = typeof payload.arguments === 'string' ? payload.arguments : typeof payload.input === 'string' ? payload.input : '';
      state.addEntry('tool', 'main', `${payload.name} ${input.slice(0, 300)}`.trim());
    }
  }
  return state.snapshot().transcript;
}
