/**
 * The commits a move starts from: each repository's commit as the source's readiness read it when
 * it asked, sealed to the handoff on its `requested` record (`sealedCommits`), so the target's
 * prepare fetches just those commits — nothing where it has them — rather than each whole branch.
 * The checkpoint still names the exact commits the target pins; these only tell it what to fetch early.
 */
import { z } from 'zod';
import type { Handoff } from '../../shared/api/handoffs.ts';
import type { SealContext, SealPort } from '../ports/seal.ts';

const MoveCommits = z.strictObject({
  repos: z.array(z.strictObject({ relPath: z.string().max(4096), commit: z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/) })).max(512),
});

const context = (sessionId: string, handoffId: string): SealContext => ({ kind: 'handoff-commits', sessionId, handoffId });

/** Seals each repository's commit (by its path in the workspace) for the handoff; undefined when none is known. */
export function sealMoveCommits(
  seal: Pick<SealPort, 'sealJson'>,
  sessionId: string,
  handoffId: string,
  repos: { relPath: string; commit: string | null }[],
): string | undefined {
  const known = repos.flatMap((r) => (r.commit === null ? [] : [{ relPath: r.relPath, commit: r.commit }]));
  return known.length === 0 ? undefined : seal.sealJson({ repos: known }, context(sessionId, handoffId));
}

/** The commits the handoff's source named, by repository path; empty when it named none or they do not open. */
export function openMoveCommits(seal: Pick<SealPort, 'openJson'>, handoff: Handoff): Map<string, string> {
  if (!handoff.sealedCommits) return new Map();
  const opened = seal.openJson(handoff.sealedCommits, context(handoff.sessionId, handoff.id));
  const parsed = opened.ok ? MoveCommits.safeParse(opened.value) : null;
  return new Map(parsed?.success ? parsed.data.repos.map((r) => [r.relPath, r.commit]) : []);
}
