/**
 * Carry my changes: a Move that takes a workspace's uncommitted work and unpushed commits along,
 * sealed inside the checkpoint, instead of asking for a commit and a push first. What readiness
 * offers to carry (`CarryOffer`), how the person chooses it (`CarryChoice`, with the files that look
 * like secrets confirmed by name), and what a completed move carried and where the source keeps its
 * own copy (`CarriedView`).
 */
import { z } from 'zod';
import { counted } from './plural.ts';

/** What carried work holds, in files and commits. */
export interface CarryCounts {
  /** Tracked files changed (renames and mode changes included). */
  changed: number;
  /** New files: staged adds and untracked files `.gitignore` does not exclude. */
  added: number;
  deleted: number;
  /** Commits not on the upstream. */
  commits: number;
}

/** What Carry my changes would take of the workspace now (ReadinessReport.carry), as readiness read it. */
export interface CarryOffer extends CarryCounts {
  /** Files that look like secrets (`.env`, keys…), as `repo/path`: the person confirms them by name before the move starts. */
  secretFiles: string[];
  /** About how many bytes the carried work takes before compression. */
  estimatedBytes: number;
  /** The largest carried files (`repo/path`), largest first: what a capsule over the limit names. */
  largest: { path: string; bytes: number }[];
  /** The repositories it covers (their paths on this device). */
  repos: string[];
}

/** How a Move carries the work: the secret-looking files the person confirmed (each by its `repo/path`). */
export const CarryChoice = z.strictObject({ confirmedFiles: z.array(z.string().min(1).max(4096)).max(1000) });
export type CarryChoice = z.infer<typeof CarryChoice>;

/** What a completed move carried (sealed in its outcome, and on the source in its progress). */
export const CarriedSchema = z.object({
  changed: z.number().int().nonnegative(),
  added: z.number().int().nonnegative(),
  deleted: z.number().int().nonnegative(),
  commits: z.number().int().nonnegative(),
  /** The repositories carried, by their path in the workspace (`.` for the workspace itself). */
  repos: z.array(z.string().max(4096)).max(500),
  /** The stash the source parks its copy in once the target has completed. */
  keptAs: z.string().max(500),
});
export type Carried = z.infer<typeof CarriedSchema>;

/** A completed move's carried work as the UI shows it: on the source, also whether its copy was parked. */
export interface CarriedView extends Carried {
  /** On the source: its copy parked in the stash (`ok`), or why not; null where not known (the target). */
  parked: { ok: true } | { ok: false; message: string } | null;
}

/** "3 changed files, 1 new file, 2 unpushed commits" (the parts that are not zero; "nothing" when all are). */
export function carrySummary(counts: CarryCounts): string {
  const parts = [
    counts.changed > 0 ? counted(counts.changed, 'changed file') : null,
    counts.added > 0 ? counted(counts.added, 'new file') : null,
    counts.deleted > 0 ? counted(counts.deleted, 'deleted file') : null,
    counts.commits > 0 ? counted(counts.commits, 'unpushed commit') : null,
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

/** The name of the stash a source parks carried work in: "baton: carried to desk at 18:05 (handoff <its id>)". */
export function carriedStashName(targetName: string, time: string, handoffId: string): string {
  return `baton: carried to ${targetName} at ${time} (handoff ${handoffId})`;
}

/** This device's settings for moves that carry work (kept in its profile; Devices → This device). */
export const MoveSettings = z.strictObject({
  /** Carry my changes is this device's default: a Move with uncommitted work or unpushed commits carries them. */
  carryByDefault: z.boolean(),
  /** The most carried work this device sends, after compression (the backend's own limit applies too). */
  carryLimitMiB: z.number().int().min(1).max(16_384),
});
export type MoveSettings = z.infer<typeof MoveSettings>;

/** A device's settings before it changed any: carrying is a choice made per move, up to 256 MiB. */
export const DEFAULT_MOVE_SETTINGS: MoveSettings = { carryByDefault: false, carryLimitMiB: 256 };
