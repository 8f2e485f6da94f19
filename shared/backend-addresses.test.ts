/** Backend address lists: the kept form, and refusals in words that name the bad entry. */
import { describe, expect, it } from 'vitest';
import { BackendUrls, formatBackendList, MAX_BACKEND_ADDRESSES, parseBackendList, parseBackendUrl } from './backend-addresses.ts';

describe('backend addresses', () => {
  it('keeps an address without its trailing slashes, scheme and host in lower case', () => {
    expect(parseBackendUrl(' HTTP://Sync.Example.com:8787/ ')).toEqual({ ok: true, value: 'http://sync.example.com:8787' });
    expect(parseBackendUrl('https://lb.example.com/baton//')).toEqual({ ok: true, value: 'https://lb.example.com/baton' });
    expect(parseBackendUrl('http://[::1]:8787')).toEqual({ ok: true, value: 'http://[::1]:8787' });
  });

  it('parses a list separated by commas, spaces or new lines, dropping duplicates, in order', () => {
    expect(parseBackendList('http://a:1,http://b:2')).toEqual({ ok: true, value: ['http://a:1', 'http://b:2'] });
    expect(parseBackendList('http://b:2\n http://a:1 , http://b:2/')).toEqual({ ok: true, value: ['http://b:2', 'http://a:1'] });
    expect(formatBackendList(['http://a:1', 'http://b:2'])).toBe('http://a:1,http://b:2');
  });

  it('refuses each kind of bad entry with a sentence naming it', () => {
    const refusal = (text: string) => {
      const parsed = parseBackendList(text);
      return parsed.ok ? null : parsed.message;
    };
    expect(refusal('')).toMatch(/no backend address given/);
    expect(refusal('http://a:1,ftp://b')).toBe('"ftp://b" is not an http:// or https:// address');
    expect(refusal('http://a:1,localhost:8787')).toMatch(/^"localhost:8787" is not an http/);
    expect(refusal('http://user:secret@a:1')).toMatch(/carries credentials/);
    expect(refusal('http://a:1/?x=1')).toMatch(/query or fragment/);
    expect(refusal('http://a:70000')).toMatch(/port outside/);
    expect(refusal('http://a b')).toMatch(/^"b" is not an http/);
    expect(refusal('http://exa_mple.com')).toMatch(/not a valid address/);
    const many = Array.from({ length: MAX_BACKEND_ADDRESSES + 1 }, (_, i) => `http://h${i}:1`).join(',');
    expect(refusal(many)).toMatch(`at most ${MAX_BACKEND_ADDRESSES}`);
  });

  it('validates and normalises a list given as an array (the schema of profiles, invites and device API inputs)', () => {
    expect(BackendUrls.parse(['http://a:1/', 'http://a:1'])).toEqual(['http://a:1']);
    const refused = BackendUrls.safeParse(['http://a:1', 'nope']);
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('"nope" is not an http:// or https:// address');
    expect(BackendUrls.safeParse([]).success).toBe(false);
  });
});
