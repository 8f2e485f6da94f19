import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TranscriptEntry } from '../../shared/agents.ts';
import { LocalState } from '../local-state/local-state.ts';
import { transcriptPage } from './views.ts';

const entry = (i: number): TranscriptEntry => ({ id: `e${i}`, at: i, role: 'assistant', agentId: 'main', text: `step ${i}` });

describe("the run view's transcript pages", () => {
  it('answers a page from long before the window held in memory by reading the log, with the length now', async () => {
    const profile = mkdtempSync(join(tmpdir(), 'baton-views-'));
    const writer = new LocalState(profile);
    writer.appendTranscript(
      's1',
      Array.from({ length: 3000 }, (_, i) => entry(i)),
      true,
    );
    await writer.settled();
    const state = new LocalState(profile);
    expect(transcriptPage({ state }, 's1', 100, 50)).toEqual({
      sessionId: 's1',
      from: 100,
      total: 3000,
      entries: Array.from({ length: 50 }, (_, i) => entry(100 + i)),
    });
    expect(transcriptPage({ state }, 's1', 2990, 50).entries.map((e) => e.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `e${2990 + i}`),
    );
    expect(transcriptPage({ state }, 's1', 5000, 50)).toEqual({ sessionId: 's1', from: 3000, total: 3000, entries: [] });
  });
});
