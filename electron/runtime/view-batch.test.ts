import { describe, expect, it } from 'vitest';
import { ViewBatch, type ViewChanges } from './view-batch.ts';

const turnEnd = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ViewBatch', () => {
  it('sends what changed during a turn once, after the turn, each session and handoff once', async () => {
    const sent: ViewChanges[] = [];
    const batch = new ViewBatch((changes) => sent.push(changes));
    batch.handoff('h1');
    batch.session('s1');
    batch.handoff('h1');
    batch.session('s1');
    batch.sessionList();
    expect(sent).toEqual([]);
    expect(batch.sessionPending('s1')).toBe(true);
    await turnEnd();
    expect(sent).toEqual([{ sessions: new Set(['s1']), handoffs: new Set(['h1']), list: true }]);
    expect(batch.sessionPending('s1')).toBe(false);
  });

  it('sends what waits at once when asked (before a step’s progress), and nothing more at the turn’s end', async () => {
    const sent: ViewChanges[] = [];
    const batch = new ViewBatch((changes) => sent.push(changes));
    batch.sendNow();
    expect(sent).toEqual([]);
    batch.handoff('h1');
    batch.sendNow();
    expect(sent).toEqual([{ sessions: new Set(), handoffs: new Set(['h1']), list: true }]);
    await turnEnd();
    expect(sent).toHaveLength(1);
    // What changes after is batched again.
    batch.session('s1');
    await turnEnd();
    expect(sent).toEqual([
      { sessions: new Set(), handoffs: new Set(['h1']), list: true },
      { sessions: new Set(['s1']), handoffs: new Set(), list: true },
    ]);
  });

  it('sends a later turn on its own, and only the list when only the list changed', async () => {
    const sent: ViewChanges[] = [];
    const batch = new ViewBatch((changes) => sent.push(changes));
    batch.session('s1');
    await turnEnd();
    batch.sessionList();
    await turnEnd();
    expect(sent).toEqual([
      { sessions: new Set(['s1']), handoffs: new Set(), list: true },
      { sessions: new Set(), handoffs: new Set(), list: true },
    ]);
  });
});
