import { describe, expect, it } from 'vitest';
import { formatBytes, progressLabel, progressText } from './progress-text.ts';

const MIB = 1024 * 1024;

describe('the words for a long step’s progress', () => {
  it('counts bytes in the unit that reads best', () => {
    expect([900, 12 * 1024, 40 * MIB, 1.5 * 1024 * MIB].map(formatBytes)).toEqual(['900 B', '12.0 KiB', '40.0 MiB', '1.5 GiB']);
  });

  it('says what the step does to what, with the figures it knows', () => {
    const fetch = { step: 'fetch', label: 'app' } as const;
    expect(progressLabel(fetch)).toBe('Fetching app');
    expect(progressText({ ...fetch, doneBytes: 12 * MIB, totalBytes: null, percent: 45 })).toBe('Fetching app — 12.0 MiB, 45%');
    expect(progressText({ ...fetch, doneBytes: 12 * MIB, totalBytes: 40 * MIB, percent: 30 })).toBe(
      'Fetching app — 12.0 MiB of 40.0 MiB, 30%',
    );
    expect(progressText({ ...fetch, doneBytes: 40 * MIB, totalBytes: 40 * MIB, percent: 100 })).toBe('Fetching app — 40.0 MiB, 100%');
    expect(progressText({ step: 'upload', label: 'checkpoint', doneBytes: null, totalBytes: null, percent: null })).toBe(
      'Uploading checkpoint…',
    );
    expect(progressText({ step: 'import', label: 'Claude Code', doneBytes: null, totalBytes: null, percent: 55.4 })).toBe(
      'Importing Claude Code — 55%',
    );
  });
});
