/**
 * Provider CLI versions: what `claude --version` ("2.1.332 (Claude Code)") and `codex --version`
 * ("codex-cli 0.171.0") say, as a plain version, and whether a target's CLI can read what the
 * source's CLI wrote. A CLI reads the session files of its own and older versions; one older than
 * the version that wrote a session may not, so that session continues there from a summary.
 */
import { PROVIDER_LABELS, type ProviderId } from './provider.ts';
import type { ProviderView } from './device-api.ts';
import type { CodedMessage } from './errors.ts';

/** The first `MAJOR.MINOR.PATCH` in a `--version` line, or null when it has none. */
export function parseCliVersion(line: string | null | undefined): string | null {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(line ?? '');
  return match ? `${Number(match[1])}.${Number(match[2])}.${Number(match[3])}` : null;
}

/** Negative when `a` is older than `b`, zero when equal, positive when newer (both `MAJOR.MINOR.PATCH`). */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i += 1) {
    const d = (x![i] ?? 0) - (y![i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Why the target's CLI cannot import a session the source's CLI wrote, or null when it can (or when
 * either version is unknown, e.g. the demo agent or a device that does not publish versions).
 */
export function olderCliReason(
  provider: ProviderId,
  target: { name: string; version: string | null },
  sourceVersion: string | null,
): CodedMessage | null {
  if (target.version === null || sourceVersion === null || compareVersions(target.version, sourceVersion) >= 0) return null;
  const label = PROVIDER_LABELS[provider];
  return {
    code: 'target_provider_older',
    message:
      `${target.name} has ${label} ${target.version}, older than the ${label} ${sourceVersion} this session was written with, ` +
      `so the session continues from a summary instead of resuming the same ${label} session.`,
  };
}

/** The version of `provider` among detected providers, when it is available and says one. */
export function detectedVersion(views: readonly ProviderView[], provider: string): string | null {
  const view = views.find((v) => v.id === provider && v.available);
  return view ? parseCliVersion(view.version) : null;
}

/** The published versions of the available providers that say one (what a device's capabilities carry). */
export function publishedVersions(views: readonly ProviderView[]): Record<string, string> {
  return Object.fromEntries(views.flatMap((v) => (detectedVersion(views, v.id) === null ? [] : [[v.id, detectedVersion(views, v.id)!]])));
}
