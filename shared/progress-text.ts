/**
 * The words for a long step's progress, the same wherever it is shown (the stepper, the device log):
 * byte counts in the unit that reads best, and "Fetching app — 12.0 MiB of 40.0 MiB, 45%".
 */
import type { HandoffProgressView, ProgressStep } from './device-api.ts';

/** A byte count in the unit that reads best: "900 B", "12.0 KiB", "40.0 MiB", "1.5 GiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

const VERBS: Record<ProgressStep, string> = {
  fetch: 'Fetching',
  clone: 'Cloning',
  upload: 'Uploading',
  download: 'Downloading',
  import: 'Importing',
};

/** What the step does to what: "Fetching app". */
export function progressLabel(p: Pick<HandoffProgressView, 'step' | 'label'>): string {
  return `${VERBS[p.step]} ${p.label}`;
}

/** The label and what is known of the figures: "Fetching app — 12.0 MiB of 40.0 MiB, 45%" ("Fetching app…" when nothing is). */
export function progressText(p: Pick<HandoffProgressView, 'step' | 'label' | 'doneBytes' | 'totalBytes' | 'percent'>): string {
  const of = p.totalBytes === null || p.totalBytes === p.doneBytes ? '' : ` of ${formatBytes(p.totalBytes)}`;
  const figures = [
    ...(p.doneBytes === null ? [] : [`${formatBytes(p.doneBytes)}${of}`]),
    ...(p.percent === null ? [] : [`${Math.round(p.percent)}%`]),
  ];
  return figures.length === 0 ? `${progressLabel(p)}…` : `${progressLabel(p)} — ${figures.join(', ')}`;
}
