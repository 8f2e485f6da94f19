/**
 * Claude Code checkpoint data: exporting a session's transcript (and its side folder) from wherever
 * Claude keeps it, and importing it under the target workspace's project folder with every `cwd`
 * rewritten — after checking it is resumable. An import that cannot be written (a name too long, a
 * full disk) fails like a failed check and leaves what was there before.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { z } from 'zod';
import { fail, ok, type Result } from '../../../shared/errors.ts';
import { findSessionFiles, isSafeSessionId, sessionFiles, type SessionFiles } from './paths.ts';
import { checkResumable, rewriteCwd } from './transcript-file.ts';

export const CLAUDE_FORMAT = 'claude-code/transcript@1';

const sideFileSchema = z.strictObject({
  path: z.string().min(1).max(500),
  encoding: z.enum(['utf8', 'base64']),
  content: z.string(),
});
export const claudePayloadSchema = z.strictObject({
  sourceCwd: z.string().min(1),
  transcript: z.string(),
  sideFiles: z.array(sideFileSchema).max(10_000),
});
export type ClaudePayload = z.infer<typeof claudePayloadSchema>;

async function readSideFolder(folder: string): Promise<ClaudePayload['sideFiles']> {
  let entries;
  try {
    entries = await readdir(folder, { recursive: true, withFileTypes: true });
  } catch {
    return []; // no side folder: nothing to carry
  }
  const files: ClaudePayload['sideFiles'] = [];
  for (const entry of entries.filter((e) => e.isFile())) {
    const full = join(entry.parentPath, entry.name);
    const path = relative(folder, full).split(sep).join('/');
    const bytes = await readFile(full);
    files.push(
      entry.name.endsWith('.jsonl')
        ? { path, encoding: 'utf8', content: bytes.toString('utf8') }
        : { path, encoding: 'base64', content: bytes.toString('base64') },
    );
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** Reads session `sessionId` of `workspace` for the checkpoint. */
export async function exportClaudeSession(
  env: NodeJS.ProcessEnv,
  workspace: string,
  sessionId: string,
): Promise<Result<ClaudePayload, 'export_failed'>> {
  if (!isSafeSessionId(sessionId)) return fail('export_failed', `"${sessionId}" is not a Claude session id.`);
  const files = await findSessionFiles(env, workspace, sessionId).catch(() => null);
  const transcript = files === null ? null : await readFile(files.transcript, 'utf8').catch(() => null);
  if (files === null || transcript === null)
    return fail('export_failed', `No Claude transcript of session ${sessionId} is kept on this device.`);
  return ok({ sourceCwd: files.cwd, transcript, sideFiles: await readSideFolder(files.sideFolder) });
}

/** A side-file path that stays inside the side folder. */
function isSafeRelative(path: string): boolean {
  const normal = posix.normalize(path);
  return !isAbsolute(path) && !normal.startsWith('../') && normal !== '..' && !path.includes('\\') && !path.includes('\0');
}

/**
 * Writes `payload` as session `sessionId` of `workspace` (the target) with every cwd rewritten,
 * once the transcript passes its resumability check; nothing is written when a check fails.
 * Resolves to the rewritten transcript text.
 */
export async function importClaudeSession(
  env: NodeJS.ProcessEnv,
  workspace: string,
  sessionId: string,
  payload: unknown,
): Promise<Result<string, 'import_check_failed'>> {
  const refuse = (message: string): Result<string, 'import_check_failed'> => fail('import_check_failed', message);
  const parsed = claudePayloadSchema.safeParse(payload);
  if (!parsed.success) return refuse(`The Claude session data is malformed: ${parsed.error.issues[0]?.message ?? 'unknown'}.`);
  if (!isSafeSessionId(sessionId)) return refuse(`"${sessionId}" is not a Claude session id.`);
  const unsafe = parsed.data.sideFiles.find((f) => !isSafeRelative(f.path));
  if (unsafe) return refuse(`The Claude session data names a file outside its folder: ${unsafe.path}.`);
  let files;
  try {
    files = await sessionFiles(env, workspace, sessionId);
  } catch (error) {
    return refuse(`The target workspace cannot be opened: ${(error as Error).message}.`);
  }
  const transcript = rewriteCwd(parsed.data.transcript, parsed.data.sourceCwd, files.cwd);
  if (!transcript.ok) return refuse(`The Claude transcript is damaged: ${transcript.message}.`);
  const resumable = checkResumable(transcript.value);
  if (!resumable.ok) return refuse(resumable.message);
  const side: { path: string; bytes: Buffer }[] = [];
  for (const file of parsed.data.sideFiles) {
    if (file.encoding === 'base64') {
      side.push({ path: file.path, bytes: Buffer.from(file.content, 'base64') });
      continue;
    }
    const rewritten = rewriteCwd(file.content, parsed.data.sourceCwd, files.cwd);
    if (!rewritten.ok) return refuse(`The Claude side file ${file.path} is damaged: ${rewritten.message}.`);
    side.push({ path: file.path, bytes: Buffer.from(rewritten.value, 'utf8') });
  }
  const written = await writeSession(files, transcript.value, side);
  if (!written.ok) return refuse(`The Claude session could not be written here: ${written.message}.`);
  await removeOlderCopies(files, sessionId);
  return ok(transcript.value);
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

/**
 * Writes the transcript and side files next to their places first, then renames them into place, so a
 * failure (ENAMETOOLONG, ENOSPC, …) leaves the session as it was and removes the partial copies.
 */
async function writeSession(files: SessionFiles, transcript: string, side: { path: string; bytes: Buffer }[]): Promise<Result<void>> {
  const stage = `.baton-import-${randomBytes(4).toString('hex')}`;
  const stagedTranscript = join(files.projectDir, `${stage}.jsonl`);
  const stagedSide = join(files.projectDir, stage);
  try {
    await mkdir(files.projectDir, { recursive: true });
    await writeFile(stagedTranscript, transcript);
    for (const file of side) {
      const target = join(stagedSide, ...file.path.split('/'));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, file.bytes);
    }
    if (side.length > 0) {
      await rm(files.sideFolder, { recursive: true, force: true });
      await rename(stagedSide, files.sideFolder);
    }
    await rename(stagedTranscript, files.transcript);
    return ok(undefined);
  } catch (error) {
    await rm(stagedTranscript, { force: true }).catch(() => undefined);
    await rm(stagedSide, { recursive: true, force: true }).catch(() => undefined);
    return fail('write_failed', (error as Error).message);
  }
}
