/**
 * One page of a session's move history, newest first: what the history view asks for (the device
 * API's `handoffHistory`) and how the handoffs this device knows are paged when the backend cannot
 * be asked.
 */
import type { Handoff } from '../../shared/api/handoffs.ts';

/** At most `limit` handoffs, of those created before the handoff `before` (from the newest without it). */
export interface HistoryPage {
  limit: number;
  before?: string | undefined;
}

/** `page` of `handoffs` (oldest first, as the coordinator keeps them): newest first, none when `before` is unknown. */
export function newestPage(handoffs: readonly Handoff[], page: HistoryPage): Handoff[] {
  const newest = [...handoffs].reverse();
  const from = page.before === undefined ? 0 : newest.findIndex((h) => h.id === page.before) + 1;
  return from === 0 && page.before !== undefined ? [] : newest.slice(from, from + page.limit);
}
