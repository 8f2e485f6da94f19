/**
 * In-process fan-out of push messages to the open streams of each account. A published message goes
 * to the push log first (push-log.ts: in memory for one instance, the shared table between instances
 * on one database), which hands it back through `deliver` with its position in the log.
 */
import type { PushMessage } from '../../shared/api/push.ts';
import type { LogDelivery, PushLog } from './push-log.ts';

export interface PushSubscriber {
  deviceId: string;
  /**
   * Delivers `message`; `json` is its JSON text, made once per publish for every subscriber;
   * `position` its place in the push log (undefined when it could not be logged).
   */
  send(message: PushMessage, json: string, position?: number): void;
  close(): void;
}

/** Delivers each published message to every subscriber of its account, through the log when there is one. */
export class PushHub implements LogDelivery {
  private readonly accounts = new Map<string, Set<PushSubscriber>>();
  private pushLog: PushLog | undefined;

  /** Sends every message published from now on through `log`; returns the function that stops it. */
  attachLog(log: PushLog): () => void {
    this.pushLog = log;
    return () => {
      if (this.pushLog === log) this.pushLog = undefined;
    };
  }

  /** The push log messages go through, if one is attached. */
  get log(): PushLog | undefined {
    return this.pushLog;
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

  /**
   * Sends `message` (serialised once, whatever the number of streams) to the log, which delivers it
   * to every open stream of the account with its position; without a log, straight to the streams.
   */
  publish(accountId: string, message: PushMessage): void {
    if (!this.pushLog && !this.accounts.get(accountId)?.size) return;
    const json = JSON.stringify(message);
    if (this.pushLog) this.pushLog.append(accountId, json);
    else this.deliver(accountId, json);
  }

  /**
   * Resolves once every message published before the call has its place in the log, so whatever is
   * published after (through this instance or another on the database) comes after it in every stream.
   */
  async published(): Promise<void> {
    await this.pushLog?.written();
  }

  /**
   * Delivers a logged message (its JSON text as published, on this instance or another) to this
   * instance's streams of the account; a device revoked anywhere loses its streams here too.
   */
  deliver(accountId: string, json: string, position?: number): void {
    const set = this.accounts.get(accountId);
    if (!set || set.size === 0) return;
    const message = JSON.parse(json) as PushMessage;
    for (const subscriber of [...set]) subscriber.send(message, json, position);
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
