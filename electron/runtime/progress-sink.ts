/**
 * Where the long steps of a move report how far they got: the UI event (handoffProgress) and the
 * device log. Reports come as often as bytes move; the UI gets at most one per step every
 * `uiEveryMs` and the log one every `logEveryMs`, but the first and the last of a step always pass.
 */
import type { HandoffProgressView } from '../../shared/device-api.ts';
import { formatBytes } from '../../shared/progress-text.ts';
import type { Clock } from '../ports/clock.ts';
import type { ProgressReport, ProgressSink } from '../ports/progress.ts';

export interface ProgressSinkOptions {
  emit(view: HandoffProgressView): void;
  log(message: string): void;
  clock: Clock;
  uiEveryMs?: number;
  logEveryMs?: number;
}

const finished = (r: ProgressReport): boolean => r.percent === 100 || (r.totalBytes !== null && r.doneBytes === r.totalBytes);

/** "fetch app: 12.0 MiB of 40.0 MiB (30%)". */
export function describeProgress(r: ProgressReport): string {
  const of = r.totalBytes === null ? '' : ` of ${formatBytes(r.totalBytes)}`;
  const bytes = r.doneBytes === null ? '' : ` ${formatBytes(r.doneBytes)}${of}`;
  const percent = r.percent === null ? '' : ` (${Math.round(r.percent)}%)`;
  return `${r.step} ${r.label}:${bytes}${percent}`.replace(/:$/, '');
}

/** A sink that passes reports on at a bounded rate per (handoff, step, label). */
export function progressSink(options: ProgressSinkOptions): ProgressSink {
  const uiEvery = options.uiEveryMs ?? 100;
  const logEvery = options.logEveryMs ?? 1000;
  const last = new Map<string, { ui: number; log: number }>();
  return (report) => {
    const key = `${report.handoffId}\u0000${report.step}\u0000${report.label}`;
    const now = options.clock();
    const seen = last.get(key);
    const end = finished(report);
    if (!seen || end || now - seen.ui >= uiEvery) options.emit({ ...report, at: now });
    if (!seen || end || now - seen.log >= logEvery) options.log(`handoff ${report.handoffId}: ${describeProgress(report)}`);
    if (end) last.delete(key);
    else
      last.set(key, { ui: !seen || now - seen.ui >= uiEvery ? now : seen.ui, log: !seen || now - seen.log >= logEvery ? now : seen.log });
  };
}
