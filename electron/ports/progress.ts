/**
 * How the long steps of a move (fetch, clone, checkpoint transfer, import) report how far they got:
 * to a sink the runtime makes (runtime/progress-sink.ts), which passes them on to the UI and the log.
 */
import type { HandoffProgressView } from '../../shared/device-api.ts';

/** What a step reports (the sink adds the time). */
export type ProgressReport = Omit<HandoffProgressView, 'at'>;
export type ProgressSink = (report: ProgressReport) => void;
