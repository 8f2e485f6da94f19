import { describe, expect, it } from 'vitest';
import { networkErrorText } from './network-error-text.ts';

describe('a failed connection in words', () => {
  it("names what happened instead of Node's internals", () => {
    expect(networkErrorText('fetch failed: connect ECONNREFUSED 127.0.0.1:9')).toBe('nothing answers at that address (connection refused)');
    expect(networkErrorText('fetch failed: getaddrinfo ENOTFOUND backend.invalid')).toBe('that host name is not known (check the address)');
    expect(networkErrorText('fetch failed: no answer within 30000 ms')).toBe('it did not answer in time');
    expect(networkErrorText('fetch failed: socket hang up')).toBe('the connection was cut before the backend answered');
    expect(networkErrorText('fetch failed: self-signed certificate')).toBe('its TLS certificate is not one this device trusts');
  });

  it('keeps what it cannot name, without the transport prefix', () => {
    expect(networkErrorText('fetch failed: something odd')).toBe('something odd');
  });
});
