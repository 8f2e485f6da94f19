/**
 * In-process fan-out of push messages to the open streams of each account. With several instances
 * on one database, a relay (postgres-relay.ts) also receives every published message for the other
 * instances, and hands theirs back through `deliver`.
 */
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
  private relay: ((accountId: string, json: string) => void) | undefined;

  /** Passes every message published from now on to `relay` as well; returns the function that stops it. */
  relayTo(relay: (accountId: string, json: string) => void): () => void {
    this.relay = relay;
    return () => {
      if (this.relay === relay) this.relay = undefined;
    };
  }

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

  /** Sends `message` to every open stream of the account (serialised once, whatever their number), and to the relay. */
  publish(accountId: string, message: PushMessage): void {
    const set = this.accounts.get(accountId);
    if (!this.relay && (!set || set.size === 0)) return;
    const json = JSON.stringify(message);
    this.relay?.(accountId, json);
    if (set) for (const subscriber of [...set]) subscriber.send(message, json);
  }

  /**
   * Delivers a message another instance published (its JSON text, as it wrote it) to this instance's
   * streams of the account; a device revoked there loses its streams here too.
   */
  deliver(accountId: string, json: string): void {
    const set = this.accounts.get(accountId);
    if (!set || set.size === 0) return;
    const message = JSON.parse(json) as PushMessage;
    for (const subscriber of [...set]) subscriber.send(message, json);
    if (message.type === 'device' && message.device.status === 'revoked') this.disconnectDevice(accountId, message.device.id);
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
