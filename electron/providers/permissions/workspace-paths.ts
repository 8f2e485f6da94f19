/**
 * Where a path an agent names really is, to tell whether a change stays inside the session's
 * workspace: relative paths are taken from the workspace (never from the device process's own
 * folder), and every link on the way is followed as the file system would follow it — a `..` after
 * a link leaves the link's target, not the link — up to the part that does not exist yet. Comparing
 * the text of a path would let `workspace/link-to-elsewhere/file` or `../../file` pass as inside.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';

/** `path` with every link resolved, for the longest part of it that exists; the rest appended as written. */
async function realPrefix(path: string): Promise<string> {
  const rest: string[] = [];
  for (let head = path; ; head = dirname(head)) {
    try {
      return join(await realpath(head), ...rest.reverse());
    } catch {
      if (dirname(head) === head) return path;
      rest.push(basename(head));
    }
  }
}

/** Where `path` (relative: from `workspace`) leads, links followed, `..` taken after each link as the file system takes it. */
export async function resolvedPath(path: string, workspace: string): Promise<string> {
  const parts = (isAbsolute(path) ? path : `${workspace}${sep}${path}`).split(sep);
  let at: string = sep;
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    at = part === '..' ? dirname(await realPrefix(at)) : join(at, part);
  }
  return realPrefix(at);
}

/** True when every path (at least one) leads inside `workspace` and outside its `.git` folder. */
export async function insideWorkspace(paths: readonly string[], workspace: string): Promise<boolean> {
  if (paths.length === 0) return false;
  const root = await realPrefix(workspace);
  for (const path of paths) {
    const rel = relative(root, await resolvedPath(path, workspace));
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) || rel.split(sep)[0] === '.git') return false;
  }
  return true;
}
