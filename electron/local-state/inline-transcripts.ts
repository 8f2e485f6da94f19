/**
 * The migration from session records that held their whole transcript inline (before transcript
 * logs, transcript-log.ts): each such record's entries become its log, and the record is written
 * again without them. Runs once at start, before the records are read. Crash-safe and repeatable:
 * the log is complete on disk (fsynced, renamed) before the record loses its entries, so a crash in
 * between leaves the old record, migrated again on the next start.
 */
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `text` to `file` through a temp file, fsynced, then renamed over it. */
function replaceFileSync(file: string, text: string): void {
  const temp = `${file}.${process.pid}.migrate.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}

function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves the inline transcript of every record in `sessionsDir` into `transcriptsDir/<id>.jsonl`;
 * resolves to the ids migrated. A record that cannot be read is left as it is (the folder reports it).
 */
export function migrateInlineTranscripts(sessionsDir: string, transcriptsDir: string): string[] {
  const migrated: string[] = [];
  for (const name of readdirSync(sessionsDir)) {
    if (!name.endsWith('.json')) continue;
    const file = join(sessionsDir, name);
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (!record || typeof record !== 'object' || !Array.isArray(record.transcript)) continue;
    const id = name.slice(0, -'.json'.length);
    const { transcript, ...rest } = record;
    replaceFileSync(join(transcriptsDir, `${id}.jsonl`), (transcript as unknown[]).map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    syncFolder(transcriptsDir);
    replaceFileSync(file, JSON.stringify(rest));
    migrated.push(id);
  }
  if (migrated.length > 0) syncFolder(sessionsDir);
  return migrated;
}
