/**
 * The drift report: re-reads from git what a packet recorded and says what moved. Report only —
 * warnings never block and nothing is fixed; every read goes through the read-only reader.
 *
 * A packet made over uncommitted work (a Move that carried it, or handoff_create on a dirty tree)
 * names those files (`uncommitted_files`) among its changed ones: they count as changed while they
 * are still uncommitted or committed since, and `dirty_tree` says which of the uncommitted files now
 * arrived so, as the packet recorded them.
 */
import { readBranch, readChangedFiles, readCommit, readDirtyFiles, readMergeBase } from './git-facts.ts';
import type { GitReader } from './git-read.ts';
import { parseUtc, type PacketFacts } from './packet-format.ts';

export type DriftCode = 'branch_missing' | 'head_moved' | 'files_diverged' | 'packet_stale_days' | 'dirty_tree';

export interface DriftWarning {
  code: DriftCode;
  /** A sentence for people; for packet_stale_days, the age in whole days. */
  detail: string | number;
}

export const STALE_AFTER_DAYS = 7;
const DAY_MS = 86_400_000;

/** What the caller just verified of the repository: checked out on `branch` at `head`, with `dirty` uncommitted. */
export interface CheckedOut {
  branch: string;
  head: string;
  dirty: string[];
  /** A remote-tracking ref (`origin/main`) whose tip the caller knows (the fetch it just made left it there). */
  remoteTip?: { ref: string; commit: string };
}

export interface DriftOptions {
  /** The clock (injected in tests). */
  now: () => Date;
  /** Repo-relative path of the packet file itself, which never counts as dirty. */
  packetPath?: string;
  /** Branch, HEAD and uncommitted files as the caller just read them (a pin's verification): not read again. */
  checkedOut?: CheckedOut;
}

/** Compares the recorded facts with the repository now; returns warnings in a fixed order. */
export async function checkDrift(reader: GitReader, facts: PacketFacts, options: DriftOptions): Promise<DriftWarning[]> {
  const seen = options.checkedOut;
  const [current, tip, head, dirty] = await Promise.all([
    seen ? known(seen.branch) : readBranch(reader),
    seen?.branch === facts.branch ? known(seen.head) : readCommit(reader, `refs/heads/${facts.branch}`),
    seen ? known(seen.head) : readCommit(reader, 'HEAD'),
    seen ? known(seen.dirty) : readDirtyFiles(reader),
  ]);
  const warnings: DriftWarning[] = [];
  if (!tip.ok) warnings.push({ code: 'branch_missing', detail: `the branch ${facts.branch} does not exist in this repository` });

  // The commit the packet speaks of now: HEAD when on that branch (or detached on a pinned commit), else the branch tip.
  const onBranch = current.ok && (current.value === facts.branch || current.value === '');
  const subject = onBranch ? (head.ok ? head.value : undefined) : tip.ok ? tip.value : undefined;
  if (subject !== undefined && subject !== facts.head_sha) {
    warnings.push({ code: 'head_moved', detail: `recorded ${facts.head_sha}, now ${subject}` });
  }

  if (subject !== undefined) {
    const diverged = await filesDivergence(reader, facts, subject, seen?.remoteTip, dirty.ok ? dirty.value : []);
    if (diverged) warnings.push({ code: 'files_diverged', detail: diverged });
  }

  const age = options.now().getTime() - parseUtc(facts.created_at);
  if (age > STALE_AFTER_DAYS * DAY_MS) warnings.push({ code: 'packet_stale_days', detail: Math.floor(age / DAY_MS) });

  if (dirty.ok) {
    const files = dirty.value.filter((f) => f !== options.packetPath);
    if (files.length > 0) warnings.push({ code: 'dirty_tree', detail: dirtyDetail(files, facts.uncommitted_files ?? []) });
  }
  return warnings;
}

/** What `dirty_tree` says of `files`: how many, which, and how many of them the packet recorded as uncommitted (the work arrived so). */
function dirtyDetail(files: string[], recorded: readonly string[]): string {
  const said = `${files.length} uncommitted: ${listSome(files)}`;
  const arrived = files.filter((file) => recorded.includes(file)).length;
  if (arrived === 0) return said;
  if (arrived === files.length) return `${said} (the work arrived uncommitted, as the packet recorded it)`;
  return `${said} (${arrived} of them arrived uncommitted, as the packet recorded them)`;
}

const known = <T>(value: T) => ({ ok: true, value }) as const;

/**
 * Describes how the diff set now differs from the recorded one, or undefined when it does not (or
 * cannot be known). The same two commits have the same diff: then it is not read again; nor is the
 * merge base of a base ref known to point at the subject (it is the subject).
 */
async function filesDivergence(
  reader: GitReader,
  facts: PacketFacts,
  subject: string,
  remoteTip: CheckedOut['remoteTip'],
  dirty: readonly string[],
): Promise<string | undefined> {
  // The files the packet recorded as uncommitted that still are: changed as they were.
  const stillUncommitted = (facts.uncommitted_files ?? []).filter((file) => dirty.includes(file));
  let mergeBase: string | undefined;
  const atTip = remoteTip?.ref === facts.base_ref && remoteTip.commit === subject;
  // A ref name is never an option (a packet file is the repository's content, not ours).
  const mb = atTip ? known(subject) : facts.base_ref.startsWith('-') ? null : await readMergeBase(reader, facts.base_ref, subject);
  if (mb?.ok) mergeBase = mb.value;
  if (mergeBase === undefined && facts.merge_base !== null) {
    const recorded = await readCommit(reader, facts.merge_base);
    if (recorded.ok) mergeBase = recorded.value;
  }
  if (mergeBase === undefined) return undefined;
  const allStill = stillUncommitted.length === (facts.uncommitted_files ?? []).length;
  if (mergeBase === facts.merge_base && subject === facts.head_sha && allStill) return undefined;
  const committed = await readChangedFiles(reader, mergeBase, subject);
  if (!committed.ok) return undefined;
  const changed = [...new Set([...committed.value, ...stillUncommitted])].sort();
  const recorded = new Set(facts.changed_files);
  const actual = new Set(changed);
  const added = changed.filter((f) => !recorded.has(f));
  const gone = facts.changed_files.filter((f) => !actual.has(f));
  if (added.length === 0 && gone.length === 0) return undefined;
  const parts = [];
  if (added.length > 0) parts.push(`now also changed: ${listSome(added)}`);
  if (gone.length > 0) parts.push(`no longer changed: ${listSome(gone)}`);
  return parts.join('; ');
}

function listSome(files: string[], max = 20): string {
  const shown = files.slice(0, max).join(', ');
  return files.length > max ? `${shown} (+${files.length - max} more)` : shown;
}
