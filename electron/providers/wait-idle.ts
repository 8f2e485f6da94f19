/** Waiting for a session's turn to end, bounded: what quiescing does before it interrupts. */
import type { ProviderSession } from '../../shared/provider.ts';
import { realTimers, type Timers } from './timers.ts';

/** Resolves true once `session` has no active turn, or false when `timeoutMs` passes first. */
export function waitForIdle(session: ProviderSession, timeoutMs: number, timers: Timers = realTimers): Promise<boolean> {
  if (!session.isTurnActive()) return Promise.resolve(true);
  return new Promise((resolve) => {
    let handle: unknown = null;
    const off = session.onEvent((event) => {
      if ((event.type === 'turn-ended' || event.type === 'exited') && !session.isTurnActive()) finish(true);
    });
    function finish(idle: boolean): void {
      off();
      if (handle !== null) timers.clearTimeout(handle);
      resolve(idle);
    }
    handle = timers.setTimeout(() => finish(!session.isTurnActive()), timeoutMs);
  });
}
