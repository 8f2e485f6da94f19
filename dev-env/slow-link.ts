/**
 * A slow, lossy network link in user space (netem is not available in these kernels), which
 * tcp-relay.ts passes each relayed connection's bytes through: a delay added each way, a bandwidth
 * cap per direction shared by every connection over the link (one device's access link), and loss.
 *
 * Loss is modelled as the delay TCP's retransmission makes of it, never as missing bytes (TCP loses
 * none) and never as a reset: each segment (MSS bytes) is lost with the given probability and then
 * arrives one retransmission timeout later (twice that again for each loss of its retransmission),
 * and everything behind it on its connection waits for it, as TCP delivers in order. A new
 * connection's handshake costs a round trip before its first byte goes up (a lost SYN: the initial
 * 1 s timeout, doubling). Not modelled: congestion control (slow start, the window halving on a
 * loss), fast retransmit, reordering, jitter.
 */

/** What the link does to what crosses it; null passes everything at once. */
export interface LinkConditions {
  /** Added each way, ms: a round trip takes twice this longer. */
  delayMs: number;
  /** Each direction's cap in bits per second, shared by every connection over the link; unset: none. */
  bitsPerSecond?: number;
  /** The probability that a segment is lost, 0–1 (it then arrives a retransmission timeout late). */
  loss?: number;
  /** A lost segment's retransmission timeout, ms; default 200 ms (Linux's least) plus a round trip. */
  rtoMs?: number;
  /** Seeds the loss draws, so a run can be repeated; default a random seed. */
  seed?: number;
}

export type Direction = 'up' | 'down';

/** Where a lane delivers: the receiving socket, and the sender it may stop reading from. */
export interface LaneEnds {
  write(bytes: Buffer): void;
  end(): void;
  /** Stop (true) or go on (false) reading from the sending side: the lane holds enough. */
  backpressure(stop: boolean): void;
}

/** Ethernet's TCP payload per segment. */
const MSS = 1448;
/** A lost SYN is sent again after this long (RFC 6298's initial timeout). */
const SYN_RTO_MS = 1000;
/** A lane stops reading from its sender above this many undelivered bytes (the sender's buffer), and goes on below half of it. */
export const LANE_HIGH_WATER = 256 * 1024;

/** A small seeded generator (mulberry32): the same seed draws the same losses. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One link: the conditions now, each direction's queue for the cap, and whether it is held (a partition). */
export class SlowLink {
  private conditions: LinkConditions | null = null;
  private draw: () => number = Math.random;
  /** When each direction's wire is next free (the cap serialises what crosses it). */
  private readonly freeAt: Record<Direction, number> = { up: 0, down: 0 };
  private readonly lanes = new Set<Lane>();
  private heldNow = false;

  /** Sets what the link does from now on (null: nothing); bytes already on their way keep their times. */
  set(conditions: LinkConditions | null): void {
    this.conditions = conditions;
    this.draw = seeded(conditions?.seed ?? Math.floor(Math.random() * 2 ** 32));
    for (const lane of this.lanes) lane.wake();
  }

  get current(): LinkConditions | null {
    return this.conditions;
  }

  get held(): boolean {
    return this.heldNow;
  }

  /** Holds everything on the link until `release`: nothing is delivered either way meanwhile. */
  hold(): void {
    this.heldNow = true;
  }

  /** Delivers what was held (what is due at once, as TCP does once a partition heals). */
  release(): void {
    this.heldNow = false;
    for (const lane of this.lanes) lane.wake();
  }

  /** A new lane of one connection in one direction; `notBefore` is when its first byte may go. */
  lane(direction: Direction, ends: LaneEnds, notBefore = 0): Lane {
    const lane = new Lane(this, direction, ends, notBefore);
    this.lanes.add(lane);
    return lane;
  }

  forget(lane: Lane): void {
    this.lanes.delete(lane);
  }

  /** When a connection opened at `now` may send its first byte: after its handshake's round trip (and any lost SYN). */
  handshakeDone(now: number): number {
    const c = this.conditions;
    if (!c) return now;
    return now + 2 * c.delayMs + this.retransmissions(SYN_RTO_MS);
  }

  /** The extra delay of a segment's losses: `rto` for the first, doubling for each loss of its retransmission. */
  private retransmissions(rto: number): number {
    const loss = this.conditions?.loss ?? 0;
    let extra = 0;
    for (let timeout = rto; loss > 0 && this.draw() < loss && timeout < 120_000; timeout *= 2) extra += timeout;
    return extra;
  }

  /** When a segment of `bytes` sent `direction` at `sentAt` arrives (unordered: its lane keeps the order). */
  arrival(direction: Direction, bytes: number, sentAt: number): number {
    const c = this.conditions;
    if (!c) return sentAt;
    let onWire = sentAt;
    if (c.bitsPerSecond) {
      const start = Math.max(sentAt, this.freeAt[direction]);
      onWire = start + (bytes * 8 * 1000) / c.bitsPerSecond;
      this.freeAt[direction] = onWire;
    }
    return onWire + c.delayMs + this.retransmissions(c.rtoMs ?? 200 + 2 * c.delayMs);
  }
}

/** What is on its way in a lane: a segment, or the sender's end (null). */
interface InFlight {
  at: number;
  bytes: Buffer | null;
}

/** One direction of one connection: its segments in order, each delivered at its time. */
export class Lane {
  private items: InFlight[] = [];
  private head = 0;
  private queued = 0;
  private lastAt = 0;
  private stopped = false;
  private closed = false;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly link: SlowLink,
    private readonly direction: Direction,
    private readonly ends: LaneEnds,
    private readonly notBefore: number,
  ) {}

  /** Sends `bytes` across the link (null: the sender ended). */
  send(bytes: Buffer | null): void {
    if (this.closed) return;
    const now = performance.now();
    if (!this.link.current && !this.link.held && this.head === this.items.length) {
      if (bytes) this.ends.write(bytes);
      else this.ends.end();
      return;
    }
    const sentAt = Math.max(now, this.notBefore);
    if (!bytes) this.items.push({ at: Math.max(this.lastAt, sentAt), bytes: null });
    else
      for (let offset = 0; offset < bytes.length; offset += MSS) {
        const segment = bytes.subarray(offset, offset + MSS);
        this.lastAt = Math.max(this.lastAt, this.link.arrival(this.direction, segment.length, sentAt));
        this.items.push({ at: this.lastAt, bytes: segment });
        this.queued += segment.length;
      }
    if (!this.stopped && this.queued > LANE_HIGH_WATER) {
      this.stopped = true;
      this.ends.backpressure(true);
    }
    this.arm();
  }

  /** Looks again at what is due (the link was released or its conditions changed). */
  wake(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flush();
  }

  /** Drops whatever is still on its way (the connection is gone). */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.items = [];
    this.head = 0;
    this.link.forget(this);
  }

  private flush(): void {
    this.timer = null;
    if (this.closed || this.link.held) return;
    // Without conditions, everything queued is due now (in order).
    const due = this.link.current ? performance.now() + 0.5 : Infinity;
    const out: Buffer[] = [];
    let ended = false;
    while (this.head < this.items.length && this.items[this.head]!.at <= due) {
      const item = this.items[this.head++]!;
      if (item.bytes) {
        out.push(item.bytes);
        this.queued -= item.bytes.length;
      } else ended = true;
      if (ended) break;
    }
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    if (out.length > 0) this.ends.write(out.length === 1 ? out[0]! : Buffer.concat(out));
    if (ended) this.ends.end();
    if (this.stopped && this.queued < LANE_HIGH_WATER / 2) {
      this.stopped = false;
      this.ends.backpressure(false);
    }
    this.arm();
  }

  private arm(): void {
    if (this.timer || this.closed || this.link.held || this.head === this.items.length) return;
    const wait = this.link.current ? Math.max(0, this.items[this.head]!.at - performance.now()) : 0;
    this.timer = setTimeout(() => this.flush(), wait);
  }
}
