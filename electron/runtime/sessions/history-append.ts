/**
 * A new session's earlier history sent to the backend (adoption, a fork): sealed `history` events
 * of about 1 MB each, in order, read as they are sent (a long history is never held whole).
 */
import type { TranscriptEntry } from '../../../shared/agents.ts';
import type { SessionService } from './session-service.ts';

/** The most JSON (UTF-16 units, about bytes) one sealed history event carries; the backend takes 4 MiB sealed. */
const HISTORY_CHUNK_CHARS = 1_000_000;

/** The entries in sealed-event-sized chunks, in order. */
async function* chunks(entries: Iterable<TranscriptEntry> | AsyncIterable<TranscriptEntry>): AsyncGenerator<TranscriptEntry[]> {
  let current: TranscriptEntry[] = [];
  let size = 0;
  for await (const entry of entries) {
    const length = JSON.stringify(entry).length;
    if (current.length > 0 && size + length > HISTORY_CHUNK_CHARS) {
      yield current;
      current = [];
      size = 0;
    }
    current.push(entry);
    size += length;
  }
  if (current.length > 0) yield current;
}

/** Appends `entries` to session `sessionId` as history events, in order; resolves once each was sent. */
export async function appendHistory(
  sessions: Pick<SessionService, 'append'>,
  sessionId: string,
  entries: Iterable<TranscriptEntry> | AsyncIterable<TranscriptEntry>,
): Promise<void> {
  for await (const chunk of chunks(entries)) await sessions.append(sessionId, { type: 'history', entries: chunk });
}
