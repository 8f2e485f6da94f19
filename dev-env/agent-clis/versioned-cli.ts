/**
 * A CLI that reports a chosen version: a `claude` (or `codex`) in its own bin folder that answers
 * `--version` with the given line and runs the real one (the lab's, in its namespace) for everything
 * else. For what one machine cannot otherwise show: a device whose CLI is older than another's.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `tool` into `binDir` (created), answering `--version` with `line` and running `target` otherwise; returns `binDir`. */
export function cliReporting(binDir: string, tool: 'claude' | 'codex', line: string, target: string): string {
  mkdirSync(binDir, { recursive: true });
  const script = `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "${line}"; exit 0; fi\nexec "${target}" "$@"\n`;
  writeFileSync(join(binDir, tool), script);
  chmodSync(join(binDir, tool), 0o755);
  return binDir;
}
