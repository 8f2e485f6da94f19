/**
 * One request over several backend addresses. Each round tries every address once, starting at the
 * current one; an address that cannot be reached, times out or answers 5xx is passed over for the
 * next, while an answer below 500 — a success or a refusal (4xx) — ends the request there: a refusal
 * is the backend's word, and another instance of the same backend would say the same. Rounds repeat
 * after a pause. The backend counts as unreachable when every attempt found no connection, timed
 * out or got a gateway's 502/503/504; an instance that answered another 5xx was reached, though it
 * failed. A resend is safe: every mutating call carries an idempotency key that stays the
 * same across addresses and rounds (backend-client.ts), and blobs are content-addressed.
 */
import type { AddressRing } from './address-ring.ts';
import { networkErrorText } from './network-error-text.ts';
import type { ReachabilityTracker } from './reachability.ts';

export interface FailoverPlan {
  ring: AddressRing;
  reachability: ReachabilityTracker;
  /** Rounds over every address (at least 1). */
  rounds: number;
  /** Waits before round `round` (1, 2, …). */
  pause(round: number): Promise<void>;
}

/** The outcome: an answer below 500 from `url`, or every address failed (`last`: the last 5xx, if any). */
export type FailoverOutcome<T> =
  { kind: 'answered'; url: string; answer: T } | { kind: 'unavailable'; tried: string[]; lastError: string; last: T | null };

/** Whether `status` is what a load balancer or proxy answers when no instance behind it does (502, 503, 504). */
export function isGatewayFailure(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

/** The pause between rounds the client uses: 100 ms, then 300 ms, 900 ms… */
export const backoffPause = (round: number) => new Promise<void>((resolve) => setTimeout(resolve, 100 * 3 ** (round - 1)));

/**
 * Runs `attempt` against the addresses in turn until one answers below 500 (see the file header);
 * tells the ring which address works and the tracker whether the backend was reached.
 */
export async function tryInTurn<T extends { status: number }>(
  plan: FailoverPlan,
  attempt: (url: string) => Promise<T>,
): Promise<FailoverOutcome<T>> {
  let lastError = 'no attempt made';
  let last: T | null = null;
  let tried: string[] = [];
  let failedButAnswered: string | null = null;
  for (let round = 0; round < Math.max(1, plan.rounds); round++) {
    if (round > 0) await plan.pause(round);
    tried = plan.ring.order();
    for (const url of tried) {
      try {
        const answer = await attempt(url);
        if (answer.status < 500) {
          plan.ring.answered(url);
          plan.reachability.reached(url);
          return { kind: 'answered', url, answer };
        }
        last = answer;
        lastError = `${url} answered HTTP ${answer.status}`;
        if (!isGatewayFailure(answer.status)) failedButAnswered = url;
      } catch (error) {
        last = null;
        lastError = networkErrorText((error as Error).message);
      }
      plan.ring.failed(url);
    }
  }
  if (failedButAnswered) plan.reachability.reached(failedButAnswered);
  else plan.reachability.unreachable(tried, lastError);
  return { kind: 'unavailable', tried, lastError, last };
}
