/**
 * Where GitHub Copilot CLI keeps a session: one folder, `$COPILOT_HOME/session-state/<id>/` (else
 * `~/.copilot/…`), holding `events.jsonl` (every event, appended), `workspace.yaml` (its id, cwd,
 * git root, name) and the session's own notes (checkpoints/, files/, research/). A session moves as
 * that folder, lock files left out. Copilot resumes a session in the cwd of its workspace.yaml, not
 * the process's, so an import rewrites `cwd` (and a `git_root` that was the same folder) to the
 * target's workspace. A session of that id already here is replaced only when its events are the
 * first events of the incoming ones (an earlier stay here); otherwise it is kept and the moved one
 * written as a fork: a new id for its folder, its workspace.yaml and its session.start event.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import type { TranscriptEntry } from '../../../../shared/agents.ts';
import { fail, ok } from '../../../../shared/errors.ts';
import { capitalized } from '../../../../shared/sentence-case.ts';
import type { ExistingSession, ProviderResult, ResumeData } from '../../../../shared/provider.ts';
import { forEachLine, LineTooLong } from '../../../io/line-reader.ts';
import { isEarlierState } from '../../earlier-state.ts';
import { newestFiles, scanLines, titleOf } from '../../session-scan.ts';
import { SessionState } from '../../session-state.ts';
import type { AcpExport, AcpImported, AcpSessionStore } from '../acp-agent.ts';
import { exists, folderFiles, LineRefused, placeWhole, plainName, rewriteLines, SESSION_FILES_MAX } from '../session-files.ts';

export const COPILOT_FORMAT = 'copilot/session-state@1';
const EVENTS = 'events.jsonl';
const WORKSPACE = 'workspace.yaml';

/** Copilot's home on this device: $COPILOT_HOME, else ~/.copilot. */
export function copilotHome(env: NodeJS.ProcessEnv): string {
  return env.COPILOT_HOME || join(env.HOME || homedir(), '.copilot');
}

const sessionDir = (env: NodeJS.ProcessEnv, id: string) => join(copilotHome(env), 'session-state', id);

/** A session's workspace.yaml as a map, or null when it is not one. */
async function readWorkspace(path: string): Promise<Record<string, unknown> | null> {
  try {
    const value: unknown = parse(await readFile(path, 'utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The same folder, as given or resolved. */
async function samePlace(a: string, b: string): Promise<boolean> {
  if (resolve(a) === resolve(b)) return true;
  const [x, y] = await Promise.all([realpath(a).catch(() => null), realpath(b).catch(() => null)]);
  return x !== null && x === y;
}

/** The export's files by name, checked: plain names, the two Copilot needs, not too many. */
function carried(data: ResumeData): Map<string, string> | string {
  const files = data.files ?? [];
  if (files.length > SESSION_FILES_MAX) return `it has ${files.length} files`;
  const byName = new Map(files.map((file) => [file.name, file.path]));
  const bad = files.find((file) => !plainName(file.name));
  if (bad !== undefined) return `"${bad.name}" is not a file name inside a session folder`;
  if (!byName.has(EVENTS) || !byName.has(WORKSPACE)) return `it lacks ${EVENTS} or ${WORKSPACE}`;
  return byName;
}

async function exportSession(env: NodeJS.ProcessEnv, sessionId: string, workspace: string): Promise<ProviderResult<AcpExport>> {
  const files = await folderFiles(sessionDir(env, sessionId));
  if (files === null || !files.some((file) => file.name === EVENTS))
    return fail('export_failed', `Copilot has no session ${sessionId} on this device.`);
  const meta = await readWorkspace(join(sessionDir(env, sessionId), WORKSPACE));
  const sourceCwd = typeof meta?.cwd === 'string' ? meta.cwd : workspace;
  return ok({ payload: { sourceCwd }, files });
}

/** Writes the session's workspace.yaml for `workspace` (and `id`, for a fork). */
async function writeWorkspace(from: string, to: string, workspace: string, id: string): Promise<void> {
  const meta = (await readWorkspace(from)) ?? {};
  const cwd = meta.cwd;
  const moved: Record<string, unknown> = { ...meta, id, cwd: workspace };
  if (typeof meta.git_root === 'string' && meta.git_root === cwd) moved.git_root = workspace;
  await writeFile(to, stringify(moved), { mode: 0o600 });
}

async function importSession(
  env: NodeJS.ProcessEnv,
  data: ResumeData,
  workspace: string,
  fork: boolean,
  deviceName: string,
): Promise<ProviderResult<AcpImported>> {
  const sessionId = data.sessionId;
  const refuse = (why: string) => fail('import_check_failed', `The Copilot session cannot be imported: ${why}.`);
  if (sessionId === null || !plainName(sessionId) || sessionId.includes('/')) return refuse('it names no session');
  const files = carried(data);
  if (typeof files === 'string') return refuse(files);
  const events = files.get(EVENTS)!;
  const meta = await readWorkspace(files.get(WORKSPACE)!);
  if (meta === null || meta.id !== sessionId) return refuse(`its ${WORKSPACE} is not the one of session ${sessionId}`);
  const target = sessionDir(env, sessionId);
  let diverged = false;
  try {
    if (await exists(join(target, EVENTS))) {
      const same = (mine: string, theirs: string) => mine === theirs;
      diverged = !(await isEarlierState(
        (each) => forEachLine(join(target, EVENTS), each),
        (each) => forEachLine(events, each),
        same,
      ));
    }
    const id = fork || diverged ? randomUUID() : sessionId;
    await placeWhole(sessionDir(env, id), async (staged) => {
      for (const [name, path] of files) {
        const to = join(staged, ...name.split('/'));
        await mkdir(dirname(to), { recursive: true });
        if (name === WORKSPACE) await writeWorkspace(path, to, workspace, id);
        else if (name === EVENTS)
          await rewriteLines(path, to, (entry, text) => {
            const event = renamed(entry, sessionId, id);
            return event === entry ? text : JSON.stringify(event);
          });
        else await copyFile(path, to);
      }
    });
    const device = capitalized(deviceName);
    const forkNote =
      id === sessionId
        ? null
        : fork
          ? `Copilot session ${sessionId} was forked here as session ${id}; the files of ${sessionId} are left as they are.`
          : `${device} already had Copilot session ${sessionId}, which is not an earlier state of the one that moved to it: it went on ` +
            `without it (for example with copilot --resume in a terminal on ${deviceName}) or is another session. It was kept as it is, and ` +
            `the moved session was imported as a fork, session ${id}.`;
    return ok({ sessionId: id, forkNote });
  } catch (error) {
    if (error instanceof LineRefused || error instanceof LineTooLong) return refuse(`its ${EVENTS}: ${error.message}`);
    return fail('import_check_failed', `The Copilot session could not be written here: ${(error as Error).message}.`);
  }
}

/** An event with the session id it names renamed (session.start carries it); every other event as it is. */
function renamed(entry: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  const data = entry.data as Record<string, unknown> | undefined;
  if (from === to || entry.type !== 'session.start' || data?.sessionId !== from) return entry;
  return { ...entry, data: { ...data, sessionId: to } };
}

/** The text a person typed in a user.message event. */
function typed(line: Record<string, unknown>): string | null {
  const data = line.data as { content?: unknown } | undefined;
  return line.type === 'user.message' && typeof data?.content === 'string' ? data.content : null;
}

async function listSessions(env: NodeJS.ProcessEnv, workspace: string, limit: number): Promise<ExistingSession[]> {
  const root = join(copilotHome(env), 'session-state');
  const dirs = await readdir(root, { withFileTypes: true }).catch(() => []);
  const found: ExistingSession[] = [];
  const files = await newestFiles(dirs.filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => join(root, d.name, EVENTS)));
  for (const { path, mtimeMs } of files) {
    if (found.length >= limit) break;
    const meta = await readWorkspace(join(dirname(path), WORKSPACE));
    if (typeof meta?.id !== 'string' || typeof meta.cwd !== 'string' || !(await samePlace(meta.cwd, workspace))) continue;
    let title = '';
    await scanLines(path, (line) => (title = titleOf(typed(line) ?? '')) !== '');
    found.push({ provider: 'copilot', sessionId: meta.id, title: title || meta.id, updatedAt: mtimeMs });
  }
  return found;
}

async function readHistory(env: NodeJS.ProcessEnv, workspace: string, sessionId: string): Promise<TranscriptEntry[] | null> {
  const dir = sessionDir(env, sessionId);
  const meta = await readWorkspace(join(dir, WORKSPACE));
  if (typeof meta?.cwd !== 'string' || !(await samePlace(meta.cwd, workspace))) return null;
  if (
    !(await stat(join(dir, EVENTS)).then(
      (s) => s.isFile(),
      () => false,
    ))
  )
    return null;
  let at = 0;
  const state = new SessionState(() => at, 'copilot');
  const tools = new Map<string, string>();
  await forEachLine(join(dir, EVENTS), (text) => {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    const stamp = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
    if (!Number.isNaN(stamp)) at = stamp;
    const data = (line.data ?? {}) as Record<string, unknown>;
    const said = typed(line);
    if (said !== null) state.addEntry('user', 'main', said);
    else if (line.type === 'assistant.message' && typeof data.content === 'string' && data.content.trim() !== '')
      state.addEntry('assistant', 'main', data.content.trim());
    else if (line.type === 'tool.execution_start' && typeof data.toolCallId === 'string') {
      const args = (data.arguments ?? {}) as Record<string, unknown>;
      const what = typeof args.command === 'string' ? `$ ${args.command}` : `${String(data.toolName)} ${String(args.path ?? '')}`.trim();
      tools.set(data.toolCallId, what);
    } else if (line.type === 'tool.execution_complete' && typeof data.toolCallId === 'string') {
      const what = tools.get(data.toolCallId) ?? 'A tool call';
      state.addEntry('tool', 'main', data.success === false ? `${what} (failed)` : what);
    }
  }).catch(() => undefined);
  return state.snapshot().transcript;
}

export const copilotStore: AcpSessionStore = { format: COPILOT_FORMAT, exportSession, importSession, listSessions, readHistory };
