/**
 * This machine's Codex sessions of a workspace, for adoption. Codex keeps each thread as a rollout
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl` whose first line, `session_meta`,
 * names the thread and the cwd it started in; a thread counts when that cwd is the workspace. Its
 * title is the first message the user typed (injected context blocks such as <environment_context>
 * are skipped). Compressed rollouts (`.jsonl.zst`) are read where node:zlib has zstd (as a stream,
 * a line at a time), else skipped.
 */
import { readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import type { ExistingSession } from '../../../shared/provider.ts';
import { readableLines, type JsonLine } from '../json-lines.ts';
import { newestFiles, scanLines, titleOf } from '../session-scan.ts';
import { codexHome } from './rollout.ts';
import { DEFAULT_ZSTD, rolloutLines } from './rollout-lines.ts';

/** How many rollout files (newest first) a listing opens at most. */
const SCAN_MAX_FILES = 1000;

type Zstd = { zstdDecompressSync?: (data: Buffer) => Buffer };

/** Every rollout file under `home`, most recently written first, with its modification time. */
async function rollouts(home: string): Promise<{ path: string; mtimeMs: number }[]> {
  const entries = await readdir(join(home, 'sessions'), { recursive: true, withFileTypes: true }).catch(() => []);
  return newestFiles(
    entries.filter((e) => e.isFile() && /^rollout-.*\.jsonl(\.zst)?$/.test(e.name)).map((e) => join(e.parentPath, e.name)),
  );
}

/** Text a person typed: a user message (not an injected `<…>` block), or a user_message event. */
function typedText(line: JsonLine): string | null {
  const payload = line.payload as { type?: unknown; role?: unknown; content?: unknown; message?: unknown } | undefined;
  if (!payload) return null;
  if (line.type === 'event_msg' && payload.type === 'user_message' && typeof payload.message === 'string') return payload.message;
  if (line.type !== 'response_item' || payload.type !== 'message' || payload.role !== 'user' || !Array.isArray(payload.content))
    return null;
  for (const part of payload.content as { text?: unknown }[]) {
    const text = typeof part?.text === 'string' ? part.text.trim() : '';
    if (text !== '' && !text.startsWith('<')) return text;
  }
  return null;
}

/** Stops a scan of a compressed rollout once its visitor is done. */
const DONE = Symbol('done');

/**
 * Visits a rollout's lines until `visit` says it is done (a `.zst` one decoded as a stream where this
 * Node can, never whole); false when it cannot be read.
 */
async function visitRollout(path: string, visit: (line: JsonLine) => boolean): Promise<boolean> {
  if (!path.endsWith('.zst')) return scanLines(path, visit);
  const lines = rolloutLines({ path }, true, DEFAULT_ZSTD);
  if (lines === null) return false;
  try {
    await lines((raw) => {
      const [line] = readableLines(raw);
      if (line && visit(line)) throw DONE;
    });
  } catch (error) {
    if (error !== DONE) return false;
  }
  return true;
}

/** The thread in rollout `path` when it started in `cwd`; null otherwise. */
async function summarize(path: string, mtimeMs: number, cwd: string): Promise<ExistingSession | null> {
  let meta: { id?: unknown; cwd?: unknown } | null = null;
  let title: string | null = null;
  const read = await visitRollout(path, (line) => {
    if (meta === null) {
      meta = line.type === 'session_meta' ? ((line.payload as typeof meta) ?? {}) : {};
      return meta.cwd !== cwd; // a rollout of another workspace: stop at its first line
    }
    title = typedText(line);
    return title !== null;
  });
  const found = meta as { id?: unknown; cwd?: unknown } | null;
  if (!read || found === null || found.cwd !== cwd || typeof found.id !== 'string') return null;
  return { provider: 'codex', sessionId: found.id, title: titleOf(title ?? '') || found.id, updatedAt: Math.round(mtimeMs) };
}

/** Codex threads of `workspace` on this machine (its CODEX_HOME in `env`), newest first, at most `limit`. */
export async function listCodexSessions(env: NodeJS.ProcessEnv, workspace: string, limit = 50): Promise<ExistingSession[]> {
  const cwd = await realpath(workspace).catch(() => null);
  if (cwd === null) return [];
  const found: ExistingSession[] = [];
  for (const file of (await rollouts(codexHome(env))).slice(0, SCAN_MAX_FILES)) {
    const session = await summarize(file.path, file.mtimeMs, cwd);
    if (session && !found.some((s) => s.sessionId === session.sessionId)) found.push(session);
    if (found.length >= limit) break;
  }
  return found;
}

/** The rollout file of Codex thread `threadId` of `workspace`, or null when it is not one of its threads. */
export async function findCodexSession(env: NodeJS.ProcessEnv, workspace: string, threadId: string): Promise<string | null> {
  const cwd = await realpath(workspace).catch(() => null);
  if (cwd === null) return null;
  for (const file of await rollouts(codexHome(env))) {
    if (!file.path.includes(threadId)) continue;
    const session = await summarize(file.path, file.mtimeMs, cwd);
    if (session?.sessionId === threadId) return file.path;
  }
  return null;
}

/** The text of a rollout file, decompressed when it is a `.zst` (null where this Node cannot). */
export async function rolloutFileText(path: string): Promise<string | null> {
  if (!path.endsWith('.zst')) return readFile(path, 'utf8').catch(() => null);
  const decompress = (zlib as unknown as Zstd).zstdDecompressSync;
  if (typeof decompress !== 'function') return null;
  try {
    return decompress(await readFile(path)).toString('utf8');
  } catch {
    return null;
  }
}
