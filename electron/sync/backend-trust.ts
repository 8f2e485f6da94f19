/**
 * Which keys a device accepts from its backend, checked on every TLS connection before a byte of a
 * request goes out on it. With pins (from the invite, or confirmed at the account's first contact)
 * the certificate must carry one of the pinned public keys, whoever signed it and whatever names it
 * gives (a self-signed key included); without pins the system's trust store must vouch for the
 * certificate and its names (a public CA's). A pin, when there is one, is checked in either case.
 * A refused key is remembered — the UI shows it beside the pinned ones and offers to re-pin — and the
 * request fails as a value with nothing sent. Before a request to an address is even signed,
 * `admit` makes sure this process has seen that address present an accepted key: one handshake,
 * the first time and after any refusal (see the agents in tls-agents.ts for the connections).
 */
import type { BackendKeyProbe, BackendKeyView, KeyRefusalView } from '../../shared/backend-keys.ts';
import type { CallFailure } from './call-result.ts';
import type { AgentPair } from './http-transport.ts';
import { handshake, peerFingerprint, verifyingAgents } from './tls-agents.ts';
import type { TLSSocket } from 'node:tls';

export type KeyRefusalCode = 'backend_key_mismatch' | 'backend_key_untrusted';

/** A connection refused for the key it presented: nothing was sent on it. */
export class BackendKeyRefused extends Error {
  readonly code: KeyRefusalCode;

  constructor(
    readonly refusal: KeyRefusalView,
    pinned: readonly string[],
    authorizationError: string | null,
  ) {
    const { url, presented } = refusal;
    super(
      refusal.reason === 'mismatch'
        ? `the backend at ${url} presented the key ${presented}, not the pinned ${pinned.join(' or ')}, so nothing was sent to it; ` +
            'if its key was changed on purpose, re-pin it (Devices → Sync backend, or --backend-pin)'
        : `the backend at ${url} presents a certificate no authority this system trusts vouches for (${authorizationError ?? 'untrusted'}); ` +
            `its key is ${presented}. Pin it: join with an invite (it carries the key), or confirm the key when creating the account ` +
            `(baton device --backend-pin ${presented})`,
    );
    this.code = refusal.reason === 'mismatch' ? 'backend_key_mismatch' : 'backend_key_untrusted';
  }
}

/**
 * A plain http:// address refused by a device that pins its backend's key: what it sends there would
 * cross the network readable (ids, states, sizes, signed requests), so nothing is sent.
 */
export class PlainHttpRefused extends Error {
  readonly code = 'backend_plain_http' as const;

  constructor(readonly url: string) {
    super(
      `this device pins its backend's key, so it sends nothing to ${url}, a plain http:// address where it would cross the network ` +
        "readable: use the backend's https:// address",
    );
  }
}

/** A connection refused before anything was sent on it: for the key it presented, or for being plain http. */
export type TrustRefusal = BackendKeyRefused | PlainHttpRefused;

/** The refusal an error is, or was caused by (transports wrap it); null for any other error. */
export function keyRefusalOf(error: unknown): TrustRefusal | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof BackendKeyRefused || e instanceof PlainHttpRefused) return e;
  }
  return null;
}

/** A refusal as a call's failure value. */
export function keyFailure(refused: TrustRefusal): CallFailure {
  return { ok: false, status: 0, code: refused.code, message: refused.message };
}

export class BackendTrust {
  private pins: string[];
  private refusal: KeyRefusalView | null = null;
  /** Addresses seen presenting an accepted key since the pins last changed (or a key was last refused). */
  private readonly admitted = new Set<string>();
  private readonly admitting = new Map<string, Promise<void>>();
  private readonly listeners = new Set<() => void>();
  private current = verifyingAgents(this);
  /** The agents a client's requests go through: the verifying ones for https, the shared ones for http. */
  readonly agents: AgentPair = {
    request: (url) => this.current.request(url),
    stream: (url) => this.current.stream(url),
  };

  /** `pins`: the fingerprints to accept (empty: what the system's trust store vouches for). */
  constructor(
    pins: readonly string[] = [],
    private readonly clock: () => number = Date.now,
  ) {
    this.pins = [...pins];
  }

  /** The pinned fingerprints, and the last key refused. */
  view(): BackendKeyView {
    return { pinned: [...this.pins], refused: this.refusal && { ...this.refusal } };
  }

  /**
   * Accepts `pins` from now on: addresses are admitted afresh, the connections opened under the old
   * pins are dropped, the last refusal forgotten, and the listeners told.
   */
  setPins(pins: readonly string[]): void {
    this.pins = [...pins];
    this.refusal = null;
    this.admitted.clear();
    const old = this.current;
    this.current = verifyingAgents(this);
    old.destroy();
    this.changed();
  }

  /** Calls `listener` when the pins change or a key is refused; returns its unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Checks the key a TLS connection to `url` presented: null when accepted, else the refusal (remembered). */
  check(url: string, socket: TLSSocket): BackendKeyRefused | null {
    const presented = peerFingerprint(socket);
    const accepted = this.pins.length > 0 ? presented !== null && this.pins.includes(presented) : socket.authorized;
    if (accepted) {
      // The address that was refused presents an accepted key again (its old key restored): the refusal is over.
      if (this.refusal?.url === url) {
        this.refusal = null;
        this.changed();
      }
      return null;
    }
    const reason = this.pins.length > 0 ? 'mismatch' : 'untrusted';
    const refusal: KeyRefusalView = { url, presented: presented ?? 'none', reason, at: this.clock() };
    this.refusal = refusal;
    this.admitted.clear();
    this.changed();
    const why = socket.authorizationError;
    return new BackendKeyRefused(refusal, this.pins, why === null || why === undefined ? null : String(why));
  }

  /**
   * Resolves once `url` was seen presenting an accepted key (at once for an address already admitted,
   * and for plain http while nothing is pinned); rejects with the refusal (plain http while a key is
   * pinned is refused outright), or when the address cannot be reached.
   */
  async admit(url: string, timeoutMs: number): Promise<void> {
    if (!url.startsWith('https:')) {
      if (this.pins.length > 0) throw new PlainHttpRefused(url);
      return;
    }
    if (this.admitted.has(url)) return;
    let pending = this.admitting.get(url);
    if (!pending) {
      const pins = this.pins;
      pending = handshake(url, timeoutMs)
        .then((socket) => {
          const refused = this.check(url, socket);
          socket.destroy();
          if (refused) throw refused;
          // Admitted under the pins it was checked against, not newer ones set meanwhile.
          if (pins === this.pins) this.admitted.add(url);
        })
        .finally(() => this.admitting.delete(url));
      this.admitting.set(url, pending);
    }
    return pending;
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/**
 * A failover attempt that first admits its address (so nothing is signed for a refused key), and the
 * refusal it last met, for the call's failure value.
 */
export function admittedAttempt<T>(
  trust: BackendTrust,
  timeoutMs: number,
  attempt: (url: string) => Promise<T>,
): { attempt: (url: string) => Promise<T>; refused: () => TrustRefusal | null } {
  let refused: TrustRefusal | null = null;
  return {
    attempt: async (url) => {
      try {
        await trust.admit(url, timeoutMs);
        return await attempt(url);
      } catch (error) {
        // A refused key fails the attempt in its own words, not a transport's.
        const refusal = keyRefusalOf(error);
        refused = refusal ?? refused;
        throw refusal ?? error;
      }
    },
    refused: () => refused,
  };
}

/**
 * What first contact with `url` finds, sending nothing: the key it presents and whether the system's
 * trust store vouches for its certificate and name (then no pin is needed). Plain http has no key.
 */
export async function probeBackendKey(url: string, timeoutMs = 10_000): Promise<BackendKeyProbe> {
  if (!url.startsWith('https:')) return { url, presented: null, trusted: false, error: null };
  try {
    const socket = await handshake(url, timeoutMs);
    const probe = { url, presented: peerFingerprint(socket), trusted: socket.authorized, error: null };
    socket.destroy();
    return probe;
  } catch (error) {
    return { url, presented: null, trusted: false, error: (error as Error).message };
  }
}
