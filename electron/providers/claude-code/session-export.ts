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
import { randomBytes, randomUUID } from 'node:crypto';
import { capitalized } from '../../../shared/sentence-case.ts';
import { copyFile, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { z } from 'zod';
import type { AgentView } from '../../../shared/agents.ts';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import type { ImportProgress, PartStager, ResumeData, ResumeFile } from '../../../shared/provider.ts';
import { forEachLine, forEachTextLine, LineTooLong, type LineHandler } from '../../io/line-reader.ts';
import { LineWriter } from '../../io/line-writer.ts';
import type { LineSource } from '../earlier-state.ts';
import { findSessionFiles, isSafeSessionId, sessionFiles, type SessionFiles } from './paths.ts';
import { divergedCopy, removeCopies, sessionCopies } from './session-copies.ts';
import { claudePartStager, moveStaged, stagedNote, type StagedNote } from './staged-part.ts';
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

/** A file the checkpoint reader staged already rewritten (staged-part.ts): where it is and what staging found. */
interface Staged {
  file: string;
  note: StagedNote;
  done: () => void;
}

/** Lines to move to the target: read from a file or text, or staged already moved. */
type Lines = { lines: (each: LineHandler) => Promise<number> } | { staged: Staged };

/** One file to write: its lines (moved to the target), or its bytes as they are. */
type Incoming = ({ path: string } & Lines) | { path: string; bytes: Buffer } | { path: string; copy: string };

/** The lines of export file `f`: staged already moved when the checkpoint reader left a note of it. */
async function linesOf(f: ResumeFile, onBytes: (file: string, done: number) => void): Promise<Lines> {
  const note = await stagedNote(f.path);
  if (note) return { staged: { file: f.path, note, done: () => onBytes(f.name, f.size) } };
  return { lines: (each: LineHandler) => forEachLine(f.path, each, (done) => onBytes(f.name, done)) };
}

/** The import's files from either format: the transcript's lines, and each side file. */
async function incoming(
  sourceCwd: string,
  data: { payload: unknown; files?: ResumeFile[] },
  onBytes: (file: string, done: number) => void,
): Promise<Result<{ transcript: Lines; side: Incoming[]; sourceCwd: string }, 'malformed'>> {
  if (data.files) {
    const transcript = data.files.find((f) => f.name === TRANSCRIPT);
    if (!transcript) return fail('malformed', 'it carries no transcript');
    const stray = data.files.find((f) => f.name !== TRANSCRIPT && !f.name.startsWith(SIDE));
    if (stray) return fail('malformed', `it carries a file it does not know: ${stray.name}`);
    const side: Incoming[] = [];
    for (const f of data.files.filter((file) => file.name.startsWith(SIDE))) {
      const path = f.name.slice(SIDE.length);
      side.push(path.endsWith('.jsonl') ? { path, ...(await linesOf(f, onBytes)) } : { path, copy: f.path });
    }
    return ok({ transcript: await linesOf(transcript, onBytes), side, sourceCwd });
  }
  const inline = inlinePayloadSchema.safeParse(data.payload);
  if (!inline.success) return fail('malformed', inline.error.issues[0]?.message ?? 'unknown');
  const side: Incoming[] = inline.data.sideFiles.map((f) =>
    f.encoding === 'base64'
      ? { path: f.path, bytes: Buffer.from(f.content, 'base64') }
      : { path: f.path, lines: (each: LineHandler) => forEachTextLine(f.content, each) },
  );
  return ok({ transcript: { lines: (each) => forEachTextLine(inline.data.transcript, each) }, side, sourceCwd: inline.data.sourceCwd });
}

/**
 * The rewriter that stages export file `file` of `data` for an import into the workspace that
 * resolves to `to` (ProviderSession.stagePart; futureRealpath): the transcript and the side folder's
 * `.jsonl` files; null for any other file or data, which is staged as it is.
 */
export async function stageClaudeFile(data: ResumeData, file: ResumeFile, to: Promise<string>): Promise<PartStager | null> {
  const payload = filesPayloadSchema.safeParse(data.payload);
  if (data.format !== CLAUDE_FORMAT || !payload.success) return null;
  const transcript = file.name === TRANSCRIPT;
  if (!transcript && !(file.name.startsWith(SIDE) && file.name.endsWith('.jsonl'))) return null;
  return claudePartStager(file.path, payload.data.sourceCwd, await to, transcript);
}

/** What an import wrote: the session's agent map, the id it is under, and — for a fork — why. */
export interface ClaudeImport {
  agents: AgentView[];
  /** The session's id here: the moved one's, or a fork's. */
  sessionId: string;
  /** Set when it was imported as a fork: what was kept and why, in words. */
  forkNote: string | null;
}

/** The lines of a transcript to import, to compare with a copy already here. */
function incomingLines(source: Lines): LineSource {
  return 'staged' in source ? (each) => forEachLine(source.staged.file, each) : source.lines;
}

/**
 * Writes `data` (either format) as session `sessionId` of `workspace` (the target) with every cwd
 * rewritten, reading its files line by line, once the transcript passes its resumability check;
 * nothing is written in place when a check fails. A copy of the session already here that is not
 * an earlier state of it is kept untouched, and the session is written as a fork under a new id
 * (session-copies.ts). Resolves to the session's agent map and id.
 */
export async function importClaudeSession(
  env: NodeJS.ProcessEnv,
  workspace: string,
  sessionId: string,
  data: { format?: string; payload: unknown; files?: ResumeFile[] },
  progress?: ImportProgress,
  fork = false,
  /** The device importing, as the fork note (read on every device) names it. */
  device = 'this device',
): Promise<Result<ClaudeImport, 'import_check_failed'>> {
  const refuse = (message: string): Result<ClaudeImport, 'import_check_failed'> => fail('import_check_failed', message);
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
  const sources = await incoming(payload.data.sourceCwd, data, onBytes);
  if (!sources.ok) return refuse(`The Claude session data is malformed: ${sources.message}.`);
  if (!isSafeSessionId(sessionId)) return refuse(`"${sessionId}" is not a Claude session id.`);
  const unsafe = sources.value.side.find((f) => !isSafeRelative(f.path));
  if (unsafe) return refuse(`The Claude session data names a file outside its folder: ${unsafe.path}.`);
  const { transcript, side, sourceCwd } = sources.value;
  if ('staged' in transcript && transcript.staged.note.damaged !== null) return refuse(damagedMessage(transcript.staged.note.damaged));
  let files: SessionFiles;
  try {
    files = await sessionFiles(env, workspace, sessionId);
  } catch (error) {
    return refuse(`The target workspace cannot be opened: ${(error as Error).message}.`);
  }
  const copies = await sessionCopies(env, sessionId);
  let diverged;
  try {
    diverged = await divergedCopy(copies, incomingLines(transcript));
  } catch (error) {
    if (error instanceof LineTooLong) return refuse(damagedMessage(error.message));
    throw error;
  }
  // A fork, or a copy here that went on without the incoming one: written under a new id, every copy kept.
  const id = diverged === null && !fork ? sessionId : randomUUID();
  if (id !== sessionId) files = await sessionFiles(env, workspace, id);
  const written = await writeSession(files, sourceCwd, transcript, side, id === sessionId ? undefined : { from: sessionId, to: id });
  if (!written.ok) {
    if (written.code === 'damaged') return refuse(written.message);
    return refuse(`The Claude session could not be written here: ${written.message}.`);
  }
  if (id === sessionId) await removeCopies(copies, sessionId, files.projectDir);
  progress?.(total, total);
  const forkNote = fork
    ? `Claude Code session ${sessionId} was forked here as session ${id}; the files of ${sessionId} are left as they are.`
    : diverged === null
      ? null
      : `${capitalized(device)} already had Claude Code session ${sessionId}, which is not an earlier state of the one that moved to it: it ` +
        `went on without it (for example with claude --resume in a terminal on ${device}) or is another session. It was kept as it is, and ` +
        `the moved session was imported as a fork, session ${id}.`;
  return ok({ agents: written.value, sessionId: id, forkNote });
}

/** A damaged line: thrown out of a line handler, so reading stops there. */
class Damaged extends Error {}

/** The message of a damaged transcript, from what was found (a side file's message names it already). */
function damagedMessage(found: string): string {
  return found.startsWith('The Claude') ? found : `The Claude transcript is damaged: ${found}.`;
}

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
 * Writes `source` with its cwd moved from `from` to `to` (and, for a fork, its session id renamed)
 * into `target`; with `fold`, checks it is a resumable transcript and resolves to its agent map. A
 * file staged already moved to `to` is only renamed into place, one staged for another workspace (or
 * forked) is moved on from there, one staged damaged is refused with what its staging found; a
 * damaged line stops it.
 */
async function writeMoved(
  target: string,
  source: Lines,
  from: string,
  to: string,
  fold?: TranscriptFold,
  fork?: { from: string; to: string },
): Promise<AgentView[]> {
  let lines: (each: LineHandler) => Promise<number>;
  if ('staged' in source) {
    const { file, note, done } = source.staged;
    if (note.damaged !== null) throw new Damaged(note.damaged);
    if (note.from !== from) throw new Damaged('it was staged for another source workspace');
    if (note.to === to && fork === undefined) {
      await moveStaged(file, target);
      done();
      return note.agents;
    }
    lines = (each) => forEachLine(file, each).finally(done);
    from = note.to;
  } else lines = source.lines;
  const move = new TranscriptMove(from, to, fold, fork);
  await writeLines(target, lines, move);
  if (!fold) return [];
  const resumable = move.finish();
  if (!resumable.ok) throw new Damaged(resumable.message);
  return fold.snapshot().agents;
}

/**
 * Writes the transcript and side files next to their places first (checking the transcript as it
 * goes), then renames them into place, so a failure (a damaged line, ENAMETOOLONG, ENOSPC, …) leaves
 * the session as it was and removes the partial copies.
 */
async function writeSession(
  files: SessionFiles,
  from: string,
  transcript: Lines,
  side: Incoming[],
  fork?: { from: string; to: string },
): Promise<Result<AgentView[], 'damaged' | 'write_failed'>> {
  const stage = `.baton-import-${randomBytes(4).toString('hex')}`;
  const stagedTranscript = join(files.projectDir, `${stage}.jsonl`);
  const stagedSide = join(files.projectDir, stage);
  try {
    await mkdir(files.projectDir, { recursive: true });
    const agents = await writeMoved(stagedTranscript, transcript, from, files.cwd, new TranscriptFold(false), fork);
    for (const file of side) {
      const target = join(stagedSide, ...file.path.split('/'));
      await mkdir(dirname(target), { recursive: true });
      if ('lines' in file || 'staged' in file) {
        await writeMoved(target, file, from, files.cwd, undefined, fork).catch((error: Error) => {
          const damaged = error instanceof Damaged || error instanceof LineTooLong;
          throw damaged ? new Damaged(`The Claude side file ${file.path} is damaged: ${error.message}.`) : error;
        });
      } else if ('copy' in file) await copyFile(file.copy, target);
      else await writeFile(target, file.bytes);
    }
    if (side.length > 0) {
      await rm(files.sideFolder, { recursive: true, force: true });
      await rename(stagedSide, files.sideFolder);
    }
    await rename(stagedTranscript, files.transcript);
    return ok(agents);
  } catch (error) {
    await rm(stagedTranscript, { force: true }).catch(() => undefined);
    await rm(stagedSide, { recursive: true, force: true }).catch(() => undefined);
    if (error instanceof Damaged || error instanceof LineTooLong) return fail('damaged', damagedMessage(error.message));
    return fail('write_failed', (error as Error).message);
  }
}
