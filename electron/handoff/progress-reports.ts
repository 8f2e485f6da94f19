/**
 * How the handoff's steps put bytes moved in the progress sink's terms: the percent of a whole, and
 * the source's checkpoint upload (bytes sent of the sealed size).
 */
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { ProgressSink } from '../ports/progress.ts';

/** The percent `done` bytes are of `total` (an empty whole is done). */
export function percentOf(done: number, total: number): number {
  return total === 0 ? 100 : (done / total) * 100;
}

/** A reporter of `handoff`'s checkpoint upload of `totalBytes`: call it with the bytes sent so far. */
export function uploadProgress(sink: ProgressSink, handoff: Pick<Handoff, 'id' | 'sessionId'>, totalBytes: number): (done: number) => void {
  return (done) =>
    sink({
      handoffId: handoff.id,
      sessionId: handoff.sessionId,
      step: 'upload',
      label: 'checkpoint',
      doneBytes: done,
      totalBytes,
      percent: percentOf(done, totalBytes),
    });
}
