/**
 * handoff_resume as a pure function: reads a branch's packet back, re-checks its facts against the
 * repository and reports drift. It never writes, checks out or runs anything but allow-listed git reads.
 */
import { checkDrift, type DriftWarning } from './drift.ts';
import { readBranch, readToplevel } from './git-facts.ts';
import { openGitReader } from './git-read.ts';
import { describeIssue, HandoffResumeArgs } from './handoff-args.ts';
import type { HandoffDeps } from './handoff-create.ts';
import { noBackendLink, type MemoryRecallState } from './memory-link.ts';
import { packetPath, slugOfBranch, slugProblem, type PacketFacts, type PacketProse } from './packet-format.ts';
import { readPacketFile } from './packet-file.ts';

/** A resume report; keys in authority order: ok, slug, path, verified, warnings, asserted, memory. */
export interface HandoffResumeReport {
  ok: true;
  slug: string;
  path: string;
  verified: PacketFacts;
  warnings: DriftWarning[];
  asserted: PacketProse;
  memory: MemoryRecallState;
}

export type HandoffResumeResult =
  | HandoffResumeReport
  | {
      ok: false;
      reason: 'invalid_slug' | 'packet_not_found' | 'packet_unreadable' | 'git_read_failed' | 'invalid_arguments';
      message: string;
      slug?: string;
    };

/** Reads the packet for `args.slug` (default: the current branch's) and reports what drifted since it was written. */
export async function handoffResume(root: string, rawArgs: unknown, deps: HandoffDeps = {}): Promise<HandoffResumeResult> {
  const parsed = HandoffResumeArgs.safeParse(rawArgs ?? {});
  if (!parsed.success) return { ok: false, reason: 'invalid_arguments', message: describeIssue(parsed.error) };
  const opened = await openGitReader(root, deps.exec);
  if (!opened.ok) return { ok: false, reason: 'git_read_failed', message: opened.message };
  const reader = opened.reader;

  let slug = parsed.data.slug;
  if (slug !== undefined) {
    const problem = slugProblem(slug);
    if (problem) return { ok: false, reason: 'invalid_slug', message: problem, slug };
  }
  const [toplevel, branch] = await Promise.all([readToplevel(reader), slug === undefined ? readBranch(reader) : undefined]);
  if (!toplevel.ok) return { ok: false, reason: 'git_read_failed', message: toplevel.message };
  if (branch !== undefined) {
    if (!branch.ok) return { ok: false, reason: 'git_read_failed', message: branch.message };
    slug = slugOfBranch(branch.value);
    const problem = slugProblem(slug);
    if (problem)
      return {
        ok: false,
        reason: 'invalid_slug',
        message: branch.value === '' ? 'HEAD is detached: pass the slug of the packet to resume' : problem,
        slug,
      };
  }
  const theSlug = slug as string;

  const read = await readPacketFile(toplevel.value, theSlug);
  if (!read.ok) return { ...read, slug: theSlug };
  const path = packetPath(theSlug);
  const [warnings, memory] = await Promise.all([
    checkDrift(reader, read.packet.verified, { now: deps.now ?? (() => new Date()), packetPath: path }),
    (deps.memory ?? noBackendLink).recall(theSlug),
  ]);
  return { ok: true, slug: theSlug, path, verified: read.packet.verified, warnings, asserted: read.packet.asserted, memory };
}
