/**
 * Test support: damaging a device's local records on disk while it is stopped, as a disk fault
 * would. A session record lives in its file and, for what changed since the file was last brought
 * up to date, in its folder's journal (electron/local-state/record-journal.ts): both are cut.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JOURNAL_NAME } from '../electron/local-state/record-journal.ts';

/** Cuts the session's record file in half and drops its lines from the journal of the profile's session records. */
export function truncateSessionRecord(profile: string, sessionId: string): void {
  const folder = join(profile, 'runtime', 'sessions');
  const file = join(folder, `${sessionId}.json`);
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
  const journal = join(folder, JOURNAL_NAME);
  if (!existsSync(journal)) return;
  const lines = readFileSync(journal, 'utf8').split('\n');
  writeFileSync(journal, lines.filter((line) => !line.startsWith(`{"id":${JSON.stringify(sessionId)},`)).join('\n'));
}
