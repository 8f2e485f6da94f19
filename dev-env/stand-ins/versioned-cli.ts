/**
 * A stand-in CLI that reports a chosen version: a `claude` (or `codex`) in its own bin folder that
 * answers `--version` with `version` and runs the stand-in for everything else. For the one fault
 * the real CLIs cannot be made to show on one machine: a device whose CLI is older than another's.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STAND_IN_BIN } from './stand-ins.ts';

/** Writes the CLI into `binDir` (created) answering `--version` with `line`; returns `binDir` to put first on PATH. */
export function standInReporting(binDir: string, tool: 'claude' | 'codex', line: string): string {
  mkdirSync(binDir, { recursive: true });
  const script = `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "${line}"; exit 0; fi\nexec "${join(STAND_IN_BIN, tool)}" "$@"\n`;
  writeFileSync(join(binDir, tool), script);
  chmodSync(join(binDir, tool), 0o755);
  return binDir;
}
