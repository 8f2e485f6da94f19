/** Progress reports reach the UI and the log at a bounded rate, the first and last of a step always. */
import { describe, expect, it } from 'vitest';
import type { HandoffProgressView } from '../../shared/device-api.ts';
import type { ProgressReport } from '../ports/progress.ts';
import { describeProgress, progressSink } from './progress-sink.ts';

const report = (doneBytes: number): ProgressReport => ({
  handoffId: 'h1',
  sessionId: 's1',
  step: 'upload',
  label: 'checkpoint',
  doneBytes,
  totalBytes: 1000,
  percent: doneBytes / 10,
});

describe('the progress sink', () => {
  it('passes the first and the last report of a step and at most one per interval between', () => {
    let now = 0;
    const ui: HandoffProgressView[] = [];
    const log: string[] = [];
    const sink = progressSink({ emit: (v) => ui.push(v), log: (m) => log.push(m), clock: () => now, uiEveryMs: 100, logEveryMs: 1000 });
    for (let done = 0; done <= 1000; done += 10) {
      sink(report(done));
      now += 5;
    }
    expect(ui[0]).toMatchObject({ doneBytes: 0, at: 0 });
    expect(ui.at(-1)).toMatchObject({ doneBytes: 1000, percent: 100 });
    // Reports every 5 ms for 500 ms: the first (0 ms), one per 100 ms (100–400 ms), and the last (500 ms).
    expect(ui.map((v) => v.at)).toEqual([0, 100, 200, 300, 400, 500]);
    expect(log).toEqual(['handoff h1: upload checkpoint: 0 B of 1000 B (0%)', 'handoff h1: upload checkpoint: 1000 B of 1000 B (100%)']);
  });

  it('words a report with what is known', () => {
    const mib = 1024 * 1024;
    expect(describeProgress({ ...report(0), step: 'fetch', label: 'app', doneBytes: 12 * mib, totalBytes: 40 * mib, percent: 30 })).toBe(
      'fetch app: 12.0 MiB of 40.0 MiB (30%)',
    );
    expect(describeProgress({ ...report(0), step: 'clone', label: 'app', doneBytes: null, totalBytes: null, percent: 55 })).toBe(
      'clone app: (55%)',
    );
    expect(describeProgress({ ...report(0), step: 'import', label: 'Claude Code', doneBytes: null, totalBytes: null, percent: null })).toBe(
      'import Claude Code',
    );
  });
});
