/** How the source reports its checkpoint upload: bytes sent of the sealed size, to the device's progress sink. */
import type { Handoff } from '../../shared/api/handoffs.ts';
import { percentOf, type ProgressSink } from '../ports/progress-sink.ts';

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
