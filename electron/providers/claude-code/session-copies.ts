/**
 * The copies of a Claude session already on this device (`projects/<any folder>/<id>.jsonl`), and
 * what an import may do with them. Claude appends to a session's transcript and never rewrites it,
 * and an import changes only each line's `cwd`, so a copy whose lines are the first lines of the
 * incoming transcript (cwd aside) is an earlier state of it — an earlier stay of the session here —
 * and is replaced or removed (with two copies Claude resumes from neither folder). A copy that is
 * not went on without the moved session (`claude --resume` in a terminal here while it was away),
 * or is another session under that id: it is kept untouched, and the import becomes a fork under a
 * new id, as `claude --fork-session` makes one (every line's `sessionId` renamed, uuids kept).
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { forEachLine } from '../../io/line-reader.ts';
import { entryWithout, isEarlierState, type LineSource, type SameEntry } from '../earlier-state.ts';
import { claudeConfigDir } from './paths.ts';

/** One copy of a session: its project folder and transcript. */
export interface SessionCopy {
  projectDir: string;
  transcript: string;
}

/** Every copy of session `sessionId` under this device's Claude projects folder. */
export async function sessionCopies(env: NodeJS.ProcessEnv, sessionId: string): Promise<SessionCopy[]> {
  const projects = join(claudeConfigDir(env), 'projects');
  const copies: SessionCopy[] = [];
  for (const folder of await readdir(projects, { withFileTypes: true }).catch(() => [])) {
    if (!folder.isDirectory()) continue;
    const projectDir = join(projects, folder.name);
    const transcript = join(projectDir, `${sessionId}.jsonl`);
    if (
      await stat(transcript).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      copies.push({ projectDir, transcript });
  }
  return copies;
}

/** Two Claude lines are one entry when they are equal but for their `cwd`. */
const sameClaudeEntry: SameEntry = (mine, theirs) => {
  if (mine === theirs) return true;
  const entry = entryWithout(mine, ['cwd']);
  return entry !== null && entry === entryWithout(theirs, ['cwd']);
};

/** The first copy that is not an earlier state of the incoming transcript's `lines`, or null when each one is. */
export async function divergedCopy(copies: readonly SessionCopy[], lines: LineSource): Promise<SessionCopy | null> {
  for (const copy of copies) {
    if (!(await isEarlierState((each) => forEachLine(copy.transcript, each), lines, sameClaudeEntry))) return copy;
  }
  return null;
}

/** Removes session `sessionId`'s copies (earlier states of what was just written) in every folder but `keep`, side folders too. */
export async function removeCopies(copies: readonly SessionCopy[], sessionId: string, keep: string): Promise<void> {
  for (const { projectDir, transcript } of copies) {
    if (projectDir === keep) continue;
    await rm(transcript, { force: true }).catch(() => undefined);
    await rm(join(projectDir, sessionId), { recursive: true, force: true }).catch(() => undefined);
  }
}
