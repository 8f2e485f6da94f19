/**
 * The packet as the device checkpoint carries it: facts read from git at checkpoint time plus the
 * session's prose, built without writing to the repository; and the drift check the target runs
 * against its pinned workspace on activation (the same logic handoff_resume uses).
 */
import type { DriftWarning } from '../../shared/api/handoffs.ts';
import { checkDrift, type CheckedOut, type DriftWarning as PacketDriftWarning } from './drift.ts';
import { readBranchFacts, readDefaultBaseRef, type KnownFacts } from './git-facts.ts';
import { openGitReader, type GitExec } from './git-read.ts';
import { DEFAULT_BASE_REF, DEFAULT_PROVIDER } from './handoff-args.ts';
import { assertedFrom } from './handoff-create.ts';
import { isPacket, packetPath, slugOfBranch, type Packet } from './packet-format.ts';

/** A branch packet inside a checkpoint: the file's content plus where it would live. */
export interface CheckpointPacket extends Packet {
  slug: string;
  path: string;
}

/** The session's prose for the packet; absent fields are left out of the body. */
export interface CheckpointProse {
  goal?: string;
  current_state?: string;
  next_action?: string;
  acceptance_criteria?: string;
  scope_assumptions?: string;
  verification?: Array<{ claim: string; probe: string }>;
}

export interface CheckpointPacketOptions {
  exec?: GitExec;
  now?: () => Date | number;
  provider?: string;
  base_ref?: string;
  /** What the caller already read of the repository (not read again). */
  known?: KnownFacts;
}

export type CheckpointPacketResult = { ok: true; packet: CheckpointPacket } | { ok: false; reason: 'git_read_failed'; message: string };

const toDate = (value: Date | number): Date => (value instanceof Date ? value : new Date(value));

/** Reads the repo's branch facts now and pairs them with `asserted`; never writes to the repository. */
export async function buildCheckpointPacket(
  repoPath: string,
  asserted: CheckpointProse,
  options: CheckpointPacketOptions = {},
): Promise<CheckpointPacketResult> {
  const opened = await openGitReader(repoPath, options.exec);
  if (!opened.ok) return { ok: false, reason: 'git_read_failed', message: opened.message };
  // The device read the base with the repository (its known facts); else it is found as handoff_create finds it.
  const baseRef = options.base_ref ?? options.known?.base?.ref ?? (await readDefaultBaseRef(opened.reader, DEFAULT_BASE_REF));
  const facts = await readBranchFacts(opened.reader, baseRef, options.known);
  if (!facts.ok) return { ok: false, reason: 'git_read_failed', message: facts.message };
  const { toplevel: _toplevel, merge_base_error, ...branchFacts } = facts.value;
  const slug = slugOfBranch(branchFacts.branch);
  const created = toDate((options.now ?? (() => new Date()))());
  return {
    ok: true,
    packet: {
      slug,
      path: packetPath(slug),
      verified: {
        ...branchFacts,
        created_at: created.toISOString(),
        provider: options.provider ?? DEFAULT_PROVIDER,
        ...(merge_base_error !== undefined ? { merge_base_error } : {}),
      },
      asserted: assertedFrom(asserted),
    },
  };
}

/**
 * The drift warnings of `packet` against the repository at `repoPath` now; an unreadable repo reports
 * branch_missing. `checkedOut`: its branch, HEAD and uncommitted files as the caller just verified them.
 */
export async function checkPacketDrift(
  packet: Packet,
  repoPath: string,
  clock: () => Date | number = () => new Date(),
  exec?: GitExec,
  checkedOut?: CheckedOut,
): Promise<PacketDriftWarning[]> {
  const opened = await openGitReader(repoPath, exec);
  if (!opened.ok) return [{ code: 'branch_missing', detail: `cannot read the repository: ${opened.message}` }];
  return checkDrift(opened.reader, packet.verified, {
    now: () => toDate(clock()),
    packetPath: packetPath(slugOfBranch(packet.verified.branch)),
    ...(checkedOut ? { checkedOut } : {}),
  });
}

/** What the runtime already read of a repository, for `build`: the packet does not read it again. */
export interface RepoRead {
  branch: string;
  head: string;
  base?: { ref: string; mergeBase: string; changedFiles?: string[] };
  /** The files uncommitted in its working tree (none on a clean one, what a Move carries on another); absent: read. */
  uncommitted?: string[];
}

function knownBase(base: NonNullable<RepoRead['base']>): NonNullable<KnownFacts['base']> {
  const changed = base.changedFiles === undefined ? {} : { changed_files: base.changedFiles };
  return { ref: base.ref, merge_base: base.mergeBase, ...changed };
}

/**
 * The two calls the device runtime makes (its PacketPort): build throws when git cannot be read, so
 * the caller can skip that repo's packet; drift details are strings for display.
 */
export function createCheckpointPacketPort(options: { exec?: GitExec; now?: () => Date | number } = {}): {
  build(
    repoPath: string,
    prose: { goal: string; currentState: string; nextAction: string },
    provider: string,
    known?: RepoRead,
  ): Promise<CheckpointPacket>;
  drift(packet: unknown, repoPath: string, checkedOut?: CheckedOut): Promise<DriftWarning[]>;
} {
  return {
    async build(repoPath, prose, provider, known) {
      const facts: KnownFacts | undefined = known && {
        toplevel: repoPath,
        branch: known.branch,
        head_sha: known.head,
        ...(known.base ? { base: knownBase(known.base) } : {}),
        ...(known.uncommitted ? { uncommitted: known.uncommitted } : {}),
      };
      const built = await buildCheckpointPacket(
        repoPath,
        { goal: prose.goal, current_state: prose.currentState, next_action: prose.nextAction },
        { ...options, provider, ...(facts ? { known: facts } : {}) },
      );
      if (!built.ok) throw new Error(built.message);
      return built.packet;
    },
    async drift(packet, repoPath, checkedOut) {
      if (!isPacket(packet)) return [{ code: 'packet_unreadable', detail: 'the checkpoint carries no valid packet for this repository' }];
      const warnings = await checkPacketDrift(packet, repoPath, options.now, options.exec, checkedOut);
      return warnings.map((w) => ({ code: w.code, detail: String(w.detail) }));
    },
  };
}
