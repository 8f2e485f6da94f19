/**
 * Where Claude Code keeps a session's transcript:
 * `$CLAUDE_CONFIG_DIR/projects/<slug>/<sessionId>.jsonl` (default config dir ~/.claude), plus the side
 * folder `<slug>/<sessionId>/` (subagent transcripts, tool results) when present. The slug is Claude's
 * own rule (checked against its 2.1 binary): the resolved cwd with every UTF-16 code unit outside
 * [A-Za-z0-9] as '-'; a slug over 200 characters is cut to 200 and gets '-' and the base-36
 * absolute Java string hash of the cwd appended. `claude --resume <id>` finds `<id>.jsonl` under any
 * `projects/*` folder, so an export looks there too when the slug folder does not hold it.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The longest slug Claude keeps whole. */
const SLUG_MAX = 200;

/** The Claude config folder for `env` (CLAUDE_CONFIG_DIR, else $HOME/.claude). */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  const configured = env.CLAUDE_CONFIG_DIR;
  if (configured !== undefined && configured !== '') return resolve(configured);
  return join(env.HOME ?? env.USERPROFILE ?? '', '.claude');
}

/** Java's String.hashCode over UTF-16 code units (32-bit, wrapping), as Claude computes it. */
function javaHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash;
}

/** The project folder name Claude uses for an (already resolved) cwd. */
export function projectSlug(resolvedCwd: string): string {
  const slug = resolvedCwd.replace(/[^A-Za-z0-9]/g, '-');
  return slug.length <= SLUG_MAX ? slug : `${slug.slice(0, SLUG_MAX)}-${Math.abs(javaHash(resolvedCwd)).toString(36)}`;
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

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/**
 * The files of `sessionId` as Claude finds them: under `workspace`'s slug folder when the transcript
 * is there, else under the first other `projects/*` folder holding `<sessionId>.jsonl`; null when none does.
 */
export async function findSessionFiles(env: NodeJS.ProcessEnv, workspace: string, sessionId: string): Promise<SessionFiles | null> {
  const files = await sessionFiles(env, workspace, sessionId);
  if (await isFile(files.transcript)) return files;
  const projects = join(claudeConfigDir(env), 'projects');
  const folders = await readdir(projects, { withFileTypes: true }).catch(() => []);
  for (const folder of folders.filter((f) => f.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const projectDir = join(projects, folder.name);
    const transcript = join(projectDir, `${sessionId}.jsonl`);
    if (await isFile(transcript)) return { cwd: files.cwd, projectDir, transcript, sideFolder: join(projectDir, sessionId) };
  }
  return null;
}
