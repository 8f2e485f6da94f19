import { describe, expect, it } from 'vitest';
import { redactCredentials, redactUrl, withoutRedactedCredentials } from './url-credentials.ts';

describe('redacting credentials in URLs', () => {
  it.each([
    ['http://user:password@host/repo.git', 'http://user:***@host/repo.git'],
    ['https://x-access-token:ghs_TOKEN123@github.com/acme/app.git', 'https://x-access-token:***@github.com/acme/app.git'],
    ['https://ghp_TOKEN123@github.com/acme/app', 'https://***@github.com/acme/app'],
    ['HTTPS://oauth2:glpat-xyz@GitLab.example.com:8443/g/app.git', 'HTTPS://oauth2:***@GitLab.example.com:8443/g/app.git'],
    ['ssh://git:hunter2@host/repo.git', 'ssh://git:***@host/repo.git'],
    ['http://us%40er:p%3Ass@host/x', 'http://us%40er:***@host/x'],
  ])('redacts %s as %s', (url, redacted) => {
    expect(redactCredentials(url)).toBe(redacted);
  });

  it.each([
    'git@github.com:acme/app.git',
    'ssh://git@github.com/acme/app.git',
    'https://github.com/acme/app.git',
    '/srv/git/app.git',
    'file:///srv/git/app.git',
    'mail me at someone@example.com',
  ])('leaves %s alone: no credentials in it', (text) => {
    expect(redactCredentials(text)).toBe(text);
  });

  it('redacts every URL inside a sentence or a git error, and is idempotent', () => {
    const line =
      "This device cannot get main of http://me:s3cret@127.0.0.1:9/app.git: fatal: unable to access 'https://x-access-token:tok@h/r.git/': refused";
    const once = redactCredentials(line);
    expect(once).toBe(
      "This device cannot get main of http://me:***@127.0.0.1:9/app.git: fatal: unable to access 'https://x-access-token:***@h/r.git/': refused",
    );
    expect(redactCredentials(once)).toBe(once);
    expect(redactUrl(null)).toBeNull();
  });

  it('turns a redacted URL back into one git can use with its own credentials', () => {
    expect(withoutRedactedCredentials('http://user:***@host/repo.git')).toBe('http://user@host/repo.git');
    expect(withoutRedactedCredentials('https://***@github.com/acme/app')).toBe('https://github.com/acme/app');
    expect(withoutRedactedCredentials('ssh://git@github.com/acme/app.git')).toBe('ssh://git@github.com/acme/app.git');
    expect(withoutRedactedCredentials('/srv/git/app.git')).toBe('/srv/git/app.git');
  });
});
