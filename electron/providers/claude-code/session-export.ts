/**
 * Claude Code checkpoint data: exporting a session's transcript (and its side folder) from wherever
 * Claude keeps it, and importing it under the target workspace's project folder with every `cwd`
 * rewritten — after checking it is resumable. An import that cannot be written (a name too long, a
 * full disk) fails like a failed check and leaves what was there before.
 *
 * The export names the files (format @2): the checkpoint streams them as binary parts, and the import
 * reads them line by line, so a transcript of hundreds of megabytes is never one string. Data of the
 * earlier format (@1, everything inline in the payload) is still imported.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { z } from 'zod';
import type { AgentView } from '../../../shared/agents.ts';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import type { ImportProgress, ResumeFile } from '../../../shared/provider.ts';
import { forEachLine, forEachTextLine, type LineHandler } from '../../io/line-reader.ts';
import { LineWriter } from '../../io/line-writer.ts';
import { findSessionFiles, isSafeSessionId, sessionFiles, type SessionFiles } from './paths.ts';
import { TranscriptFold, TranscriptMove } from './transcript-file.ts';

export const CLAUDE_FORMAT = 'claude-code/transcript@2';
/** The earlier format: transcript and side files inline in the payload (base64 for binary ones). */
export const CLAUDE_INLINE_FORMAT = 'claude-code/transcript@1';
/** The export's file holding the transcript; side files are named `side/<path in the side folder>`. */
const TRANSCRIPT = 'transcript';
const SIDE = 'side/';

const inlinePayloadSchema = z.strictObject({
  sourceCwd: z.string().min(1),
  transcript: z.string(),
  sideFiles: z
    .array(z.strictObject({ path: z.string().min(1).max(500), encoding: z.enum(['utf8', 'base64']), content: z.string() }))
    .max(10_000),
});
const filesPayloadSchema = z.strictObject({ sourceCwd: z.string().min(1) });

/** What an export gives: the small payload and the files the checkpoint carries. */
export interface ClaudeExport {
  payload: z.infer<typeof filesPayloadSchema>;
  files: ResumeFile[];
}

/** Every file under the side folder, as paths relative to it (sorted); none when there is no folder. */
async function sideFolderFiles(folder: string): Promise<{ path: string; full: string; size: number }[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = [];
  for (const entry of entries.filter((e) => e.isFile())) {
    const full = join(entry.parentPath, entry.name);
    files.push({ path: relative(folder, full).split(sep).join('/'), full, size: (await stat(full)).size });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** Names session `sessionId`'s files of `workspace` for the checkpoint (nothing is read). */
export async function exportClaudeSession(
  env: NodeJS.ProcessEnv,
  workspace: string,
  sessionId: string,
): Promise<Result<ClaudeExport, 'export_failed'>> {
  if (!isSafeSessionId(sessionId)) return fail('export_failed', `"${sessionId}" is not a Claude session id.`);
  const files = await findSessionFiles(env, workspace, sessionId).catch(() => null);
  const size =
    files === null
      ? null
      : await stat(files.transcript).then(
          (s) => s.size,
          () => null,
        );
  if (files === null || size === null) return fail('export_failed', `No Claude transcript of session ${sessionId} is kept on this device.`);
  const side = (await sideFolderFiles(files.sideFolder)).map((f) => ({ name: `${SIDE}${f.path}`, path: f.full, size: f.size }));
  return ok({ payload: { sourceCwd: files.cwd }, files: [{ name: TRANSCRIPT, path: files.transcript, size }, ...side] });
}

/** A side-file path that stays inside the side folder. */
function isSafeRelative(path: string): boolean {
  const normal = posix.normalize(path);
  return !isAbsolute(path) && !normal.startsWith('../') && normal !== '..' && !path.includes('\\') && !path.includes('\0');
}

/** One file to write: its lines (moved to the target), or its bytes as they are. */
type Incoming =
  { path: string; lines: (each: LineHandler) => Promise<number> } | { path: string; bytes: Buffer } | { path: string; copy: string };

/** The import's files from either format: the transcript's lines, and each side file. */
function incoming(
  sourceCwd: string,
  data: { payload: unknown; files?: ResumeFile[] },
  onBytes: (file: string, done: number) => void,
): Result<{ transcript: (each: LineHandler) => Promise<number>; side: Incoming[]; sourceCwd: string }, 'malformed'> {
  if (data.files) {
    const transcript = data.files.find((f) => f.name === TRANSCRIPT);
    if (!transcript) return fail('malformed', 'it carries no transcript');
    const stray = data.files.find((f) => f.name !== TRANSCRIPT && !f.name.startsWith(SIDE));
    if (stray) return fail('malformed', `it carries a file it does not know: ${stray.name}`);
    const side: Incoming[] = data.files
      .filter((f) => f.name.startsWith(SIDE))
      .map((f) => {
        const path = f.name.slice(SIDE.length);
        return path.endsWith('.jsonl')
          ? { path, lines: (each: LineHandler) => forEachLine(f.path, each, (done) => onBytes(f.name, done)) }
          : { path, copy: f.path };
      });
    return ok({ transcript: (each) => forEachLine(transcript.path, each, (done) => onBytes(TRANSCRIPT, done)), side, sourceCwd });
  }
  const inline = inlinePayloadSchema.safeParse(data.payload);
  if (!inline.success) return fail('malformed', inline.error.issues[0]?.message ?? 'unknown');
  const side: Incoming[] = inline.data.sideFiles.map((f) =>
    f.encoding === 'base64'
      ? { path: f.path, bytes: Buffer.from(f.content, 'base64') }
      : { path: f.path, lines: (each: LineHandler) => forEachTextLine(f.content, each) },
  );
  return ok({ transcript: (each) => forEachTextLine(inline.data.transcript, each), side, sourceCwd: inline.data.sourceCwd });
}

/**
 * Writes `data` (either format) as session `sessionId` of `workspace` (the target) with every cwd
 * rewritten, reading its files line by line, once the transcript passes its resumability check;
 * nothing is written in place when a check fails. Resolves to the session's agent map.
 */
export async function importClaudeSession(
  env: NodeJS.ProcessEnv,
  workspace: string,
  sessionId: string,
  data: { format?: string; payload: unknown; files?: ResumeFile[] },
  progress?: ImportProgress,
): Promise<Result<{ agents: AgentView[] }, 'import_check_failed'>> {
  const refuse = (message: string): Result<{ agents: AgentView[] }, 'import_check_failed'> => fail('import_check_failed', message);
  const payload = data.files ? filesPayloadSchema.safeParse(data.payload) : inlinePayloadSchema.safeParse(data.payload);
  if (!payload.success) return refuse(`The Claude session data is malformed: ${payload.error.issues[0]?.message ?? 'unknown'}.`);
  const total = (data.files ?? []).reduce((sum, f) => sum + f.size, 0);
  const done = new Map<string, number>();
  const onBytes = (file: string, bytes: number) => {
    done.set(file, bytes);
    progress?.(
      [...done.values()].reduce((a, b) => a + b, 0),
      total,
    );
  };
  const sources = incoming(payload.data.sourceCwd, data, onBytes);
  if (!sources.ok) return refuse(`The Claude session data is malformed: ${sources.message}.`);
  if (!isSafeSessionId(sessionId)) return refuse(`"${sessionId}" is not a Claude session id.`);
  const unsafe = sources.value.side.find((f) => !isSafeRelative(f.path));
  if (unsafe) return refuse(`The Claude session data names a file outside its folder: ${unsafe.path}.`);
  let files: SessionFiles;
  try {
    files = await sessionFiles(env, workspace, sessionId);
  } catch (error) {
    return refuse(`The target workspace cannot be opened: ${(error as Error).message}.`);
  }
  const written = await writeSession(files, sources.value.sourceCwd, sources.value.transcript, sources.value.side);
  if (!written.ok) {
    if (written.code === 'damaged') return refuse(written.message);
    return refuse(`The Claude session could not be written here: ${written.message}.`);
  }
  await removeOlderCopies(files, sessionId);
  progress?.(total, total);
  return ok({ agents: written.value });
}

/**
 * Removes copies of the session kept under other project folders (an earlier stay on this device in
 * another workspace): they are older states of it, and with two copies Claude resumes it from
 * neither folder's cwd ("No conversation found").
 */
async function removeOlderCopies(files: SessionFiles, sessionId: string): Promise<void> {
  const projects = dirname(files.projectDir);
  for (const folder of await readdir(projects, { withFileTypes: true }).catch(() => [])) {
    const dir = join(projects, folder.name);
    if (!folder.isDirectory() || dir === files.projectDir) continue;
    await rm(join(dir, `${sessionId}.jsonl`), { force: true }).catch(() => undefined);
    await rm(join(dir, sessionId), { recursive: true, force: true }).catch(() => undefined);
  }
}

/** A damaged line: thrown out of a line handler, so reading stops there. */
class Damaged extends Error {}

/** Writes `lines` moved from `from` to `to` into `path` through `move`; a damaged line stops it. */
async function writeLines(path: string, lines: (each: LineHandler) => Promise<number>, move: TranscriptMove): Promise<void> {
  const out = await LineWriter.create(path);
  try {
    await lines((raw, number, bytes) => {
      if (bytes) {
        const parts = move.takeParts(raw, number, bytes);
        if (!parts.ok) throw new Damaged(parts.message);
        return parts.value.length > 0 ? out.writeParts(parts.value) : undefined;
      }
      const taken = move.take(raw, number);
      if (!taken.ok) throw new Damaged(taken.message);
      return taken.value !== '' ? out.write(taken.value) : undefined;
    });
  } finally {
    await out.close();
  }
}

/**
 * Writes the transcript and side files next to their places first (checking the transcript as it
 * goes), then renames them into place, so a failure (a damaged line, ENAMETOOLONG, ENOSPC, …) leaves
 * the session as it was and removes the partial copies.
 */
async function writeSession(
  files: SessionFiles,
  from: string,
  transcript: (each: LineHandler) => Promise<number>,
  side: Incoming[],
): Promise<Result<AgentView[], 'damaged' | 'write_failed'>> {
  const stage = `.baton-import-${randomBytes(4).toString('hex')}`;
  const stagedTranscript = join(files.projectDir, `${stage}.jsonl`);
  const stagedSide = join(files.projectDir, stage);
  try {
    await mkdir(files.projectDir, { recursive: true });
    const fold = new TranscriptFold(false);
    const move = new TranscriptMove(from, files.cwd, fold);
    await writeLines(stagedTranscript, transcript, move);
    const resumable = move.finish();
    if (!resumable.ok) throw new Damaged(resumable.message);
    for (const file of side) {
      const target = join(stagedSide, ...file.path.split('/'));
      await mkdir(dirname(target), { recursive: true });
      if ('lines' in file) {
        await writeLines(target, file.lines, new TranscriptMove(from, files.cwd)).catch((error: Error) => {
          throw error instanceof Damaged ? new Damaged(`The Claude side file ${file.path} is damaged: ${error.message}.`) : error;
        });
      } else if ('copy' in file) await copyFile(file.copy, target);
      else await writeFile(target, file.bytes);
    }
    if (side.length > 0) {
      await rm(files.sideFolder, { recursive: true, force: true });
      await rename(stagedSide, files.sideFolder);
    }
    await rename(stagedTranscript, files.transcript);
    return ok(fold.snapshot().agents);
  } catch (error) {
    await rm(stagedTranscript, { force: true }).catch(() => undefined);
    await rm(stagedSide, { recursive: true, force: true }).catch(() => undefined);
    if (error instanceof Damaged) {
      const message = error.message.startsWith('The Claude') ? error.message : `The Claude transcript is damaged: ${error.message}.`;
      return fail('damaged', message);
    }
    return fail('write_failed', (error as Error).message);
  }
}
