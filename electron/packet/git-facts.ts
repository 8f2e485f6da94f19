/**
 * The git facts a packet records, each read through the read-only reader and returned as a value.
 */
import type { Failure, Result } from '../../shared/errors.ts';
import { packetPath, slugOfBranch } from './packet-format.ts';
import type { GitReader } from './git-read.ts';

/** A fact git gave, or why it could not be read (always `git_read_failed`, with the reason). */
export type Fact<T> = Result<T, 'git_read_failed'>;

const fail = (message: string): Failure<'git_read_failed'> => ({ ok: false, code: 'git_read_failed', message });
const ok = <T>(value: T): Fact<T> => ({ ok: true, value });

/** The repository's top-level directory. */
export async function readToplevel(reader: GitReader): Promise<Fact<string>> {
  const r = await reader.read(['rev-parse', '--show-toplevel']);
  return r.ok ? { ok: true, value: r.stdout.trim() } : fail(r.message);
}

/** The checked-out branch name; '' on a detached HEAD. */
export async function readBranch(reader: GitReader): Promise<Fact<string>> {
  const r = await reader.read(['branch', '--show-current']);
  return r.ok ? { ok: true, value: r.stdout.trim() } : fail(r.message);
}

/** The commit `ref` names, or a failure when it does not resolve to one. */
export async function readCommit(reader: GitReader, ref: string): Promise<Fact<string>> {
  const r = await reader.read(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (r.ok && r.stdout.trim() !== '') return { ok: true, value: r.stdout.trim() };
  return fail(r.ok || r.code === 'git_read_failed' ? `${ref} does not resolve to a commit` : r.message);
}

/** The merge base of two commits, or a failure when they share no history. */
export async function readMergeBase(reader: GitReader, a: string, b: string): Promise<Fact<string>> {
  const r = await reader.read(['merge-base', a, b]);
  if (r.ok && r.stdout.trim() !== '') return { ok: true, value: r.stdout.trim() };
  return fail(r.ok || r.code === 'git_read_failed' ? `${a} and ${b} have no merge base` : r.message);
}

/** The remote of the current branch's upstream (`origin` for `origin/feature/x`), or null when it has none. */
async function readUpstreamRemote(reader: GitReader): Promise<string | null> {
  const r = await reader.read(['rev-parse', '--symbolic-full-name', '@{upstream}']);
  return r.ok ? (/^refs\/remotes\/([^/]+)\//.exec(r.stdout.trim())?.[1] ?? null) : null;
}

/**
 * The ref a branch is compared with when the caller names none: the default branch of the upstream's
 * remote, or of origin — where `<remote>/HEAD` points, else `<remote>/main` or `<remote>/master` —
 * else a local `main` or `master`; `fallback` when there is none of them (its merge_base_error then says so).
 */
export async function readDefaultBaseRef(reader: GitReader, fallback: string): Promise<string> {
  const upstream = await readUpstreamRemote(reader);
  const remotes = [...new Set([upstream ?? 'origin', 'origin'])];
  for (const remote of remotes) {
    const head = await reader.read(['rev-parse', '--abbrev-ref', `${remote}/HEAD`]);
    const target = head.ok ? head.stdout.trim() : '';
    if (target !== '' && target !== `${remote}/HEAD`) return target;
  }
  for (const ref of [...remotes.flatMap((remote) => [`${remote}/main`, `${remote}/master`]), 'main', 'master']) {
    if ((await readCommit(reader, ref)).ok) return ref;
  }
  return fallback;
}

/** Files changed between two commits (committed changes only), sorted. */
export async function readChangedFiles(reader: GitReader, from: string, to: string): Promise<Fact<string[]>> {
  const r = await reader.read(['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', from, to, '--']);
  return r.ok ? { ok: true, value: splitZ(r.stdout).sort() } : fail(r.message);
}

/** Paths with uncommitted changes, untracked non-ignored files included, sorted. */
export async function readDirtyFiles(reader: GitReader): Promise<Fact<string[]>> {
  const r = await reader.read(['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames']);
  return r.ok
    ? {
        ok: true,
        value: splitZ(r.stdout)
          .map((entry) => entry.slice(3))
          .sort(),
      }
    : fail(r.message);
}

function splitZ(text: string): string[] {
  return text.split('\0').filter((s) => s.length > 0);
}

/** The git-read part of a packet's frontmatter, as of now. */
export interface BranchFacts {
  toplevel: string;
  branch: string;
  head_sha: string;
  base_ref: string;
  merge_base: string | null;
  /** Committed since the merge base, and uncommitted now (the working tree's changes), sorted. */
  changed_files: string[];
  /** Of changed_files, those uncommitted now (the packet file itself left out); absent when none. */
  uncommitted_files?: string[];
  merge_base_error?: string;
}

/** What a caller already read of the repository (the checkpoint's readiness read): not read again. */
export interface KnownFacts {
  toplevel: string;
  branch: string;
  head_sha: string;
  /** The merge base with `ref` (and the files changed since, when read), taken as they are when the packet's base is that ref. */
  base?: { ref: string; merge_base: string; changed_files?: string[] };
  /** The files uncommitted in the working tree (read by the caller: none on a clean tree); absent: read here. */
  uncommitted?: string[];
}

/** `facts` with the working tree's uncommitted files (but the packet's own) among its changed ones, and named. */
function withUncommitted(facts: BranchFacts, dirty: readonly string[]): BranchFacts {
  const own = packetPath(slugOfBranch(facts.branch));
  const uncommitted = dirty.filter((file) => file !== own);
  if (uncommitted.length === 0) return facts;
  const changed = [...new Set([...facts.changed_files, ...uncommitted])].sort();
  return { ...facts, changed_files: changed, uncommitted_files: [...uncommitted].sort() };
}

/**
 * Reads branch, HEAD, merge base with `baseRef`, the files changed since it and the working tree's
 * uncommitted ones (which count as changed: a packet made over uncommitted work says so). A missing
 * base ref degrades to merge_base null, only the uncommitted files and a merge_base_error; no branch
 * or no HEAD is a failure. Facts in `known` are taken as they are.
 */
export async function readBranchFacts(reader: GitReader, baseRef: string, known?: KnownFacts): Promise<Fact<BranchFacts>> {
  const same = known?.base?.ref === baseRef ? known.base : undefined;
  const knownBase = same?.merge_base;
  const [toplevel, branch, head, base, dirty] = await Promise.all([
    known ? ok(known.toplevel) : readToplevel(reader),
    known ? ok(known.branch) : readBranch(reader),
    known ? ok(known.head_sha) : readCommit(reader, 'HEAD'),
    knownBase === undefined ? readCommit(reader, baseRef) : ok(baseRef),
    known?.uncommitted ? ok(known.uncommitted) : readDirtyFiles(reader),
  ]);
  if (!toplevel.ok) return toplevel;
  if (!branch.ok) return branch;
  if (branch.value === '') return fail('HEAD is detached: a packet belongs to a branch');
  if (!head.ok) return fail(`the branch ${branch.value} has no commits yet`);
  if (!dirty.ok) return dirty;
  const facts: BranchFacts = {
    toplevel: toplevel.value,
    branch: branch.value,
    head_sha: head.value,
    base_ref: baseRef,
    merge_base: null,
    changed_files: [],
  };
  if (!base.ok) return { ok: true, value: { ...withUncommitted(facts, dirty.value), merge_base_error: base.message } };
  const mergeBase = knownBase === undefined ? await readMergeBase(reader, base.value, head.value) : ok(knownBase);
  if (!mergeBase.ok)
    return { ok: true, value: { ...withUncommitted(facts, dirty.value), merge_base_error: `${baseRef} shares no history with HEAD` } };
  const changed = same?.changed_files ? ok(same.changed_files) : await readChangedFiles(reader, mergeBase.value, head.value);
  if (!changed.ok) return changed;
  return { ok: true, value: withUncommitted({ ...facts, merge_base: mergeBase.value, changed_files: changed.value }, dirty.value) };
}
