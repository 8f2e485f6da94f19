/** Display formats shared by the screens. */
import type { HandoffView } from '../../shared/device-api.ts';

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
const day = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false });

/** A wall-clock time with milliseconds, e.g. "14:03:07.512". */
export function formatClock(at: number): string {
  return `${clock.format(at)}.${String(new Date(at).getMilliseconds()).padStart(3, '0')}`;
}

/** A wall-clock time to the second, e.g. "14:03:07". */
export function formatTime(at: number): string {
  return clock.format(at);
}

/** A short date and time, e.g. "Nov 30, 14:03". */
export function formatDay(at: number): string {
  return day.format(at);
}

/** A duration, e.g. "420 ms" or "3.2 s". */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** An elapsed time, e.g. "+420 ms" or "+3.2 s". */
export function formatElapsed(ms: number): string {
  return `+${formatDuration(ms)}`;
}

/** How long ago, e.g. "just now", "3 min ago". */
export function formatAgo(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 10) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return formatDay(at);
}

/** A plain sentence for the resume path a completed handoff took. */
export function resumePathText(path: HandoffView['resumePath']): string {
  if (path === 'checkpoint-import') return 'the provider session continued with its real state';
  if (path === 'summary-continuation') return 'the agent continued from a rebuilt prompt carrying what the checkpoint says happened';
  return 'not recorded';
}

/**
 * A session title cut where a narrow list may shorten it: the words before, and the marks Baton
 * appends (" (fork)", once per fork of a fork) that must stay in view so a fork never looks like its
 * original — `["Fix the parser", " (fork)"]`; `[title, ""]` when there is none.
 */
export function titleAndMarks(title: string): [head: string, marks: string] {
  const marks = /(?:\s*\(fork\))+$/.exec(title)?.[0] ?? '';
  return marks === '' || marks.length === title.length ? [title, ''] : [title.slice(0, -marks.length), marks];
}
