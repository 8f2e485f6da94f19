/**
 * Where the "Edit files, ask before commands" level lets an agent edit without asking: inside the
 * session's workspace, never its .git folder.
 */
import { isAbsolute, relative, sep } from 'node:path';

/** True when every path is inside one of `roots` (the workspace as given and resolved) and outside its .git folder. */
export function insideWorkspace(paths: readonly string[], roots: readonly string[]): boolean {
  return (
    paths.length > 0 &&
    paths.every((path) =>
      roots.some((root) => {
        const rel = relative(root, path);
        return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '.git';
      }),
    )
  );
}
