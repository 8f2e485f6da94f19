/**
 * Trying backend addresses before a device switches to them: each is asked its health (open) and
 * then one signed call (`me`), so an address that does not answer, answers as something else, or
 * is a backend that does not know this device is caught before the device is cut off from the one
 * it uses. The new list is taken when at least one of its addresses passes both; the answer says,
 * per address, what was found.
 */
import { fail, ok, type Result } from '../../shared/errors.ts';
import { createBackendClient, type BackendClientOptions } from './backend-client.ts';

/** How long one address may take to answer each of the two asks. */
const PROBE_TIMEOUT_MS = 5_000;

/** What one address answered, in words (null: it passed). */
async function probeOne(url: string, options: Omit<BackendClientOptions, 'baseUrl'>): Promise<string | null> {
  const client = createBackendClient({ ...options, baseUrl: url, attempts: 1, timeoutMs: PROBE_TIMEOUT_MS });
  const health = await client.call('health');
  if (!health.ok) {
    if (health.code === 'unreachable') return `${url}: ${health.message.replace(/^the backend at \S+ is unreachable: /, '')}`;
    return `${url} answered, but not as a Baton sync backend (${health.message})`;
  }
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
