/**
 * A failed connection to a backend address in words a person reads ("nothing answers at that
 * address (connection refused)"), not Node's internals ("fetch failed: connect ECONNREFUSED
 * 127.0.0.1:9"). What it cannot name is kept, without the "fetch failed:" prefix.
 */

const KNOWN: [RegExp, string][] = [
  [/ECONNREFUSED/, 'nothing answers at that address (connection refused)'],
  [/ENOTFOUND|EAI_AGAIN/, 'that host name is not known (check the address)'],
  [/EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL/, 'that host cannot be reached from this network'],
  [/ECONNRESET|socket hang up|EPIPE/, 'the connection was cut before the backend answered'],
  [/ETIMEDOUT|no answer within|timed? ?out/i, 'it did not answer in time'],
  [/cut off/, 'the answer was cut off'],
  [/CERT|certificate|self[- ]signed|SSL|TLS/i, 'its TLS certificate is not one this device trusts'],
];

/** `message` (a transport error's) in words; unknown ones keep their own text. */
export function networkErrorText(message: string): string {
  for (const [pattern, words] of KNOWN) if (pattern.test(message)) return words;
  return message.replace(/^(?:TypeError: )?fetch failed: /, '');
}
