/**
 * This machine's Claude Code sessions of a workspace, for adoption. Claude keeps each session as
 * `$CLAUDE_CONFIG_DIR/projects/<folder>/<session id>.jsonl`, the folder named from the cwd by its own
 * rule (paths.ts `projectSlug`: long paths cut and hashed). Folder names can collide ("/a/b" and
 * "/a-b"), so a session counts only when its lines carry the workspace as their cwd. Its title is the first prompt the user typed (else its first slash command).
 */
import { readdir, realpath } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ExistingSession } from '../../../shared/provider.ts';
import type { JsonLine } from '../json-lines.ts';
import { newestFiles, scanLines, titleOf } from '../session-scan.ts';
import { claudeConfigDir, isSafeSessionId, projectSlug } from './paths.ts';

/** The project folder of `cwd`'s sessions. */
function projectFolder(env: NodeJS.ProcessEnv, cwd: string): string {
  return join(claudeConfigDir(env), 'projects', projectSlug(cwd));
}

/** What a person typed in a `user` line (not meta, not a tool result, not an injected block): a prompt or a slash command. */
function typedText(line: JsonLine): { prompt: string } | { command: string } | null {
  if (line.type !== 'user' || line.isMeta === true || line.isSidechain === true) return null;
  const content = (line.message as { content?: unknown } | undefined)?.content;
  const texts =
    typeof content === 'string'
      ? [content]
      : Array.isArray(content)
        ? content.flatMap((b: { type?: unknown; text?: unknown }) => (b?.type === 'text' && typeof b.text === 'string' ? [b.text] : []))
        : [];
  for (const raw of texts) {
    const text = raw.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim();
    const command = /^<command-name>\s*([^<]*)<\/command-name>/.exec(text);
    if (command) return { command: command[1]!.trim() };
    if (text !== '' && !text.startsWith('<') && !text.startsWith('Caveat:')) return { prompt: text };
  }
  return null;
}

/** The session in transcript `path` (written at `mtimeMs`), when its lines carry `cwd`; null otherwise. */
async function summarize(path: string, mtimeMs: number, sessionId: string, cwd: string): Promise<ExistingSession | null> {
  let seenCwd: string | null = null;
  let prompt: string | null = null;
  let command: string | null = null;
  const read = await scanLines(path, (line) => {
    if (seenCwd === null && typeof line.cwd === 'string') seenCwd = line.cwd;
    const typed = typedText(line);
    if (typed && 'prompt' in typed) prompt ??= typed.prompt;
    else if (typed) command ??= typed.command;
    return seenCwd !== null && prompt !== null;
  });
  if (!read || seenCwd !== cwd) return null;
  return { provider: 'claude-code', sessionId, title: titleOf(prompt ?? command ?? '') || sessionId, updatedAt: Math.round(mtimeMs) };
}

/** The session id a transcript file is named by (empty when it is not a `.jsonl`). */
function idOf(name: string): string {
  return name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : '';
}

/** The resolved workspace, or null when it does not exist. */
async function resolved(workspace: string): Promise<string | null> {
  return realpath(workspace).catch(() => null);
}

/** Claude Code sessions of `workspace` on this machine (its config dir in `env`), newest first, at most `limit`. */
export async function listClaudeSessions(env: NodeJS.ProcessEnv, workspace: string, limit = 50): Promise<ExistingSession[]> {
  const cwd = await resolved(workspace);
  if (cwd === null) return [];
  const folder = projectFolder(env, cwd);
  const transcripts = (await readdir(folder).catch(() => [] as string[])).filter((name) => isSafeSessionId(idOf(name)));
  const found: ExistingSession[] = [];
  // Newest first, reading only as many heads as the list shows.
  for (const file of await newestFiles(transcripts.map((name) => join(folder, name)))) {
    const session = await summarize(file.path, file.mtimeMs, idOf(basename(file.path)), cwd);
    if (session) found.push(session);
    if (found.length >= limit) break;
  }
  return found;
}

/** The transcript file of Claude session `sessionId` of `workspace`, or null when it is not one of its sessions. */
export async function findClaudeSession(env: NodeJS.ProcessEnv, workspace: string, sessionId: string): Promise<string | null> {
  const cwd = await resolved(workspace);
  if (cwd === null || !isSafeSessionId(sessionId)) return null;
  const [file] = await newestFiles([join(projectFolder(env, cwd), `${sessionId}.jsonl`)]);
  return file && (await summarize(file.path, file.mtimeMs, sessionId, cwd)) !== null ? file.path : null;
}
