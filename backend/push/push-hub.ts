/** In-process fan-out of push messages to the open streams of each account. */
import type { PushMessage } from '../../shared/api/push.ts';

export interface PushSubscriber {
  deviceId: string;
  /** Delivers `message`; `json` is its JSON text, made once per publish for every subscriber. */
  send(message: PushMessage, json: string): void;
  close(): void;
}

/** Delivers each published message to every subscriber of its account, right away. */
export class PushHub {
  private readonly accounts = new Map<string, Set<PushSubscriber>>();

  /**
   * Adds a subscriber; returns its unsubscribe function. A device holds at most `maxPerDevice`
   * subscriptions: beyond that its oldest is closed (a reconnecting device wins over its stale stream).
   */
  subscribe(accountId: string, subscriber: PushSubscriber, maxPerDevice = Infinity): () => void {
    let set = this.accounts.get(accountId);
    if (!set) this.accounts.set(accountId, (set = new Set()));
    set.add(subscriber);
    const own = [...set].filter((s) => s.deviceId === subscriber.deviceId);
    for (const stale of own.slice(0, Math.max(0, own.length - maxPerDevice))) stale.close();
    return () => {
      set.delete(subscriber);
      if (set.size === 0 && this.accounts.get(accountId) === set) this.accounts.delete(accountId);
    };
  }

  /** Sends `message` to every open stream of the account (serialised once, whatever their number). */
  publish(accountId: string, message: PushMessage): void {
    const set = this.accounts.get(accountId);
    if (!set || set.size === 0) return;
    const json = JSON.stringify(message);
    for (const subscriber of [...set]) subscriber.send(message, json);
  }

  /** Closes every stream a device holds (it was revoked). */
  disconnectDevice(accountId: string, deviceId: string): void {
    for (const subscriber of [...(this.accounts.get(accountId) ?? [])]) if (subscriber.deviceId === deviceId) subscriber.close();
  }

  /** Closes every stream (shutdown). */
  closeAll(): void {
    for (const set of [...this.accounts.values()]) for (const subscriber of [...set]) subscriber.close();
  }

  /** How many streams are open (for tests and health). */
  get size(): number {
    let n = 0;
    for (const set of this.accounts.values()) n += set.size;
    return n;
  }
}
