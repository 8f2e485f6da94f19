/**
 * A Claude export file rewritten as the checkpoint reader stages it (PartStager): every line checked
 * and its `cwd` moved to the target's workspace exactly as the import would (TranscriptMove), and —
 * once the part is in — a note beside it (`<file>.staged.json`: from, to, the first damage found, and
 * for the transcript its agent map). The import reads the note: a file staged for its very workspace is
 * only renamed into place; one staged for another workspace is moved on from there (moving a cwd twice
 * gives what moving it once does); a damaged one is refused with the message the import would give.
 */
import { copyFile, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { AgentView } from '../../../shared/agents.ts';
import type { PartStager } from '../../../shared/provider.ts';
import { TranscriptFold, TranscriptMove } from './transcript-file.ts';

const noteSchema = z.strictObject({
  from: z.string(),
  to: z.string(),
  /** The first reason the file is not importable (a damaged line, or a transcript that is not resumable), null when none. */
  damaged: z.string().nullable(),
  agents: z.array(z.custom<AgentView>()),
});
/** What staging found of one file. */
export type StagedNote = z.infer<typeof noteSchema>;

const notePath = (path: string) => `${path}.staged.json`;

/** `path` resolved through symlinks as realpath will resolve it once made: its nearest existing folder resolved, the rest as it is. */
export async function futureRealpath(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    const parent = dirname(path);
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) throw error;
    return join(await futureRealpath(parent), basename(path));
  }
}

/**
 * The rewriter of the file staged at `path`: lines moved from `from` to `to` (the workspace resolved
 * as the import will resolve it, even before the pin clones it: futureRealpath); `transcript`: also
 * checked resumable and folded into the agent map.
 */
export function claudePartStager(path: string, from: string, to: string, transcript: boolean): PartStager {
  const fold = transcript ? new TranscriptFold(false) : undefined;
  const move = new TranscriptMove(from, to, fold);
  let damaged: string | null = null;
  let number = 0;
  return {
    line(bytes) {
      number += 1;
      if (damaged !== null) return [];
      const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const parts = move.takeParts(view.toString('utf8'), number, view);
      if (parts.ok) return parts.value;
      damaged = parts.message;
      return [];
    },
    refuse(reason) {
      damaged ??= reason;
    },
    async end() {
      if (damaged === null && transcript) {
        const resumable = move.finish();
        if (!resumable.ok) damaged = resumable.message;
      }
      const note: StagedNote = { from, to, damaged, agents: fold?.snapshot().agents ?? [] };
      await writeFile(notePath(path), JSON.stringify(note), { mode: 0o600 });
    },
  };
}

/** The note staging left beside `path`, or null when the file was staged as it is (or is not a staged file). */
export async function stagedNote(path: string): Promise<StagedNote | null> {
  const text = await readFile(notePath(path), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const parsed = noteSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Moves a staged file to `target` (renamed; copied when the two are on different file systems). */
export async function moveStaged(file: string, target: string): Promise<void> {
  try {
    await rename(file, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(file, target);
    await rm(file, { force: true });
  }
}
