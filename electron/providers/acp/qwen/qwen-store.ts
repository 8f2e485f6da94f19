/**
 * Where Qwen Code keeps a session: one file, `<qwen dir>/projects/<cwd>/chats/<id>.jsonl`, where
 * the qwen dir is $QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen, and the folder is the session's
 * cwd with every character outside [A-Za-z0-9] as "-" (Qwen's own rule). Each record carries the
 * absolute `cwd`: an import writes the file under the target's folder name with every `cwd`
 * rewritten — else Qwen says "No saved session found". A file of that id already there is replaced
 * only when its records are the first records of the incoming ones (cwd aside: Qwen only appends);
 * otherwise it is kept and the moved session written as a fork, every record's `sessionId` renamed.
 */
import { randomUUID } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TranscriptEntry } from '../../../../shared/agents.ts';
import { fail, ok } from '../../../../shared/errors.ts';
import { capitalized } from '../../../../shared/sentence-case.ts';
import type { ExistingSession, ProviderResult, ResumeData } from '../../../../shared/provider.ts';
import { forEachLine, LineTooLong } from '../../../io/line-reader.ts';
import { entryWithout, isEarlierState } from '../../earlier-state.ts';
import { newestFiles, scanLines, titleOf } from '../../session-scan.ts';
import { SessionState } from '../../session-state.ts';
import type { AcpExport, AcpImported, AcpSessionStore } from '../acp-agent.ts';
import { exists, LineRefused, placeWhole, plainName, rewriteLines } from '../session-files.ts';

export const QWEN_FORMAT = 'qwen-code/chat@1';
const CHAT = 'chat.jsonl';

/** Qwen's folder on this device for session data: $QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen. */
export function qwenDir(env: NodeJS.ProcessEnv): string {
  return resolve(env.QWEN_RUNTIME_DIR || env.QWEN_HOME || join(env.HOME || homedir(), '.qwen'));
}

/** Qwen's project folder name for a cwd: every character outside [A-Za-z0-9] as "-". */
export function qwenProjectName(cwd: string): string {
  return resolve(cwd).replace(/[^a-zA-Z0-9]/g, '-');
}

/** Where session `id` of `workspace` is on this device. */
export function qwenChatPath(env: NodeJS.ProcessEnv, workspace: string, id: string): string {
  return join(qwenDir(env), 'projects', qwenProjectName(workspace), 'chats', `${id}.jsonl`);
}

async function exportSession(env: NodeJS.ProcessEnv, sessionId: string, workspace: string): Promise<ProviderResult<AcpExport>> {
  const path = qwenChatPath(env, workspace, sessionId);
  const size = await stat(path).then(
    (s) => (s.isFile() ? s.size : null),
    () => null,
  );
  if (size === null) return fail('export_failed', `Qwen Code has no session ${sessionId} for ${workspace} on this device.`);
  return ok({ payload: { sourceCwd: resolve(workspace) }, files: [{ name: CHAT, path, size }] });
}

/** Two Qwen records are one entry when they are equal but for their `cwd`. */
const sameRecord = (mine: string, theirs: string) =>
  mine === theirs || (entryWithout(mine, ['cwd']) ?? mine) === entryWithout(theirs, ['cwd']);

async function importSession(
  env: NodeJS.ProcessEnv,
  data: ResumeData,
  workspace: string,
  fork: boolean,
  deviceName: string,
): Promise<ProviderResult<AcpImported>> {
  const sessionId = data.sessionId;
  const refuse = (why: string) => fail('import_check_failed', `The Qwen Code session cannot be imported: ${why}.`);
  if (sessionId === null || !plainName(sessionId) || sessionId.includes('/')) return refuse('it names no session');
  const chat = (data.files ?? []).find((file) => file.name === CHAT);
  if (chat === undefined || (data.files ?? []).length !== 1) return refuse(`it carries no ${CHAT}`);
  const cwd = resolve(workspace);
  const target = qwenChatPath(env, workspace, sessionId);
  try {
    let diverged = false;
    if (await exists(target)) {
      diverged = !(await isEarlierState(
        (each) => forEachLine(target, each),
        (each) => forEachLine(chat.path, each),
        sameRecord,
      ));
    }
    const id = fork || diverged ? randomUUID() : sessionId;
    await placeWhole(qwenChatPath(env, workspace, id), (staged) =>
      rewriteLines(chat.path, staged, (record, _text, number) => {
        if (record.sessionId !== sessionId) throw new LineRefused(`record ${number} is not one of session ${sessionId}`);
        return JSON.stringify({ ...record, sessionId: id, ...('cwd' in record ? { cwd } : {}) });
      }),
    );
    const forkNote =
      id === sessionId
        ? null
        : fork
          ? `Qwen Code session ${sessionId} was forked here as session ${id}; the file of ${sessionId} is left as it is.`
          : `${capitalized(deviceName)} already had Qwen Code session ${sessionId}, which is not an earlier state of the one that moved to ` +
            `it: it went on without it (for example with qwen --resume in a terminal on ${deviceName}) or is another session. It was kept ` +
            `as it is, and the moved session was imported as a fork, session ${id}.`;
    return ok({ sessionId: id, forkNote });
  } catch (error) {
    if (error instanceof LineRefused || error instanceof LineTooLong) return refuse(error.message);
    return fail('import_check_failed', `The Qwen Code session could not be written here: ${(error as Error).message}.`);
  }
}

/** The text of a record's message parts. */
function partsText(record: Record<string, unknown>): string {
  const parts = (record.message as { parts?: unknown } | undefined)?.parts;
  if (!Array.isArray(parts)) return '';
  return parts
    .map((part) => (typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : ''))
    .join('')
    .trim();
}

async function listSessions(env: NodeJS.ProcessEnv, workspace: string, limit: number): Promise<ExistingSession[]> {
  const chats = join(qwenDir(env), 'projects', qwenProjectName(workspace), 'chats');
  const names = await readdir(chats).catch(() => [] as string[]);
  const found: ExistingSession[] = [];
  for (const { path, mtimeMs } of await newestFiles(names.filter((n) => n.endsWith('.jsonl')).map((n) => join(chats, n)))) {
    if (found.length >= limit) break;
    let sessionId: string | null = null;
    let title = '';
    let here = false;
    await scanLines(path, (record) => {
      if (typeof record.sessionId === 'string') sessionId ??= record.sessionId;
      if (typeof record.cwd === 'string') here ||= resolve(record.cwd) === resolve(workspace);
      if (record.type === 'user' && title === '') title = titleOf(partsText(record));
      return sessionId !== null && here && title !== '';
    });
    if (sessionId !== null && here) found.push({ provider: 'qwen-code', sessionId, title: title || sessionId, updatedAt: mtimeMs });
  }
  return found;
}

async function readHistory(env: NodeJS.ProcessEnv, workspace: string, sessionId: string): Promise<TranscriptEntry[] | null> {
  const path = qwenChatPath(env, workspace, sessionId);
  if (!(await exists(path))) return null;
  let at = 0;
  const state = new SessionState(() => at, 'qwen');
  await forEachLine(path, (text) => {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    const stamp = typeof record.timestamp === 'string' ? Date.parse(record.timestamp) : NaN;
    if (!Number.isNaN(stamp)) at = stamp;
    const body = partsText(record);
    if (record.type === 'user' && body !== '') state.addEntry('user', 'main', body);
    else if (record.type === 'assistant') {
      if (body !== '') state.addEntry('assistant', 'main', body);
      const parts = (record.message as { parts?: { functionCall?: { name?: unknown; args?: Record<string, unknown> } }[] } | undefined)
        ?.parts;
      for (const call of (parts ?? []).flatMap((part) => (part.functionCall ? [part.functionCall] : []))) {
        const args = call.args ?? {};
        const what = typeof args.command === 'string' ? `$ ${args.command}` : `${String(call.name)} ${String(args.file_path ?? '')}`.trim();
        state.addEntry('tool', 'main', what);
      }
    }
  }).catch(() => undefined);
  return state.snapshot().transcript;
}

export const qwenStore: AcpSessionStore = { format: QWEN_FORMAT, exportSession, importSession, listSessions, readHistory };
