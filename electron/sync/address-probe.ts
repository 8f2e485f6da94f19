/**
 * Trying backend addresses before a device uses them. Before a device switches to a new list, each
 * address is asked its health (open) and then one signed call (`me`), so an address that does not
 * answer, answers as something else, or is a backend that does not know this device is caught before
 * the device is cut off from the one it uses; the new list is taken when at least one of its
 * addresses passes both, and the answer says, per address, what was found. Before a device joins
 * with an invite, the invite's addresses are tried in turn (health only: the backend does not know
 * the device yet), a few seconds each, until one answers.
 */
import { fail, ok, type Result } from '../../shared/errors.ts';
import { createBackendClient, type BackendClientOptions } from './backend-client.ts';
import type { CallFailure } from './call-result.ts';

/** How long one address may take to answer each of the two asks. */
const PROBE_TIMEOUT_MS = 5_000;
/** How long an invite's address may take to answer before the next is tried. */
const JOIN_PROBE_TIMEOUT_MS = 3_000;

/** Why an address did not answer as a backend, in words after its address. */
function healthFailure(url: string, failure: CallFailure): string {
  if (failure.code === 'unreachable') return `${url}: ${failure.message.replace(/^the backend at \S+ is unreachable: /, '')}`;
  // A refused key or a plain http address: refused before anything was sent, in the refusal's own words.
  if (failure.code.startsWith('backend_')) return `${url}: ${failure.message.replace(/^the backend at \S+ /, 'it ')}`;
  return `${url} answered, but not as a Baton sync backend (${failure.message})`;
}

/** What one address answered, in words (null: it passed). */
async function probeOne(url: string, options: Omit<BackendClientOptions, 'baseUrl'>): Promise<string | null> {
  const client = createBackendClient({ ...options, baseUrl: url, attempts: 1, timeoutMs: PROBE_TIMEOUT_MS });
  const health = await client.call('health');
  if (!health.ok) return healthFailure(url, health);
  const me = await client.call('me');
  if (me.ok) return null;
  if (me.code === 'unauthorized' || me.code === 'not_found')
    return `${url} is a Baton sync backend, but not this account's: it does not know this device`;
  return `${url} refused this device: ${me.message}`;
}

/**
 * Tries `urls` (health, then a signed call as this device); ok when at least one passes both, else
 * why each failed, in one sentence.
 */
export async function probeAddresses(urls: readonly string[], options: Omit<BackendClientOptions, 'baseUrl'>): Promise<Result<void>> {
  const found = await Promise.all(urls.map((url) => probeOne(url, options)));
  if (found.some((why) => why === null)) return ok(undefined);
  const one = urls.length === 1;
  return fail(
    'addresses_unusable',
    `${one ? 'That address does not work' : 'None of those addresses works'} for this device: ${found.join('; ')}.`,
  );
}

/** Addresses tried in turn: the first that answered, and why each one before it did not. */
export interface TurnProbe {
  /** The address that answered (null: none did). */
  answered: string | null;
  /** Why each address tried before it (or every address, when none answered) did not, in words after its address. */
  failures: string[];
  /** Whether every failure was a silence (no answer, refused, timed out), not a refusal of its key or of plain http. */
  silent: boolean;
  /** The code of the last failure that was not a silence (`backend_key_mismatch`…), else `unreachable`. */
  code: string;
}

/**
 * Asks `urls` their health in turn (each at most a few seconds), stopping at the first that answers
 * as a backend; says which, and why the ones before did not.
 */
export async function firstAnswering(urls: readonly string[], options: Omit<BackendClientOptions, 'baseUrl'>): Promise<TurnProbe> {
  const failures: string[] = [];
  let code = 'unreachable';
  for (const url of urls) {
    const client = createBackendClient({ ...options, baseUrl: url, attempts: 1, timeoutMs: JOIN_PROBE_TIMEOUT_MS });
    const health = await client.call('health');
    if (health.ok) return { answered: url, failures, silent: code === 'unreachable', code };
    if (health.code !== 'unreachable') code = health.code;
    failures.push(healthFailure(url, health));
  }
  return { answered: null, failures, silent: code === 'unreachable', code };
}
