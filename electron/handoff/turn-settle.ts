/** The source's wait for a running provider turn before it takes the checkpoint: the turn's end, or an interrupt. */
import type { ProviderSession } from '../../shared/provider.ts';

/** Waits until the provider's turn ends or `ms` pass; interrupts it when still running. */
export async function settleTurn(provider: ProviderSession, ms: number): Promise<'idle' | 'ended' | 'interrupted'> {
  if (!provider.isTurnActive()) return 'idle';
  const ended = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(false);
    }, ms);
    const unsubscribe = provider.onEvent((event) => {
      if ((event.type === 'turn-ended' && !provider.isTurnActive()) || event.type === 'exited') {
        clearTimeout(timer);
        unsubscribe();
        resolve(true);
      }
    });
    if (!provider.isTurnActive()) {
      clearTimeout(timer);
      unsubscribe();
      resolve(true);
    }
  });
  if (ended) return 'ended';
  await provider.interrupt();
  return 'interrupted';
}
