import { describe, expect, it } from 'vitest';
import { compareVersions, detectedVersion, olderCliReason, parseCliVersion, publishedVersions } from './cli-version.ts';
import type { ProviderView } from './device-api.ts';

const view = (id: string, version: string | null, available = true): ProviderView => ({
  id,
  label: id,
  available,
  version,
  checkpointImport: true,
  permissions: true,
  adoption: true,
});

describe('provider CLI versions', () => {
  it('reads the version out of what each CLI prints for --version', () => {
    expect(parseCliVersion('2.1.332 (Claude Code)')).toBe('2.1.332');
    expect(parseCliVersion('codex-cli 0.171.0')).toBe('0.171.0');
    expect(parseCliVersion('codex-cli 0.0.0-standin')).toBe('0.0.0');
    expect(parseCliVersion('built in')).toBeNull();
    expect(parseCliVersion(null)).toBeNull();
  });

  it('compares versions by number, not by text', () => {
    expect(compareVersions('2.1.300', '2.1.332')).toBeLessThan(0);
    expect(compareVersions('2.10.0', '2.9.99')).toBeGreaterThan(0);
    expect(compareVersions('0.171.0', '0.171.0')).toBe(0);
  });

  it('publishes the versions of available CLIs only', () => {
    const views = [view('demo', 'built in'), view('claude-code', '2.1.332 (Claude Code)'), view('codex', 'codex-cli 0.171.0', false)];
    expect(publishedVersions(views)).toEqual({ 'claude-code': '2.1.332' });
    expect(detectedVersion(views, 'codex')).toBeNull();
  });

  it('gives a reason only when the target is older than the version that wrote the session', () => {
    expect(olderCliReason('codex', { name: 'desktop', version: '0.170.9' }, '0.171.0')?.message).toBe(
      'desktop has Codex 0.170.9, older than the Codex 0.171.0 this session was written with, ' +
        'so the session continues from a summary instead of resuming the same Codex session.',
    );
    expect(olderCliReason('codex', { name: 'desktop', version: '0.171.0' }, '0.171.0')).toBeNull();
    expect(olderCliReason('codex', { name: 'desktop', version: null }, '0.171.0')).toBeNull();
  });
});
