import { describe, expect, it } from 'vitest';
import { normalizeRemote, sameRemote } from './remote-url.ts';

describe('remote URL normalization', () => {
  it.each([
    ['git@github.com:acme/app.git', 'github.com/acme/app'],
    ['github.com:acme/app', 'github.com/acme/app'],
    ['https://github.com/acme/app', 'github.com/acme/app'],
    ['https://github.com/acme/app.git/', 'github.com/acme/app'],
    ['https://user:token@GitHub.com:443/acme/app.git', 'github.com/acme/app'],
    ['ssh://git@github.com/acme/app.git', 'github.com/acme/app'],
    ['ssh://github.com:22/acme/app', 'github.com/acme/app'],
    ['git://github.com/acme/app.git', 'github.com/acme/app'],
    ['ssh://git@gitlab.example.com/group/sub/app.git', 'gitlab.example.com/group/sub/app'],
    ['/srv/git/app.git', 'file:/srv/git/app.git'],
    ['/srv/git/app.git/', 'file:/srv/git/app.git'],
    ['file:///srv/git/app.git', 'file:/srv/git/app.git'],
    ['/srv/git/../git/app.git', 'file:/srv/git/app.git'],
  ])('normalizes %s to %s', (url, key) => {
    expect(normalizeRemote(url)).toBe(key);
  });

  it('matches the scp, https and ssh forms of one repository and tells different ones apart', () => {
    const forms = [
      'git@github.com:acme/app.git',
      'https://github.com/acme/app',
      'ssh://git@github.com/acme/app.git',
      'ssh://github.com:22/acme/app',
    ];
    for (const a of forms) for (const b of forms) expect(sameRemote(a, b)).toBe(true);
    expect(sameRemote('git@github.com:acme/app.git', 'git@github.com:acme/other.git')).toBe(false);
    expect(sameRemote('git@github.com:acme/app.git', 'git@gitlab.com:acme/app.git')).toBe(false);
    expect(sameRemote('/srv/a.git', 'file:///srv/a.git')).toBe(true);
  });

  it('resolves relative paths against the given base and rejects empty input', () => {
    expect(normalizeRemote('../origin.git', '/work/clone')).toBe('file:/work/origin.git');
    expect(normalizeRemote('   ')).toBeNull();
    expect(sameRemote('', '')).toBe(false);
  });
});
