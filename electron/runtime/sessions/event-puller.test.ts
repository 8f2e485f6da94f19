/**
 * One read of a session's events at a time, and no caller waits long for it: a read asked for while
 * one runs is answered by one more read after it, however often it is asked (a view re-read over a
 * slow link once waited until nobody asked any more).
 */
import { describe, expect, it } from 'vitest';
import { ok } from '../../../shared/errors.ts';
import { EventPuller, type EventPullerDeps } from './event-puller.ts';

const READ_MS = 60;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A puller whose backend answers each read of the events after READ_MS with no events; `reads` counts them. */
function puller(): { puller: EventPuller; reads: () => number } {
  let reads = 0;
  const session = { id: 's', eventCursor: 0, permissions: { pending: [] } };
  const deps = {
    selfId: 'me',
    state: { readSession: () => session },
    backend: {
      listEvents: async () => {
        reads++;
        await pause(READ_MS);
        return ok([]);
      },
    },
    isRunning: () => false,
  } as unknown as EventPullerDeps;
  return { puller: new EventPuller(deps), reads: () => reads };
}

describe('pulling a session’s events', () => {
  it('answers each caller within the running read and one more, while others keep asking', async () => {
    const { puller: p, reads } = puller();
    let asking = true;
    const askers = (async () => {
      while (asking) {
        void p.pullEvents('s');
        await pause(READ_MS / 3);
      }
    })();
    await pause(READ_MS / 2);
    const started = performance.now();
    await p.pullEvents('s');
    const waited = performance.now() - started;
    asking = false;
    await askers;
    // At most the rest of the running read and one whole read more (timers fire late on a busy machine).
    expect(waited).toBeLessThan(3 * READ_MS + 100);
    expect(waited).toBeGreaterThanOrEqual(READ_MS - 1);
    expect(reads()).toBeGreaterThanOrEqual(2);
  });

  it('reads once more for any number asking while one read runs, and not at all for an event already read', async () => {
    const { puller: p, reads } = puller();
    const first = p.pullEvents('s');
    await Promise.all([first, ...Array.from({ length: 5 }, () => p.pullEvents('s'))]);
    expect(reads()).toBe(2);
    await p.pullEvents('s', 0);
    expect(reads()).toBe(2);
    await p.pullEvents('s');
    expect(reads()).toBe(3);
  });
});
