/**
 * Where Claude Code keeps a session's transcript:
 * `$CLAUDE_CONFIG_DIR/projects/<slug>/<sessionId>.jsonl` (default config dir ~/.claude), where the
 * slug is the resolved cwd with every character outside [A-Za-z0-9-] replaced by '-', plus the side
 * folder `<slug>/<sessionId>/` (subagent transcripts, tool results) when present.
 */
import { realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The Claude config folder for `env` (CLAUDE_CONFIG_DIR, else $HOME/.claude). */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  const configured = env.CLAUDE_CONFIG_DIR;
  if (configured !== undefined && configured !== '') return resolve(configured);
  return join(env.HOME ?? env.USERPROFILE ?? '', '.claude');
}

/** The project folder name Claude uses for an (already resolved) cwd. */
export function projectSlug(resolvedCwd: string): string {
  return resolvedCwd.replace(/[^A-Za-z0-9-]/g, '-');
}

/** Session ids are UUID-like; anything else (e.g. a path) is refused before it names a file. */
export function isSafeSessionId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/.test(id);
}

export interface SessionFiles {
  /** The resolved workspace the slug was made from. */
  cwd: string;
  projectDir: string;
  transcript: string;
  sideFolder: string;
}

/** The transcript file and side folder of `sessionId` for `workspace` (resolved through symlinks). */
export async function sessionFiles(env: NodeJS.ProcessEnv, workspace: string, sessionId: string): Promise<SessionFiles> {
  const cwd = await realpath(workspace);
  const projectDir = join(claudeConfigDir(env), 'projects', projectSlug(cwd));
  return { cwd, projectDir, transcript: join(projectDir, `${sessionId}.jsonl`), sideFolder: join(projectDir, sessionId) };
}
