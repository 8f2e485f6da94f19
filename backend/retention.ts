/**
 * Checkpoint retention, declared once with its defaults (`startBackend({ retention })`; `baton backend
 * --keep-checkpoints N`). The backend keeps the checkpoint body of every handoff in progress and of each
 * session's newest `keepCompleted` completed handoffs; everything else is collected in the background
 * (service/collector.ts), in batches. The same passes prune the posts of sessions' logs (answers, Move here
 * requests) once taken by the session's owner, at an older generation, or older than `postMaxAgeMs`.
 */

export interface RetentionSettings {
  /** Completed handoffs per session whose checkpoint bodies are kept (so a session can be forked from them). */
  keepCompleted: number;
  /**
   * How long a body that no transition has named yet is kept from its upload. The source names its body
   * in the transition right after uploading it (a body sealed ahead while the target prepares, once input
   * is refused and the turn has ended: the device's turn wait, 10 s by default), and a move whose steps
   * take longer than its deadlines (prepare 30 s, claim 120 s) is cancelled; a signed request is refused
   * once five minutes old, and PostgreSQL drops an upload idle for ten. An hour is far beyond all of
   * them, and short enough that an unused body is gone the same day.
   */
  unnamedGraceMs: number;
  /**
   * How long a post to a session's log (an answer, a Move here request) is kept when its owner has not
   * taken it: a day. Taken posts and those of an older generation go once the post window (limits.ts)
   * no longer counts them.
   */
  postMaxAgeMs: number;
  /** Pause between collection passes. */
  intervalMs: number;
  /** Records, or bodies, collected in one transaction. */
  batchSize: number;
}

export const DEFAULT_KEEP_COMPLETED = 10;

export const DEFAULT_RETENTION: Readonly<RetentionSettings> = {
  keepCompleted: DEFAULT_KEEP_COMPLETED,
  unnamedGraceMs: 60 * 60_000,
  postMaxAgeMs: 24 * 3_600_000,
  intervalMs: 60_000,
  batchSize: 500,
};

/** The defaults with `overrides` applied; throws on a count that is not a whole number (keepCompleted may be 0) or a time that is not positive. */
export function resolveRetention(overrides: Partial<RetentionSettings> = {}): RetentionSettings {
  const settings = { ...DEFAULT_RETENTION, ...overrides };
  if (!Number.isInteger(settings.keepCompleted) || settings.keepCompleted < 0)
    throw new Error(`retention keepCompleted must be a whole number, got ${String(settings.keepCompleted)}`);
  if (!Number.isInteger(settings.batchSize) || settings.batchSize < 1)
    throw new Error(`retention batchSize must be a positive whole number, got ${String(settings.batchSize)}`);
  for (const name of ['unnamedGraceMs', 'postMaxAgeMs', 'intervalMs'] as const) {
    if (!Number.isFinite(settings[name]) || settings[name] <= 0)
      throw new Error(`retention ${name} must be positive, got ${settings[name]}`);
  }
  return settings;
}
