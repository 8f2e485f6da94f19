/**
 * The device's durable local state: what it owns and knows of each session and how far it got in
 * each handoff. One small JSON file per record under the profile folder, with each folder's changes
 * appended to its journal first (a durable change is one fdatasync; record-journal.ts), so a crash at
 * any instant leaves either the old or the new record and a restart resumes from it. A session's transcript is not in its record: it is
 * an append-only log of its own (transcript-log.ts), so a new entry appends a line and a day-long
 * transcript is never rewritten as one JSON; a provider's export is kept as the files it names.
 * Reads answer from memory at once; writes run behind (record-folder.ts), and `settled()` is the
 * barrier before anything that relies on them being on disk.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { mkdirSync, rmSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import type { AgentView, TranscriptEntry } from '../../shared/agents.ts';
import { DriftWarning, ResumePath, TargetFolder } from '../../shared/api/handoffs.ts';
import { CarriedSchema, CarryChoice } from '../../shared/carry.ts';
import { ContinueWithSchema, PROVIDER_CHANGES_MAX, ProviderChangeSchema } from '../../shared/agent-switch.ts';
import { DEFAULT_PERMISSION_LEVEL, PermissionLevel } from '../../shared/provider.ts';
import type { Blocker } from '../../shared/readiness.ts';
import { migrateInlineTranscripts } from './inline-transcripts.ts';
import { noPermissions, SessionPermissionsSchema } from './session-permissions.ts';
import { MoveBlockSchema, RepoRefSchema } from './record-parts.ts';
import { RecordFolder } from './record-folder.ts';
import { TranscriptLogs } from './transcript-log.ts';

const Block = z.object({
  code: z.enum(['not_owner', 'quiescing', 'moved', 'needs_attention', 'not_running', 'revoked']),
  message: z.string(),
});

/** A move that carries the work: for which handoff, the secret-looking files confirmed, the target's name (the stash is named for it). */
const CarryOnSchema = CarryChoice.extend({ handoffId: z.string().max(64), targetName: z.string().max(200) });

/** The source's copy of carried work, parked: in the stash, or why not. */
const ParkedSchema = z.union([z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), message: z.string().max(2000) })]);

export const LocalSessionSchema = z.object({
  id: z.string(),
  title: z.string(),
  /** Absolute workspace path on THIS device. */
  workspace: z.string(),
  /** Absolute paths of the session's repositories on THIS device (empty: the repos found in the workspace). */
  repoPaths: z.array(z.string()).default([]),
  provider: z.string(),
  /** How much the agent may do without asking (older records: the default). */
  permission: PermissionLevel.default(DEFAULT_PERMISSION_LEVEL),
  repos: z.array(RepoRefSchema),
  ownerDeviceId: z.string(),
  generation: z.number().int().positive(),
  /** Durable input-rejection flag (quiescing, moved, needs attention); null when input is accepted. */
  inputBlock: Block.nullable(),
  /**
   * The provider's own resume data (what exportResumeData gave, or what a checkpoint carried): small
   * JSON naming its files (the CLI's own, on the device that ran it), or older data held inline.
   */
  providerResume: z.unknown().nullable(),
  /**
   * Why this device cannot run the session it owns, and what fixes it: an activation that failed
   * after the transfer (`handoffId`: whose checkpoint to retry), or a record rebuilt without its
   * workspace (`handoffId` null). `fix` is the concrete step (absent on older records).
   */
  needsAttention: z
    .object({ handoffId: z.string().nullable(), code: z.string(), message: z.string(), fix: z.string().optional() })
    .nullable(),
  agents: z.array(z.custom<AgentView>()),
  /** The device the owner asked to clone the repositories afresh on, for the move to it (null: it uses its checkouts). */
  freshCloneOn: z.string().nullable().default(null),
  /** A blocked move of the session (ports/move-block.ts), null when none; on every device through the sealed event stream. */
  moveBlock: MoveBlockSchema.nullable().default(null),
  /** What the agent is told with the next input (after a move it resumed by import: where it now runs); absent or null: nothing. */
  agentNote: z.string().nullable().optional(),
  /** How the provider was last resumed after this device restarted (absent: never). */
  restartResume: z.object({ path: ResumePath, reason: z.string().nullable(), at: z.number() }).nullable().optional(),
  /** The last backend event seq applied to transcript/agents. */
  eventCursor: z.number().int().nonnegative(),
  /** Its permission requests, their outcomes and its "Allow for this session" rules (older records: none). */
  permissions: SessionPermissionsSchema.default(noPermissions),
  /** The agent a move of it asked its target to continue with (shared/agent-switch.ts); absent or null: none. */
  continueWith: ContinueWithSchema.nullable().optional(),
  /** A move of it that carries the uncommitted work and unpushed commits (handoff/carry-choice.ts); absent or null: none. */
  carryOn: CarryOnSchema.nullable().optional(),
  /** Where its agent changed, oldest first (older records: none). */
  providerChanges: z.array(ProviderChangeSchema).max(PROVIDER_CHANGES_MAX).default([]),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type LocalSession = z.infer<typeof LocalSessionSchema>;

export const HandoffProgressSchema = z.object({
  handoffId: z.string(),
  sessionId: z.string(),
  role: z.enum(['source', 'target']),
  /** States this device has finished its own step for (the transition it asked for was acknowledged). */
  done: z.array(z.string()),
  /** When this device first saw the handoff (the prepare deadline counts from here). */
  seenAt: z.number(),
  /** The checkpoint the source uploaded, kept so a retried transition carries the same reference. */
  checkpoint: z.object({ digest: z.string(), size: z.number() }).nullable(),
  /** Remediation when the checkpoint re-check cancelled the move. */
  blockers: z.array(z.custom<Blocker>()),
  resumeNote: z.string().nullable(),
  driftWarnings: z.array(DriftWarning),
  /** On the target, once activated: the folder the session runs in (and the one it used here before). */
  targetFolder: TargetFolder.nullable().default(null),
  /** The agent change the target made (absent: none, or not known here). */
  providerChange: z.object({ from: z.string(), to: z.string() }).nullable().optional(),
  /** What the move carried (both sides), and on the source each carried repository's path, base and HEAD, to park once completed. */
  carried: CarriedSchema.extend({
    parkable: z.array(z.object({ path: z.string(), base: z.string(), head: z.string() })).optional(),
  })
    .nullable()
    .optional(),
  /** On the source, once it tried to park its copy of the carried work: done, or why not. */
  parked: ParkedSchema.nullable().optional(),
  /** Terminal: this device has nothing more to do for the handoff. */
  finished: z.boolean(),
});
export type HandoffProgress = z.infer<typeof HandoffProgressSchema>;

/** The per-profile local state: sessions and handoff progress, each record durable once settled. */
export class LocalState {
  private readonly sessions: RecordFolder<LocalSession>;
  private readonly handoffs: RecordFolder<HandoffProgress>;
  private readonly transcripts: TranscriptLogs;
  private readonly scratchDir: string;
  private readonly exportsRoot: string;

  constructor(profileDir: string) {
    const root = join(profileDir, 'runtime');
    // Sealed checkpoints on their way up: a crash leaves one behind, and the step makes it again.
    this.scratchDir = join(root, 'scratch');
    rmSync(this.scratchDir, { recursive: true, force: true });
    mkdirSync(this.scratchDir, { recursive: true, mode: 0o700 });
    this.exportsRoot = join(root, 'exports');
    const sessionsDir = join(root, 'sessions');
    const transcriptsDir = join(root, 'transcripts');
    mkdirSync(sessionsDir, { recursive: true, mode: 0o700 });
    mkdirSync(transcriptsDir, { recursive: true, mode: 0o700 });
    // Records from before transcript logs held their transcript inline: it moves to its log first.
    migrateInlineTranscripts(sessionsDir, transcriptsDir);
    this.transcripts = new TranscriptLogs(transcriptsDir);
    this.sessions = new RecordFolder(sessionsDir, LocalSessionSchema as z.ZodType<LocalSession>, (s) => s.id);
    this.handoffs = new RecordFolder(join(root, 'handoffs'), HandoffProgressSchema as z.ZodType<HandoffProgress>, (h) => h.handoffId);
  }

  /** The session record, or undefined when this device has never known it. */
  session(id: string): LocalSession | undefined {
    return this.sessions.get(id);
  }

  /** Session records whose file could not be read at start (and were not rebuilt since): id → why. */
  unreadableSessions(): Map<string, string> {
    return this.sessions.unreadable();
  }

  listSessions(): LocalSession[] {
    return this.sessions.all().sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * The stored session itself, for building views only: no copy is made (a long transcript would
   * be copied on every event otherwise), so the caller must not change it.
   */
  readSession(id: string): Readonly<LocalSession> | undefined {
    return this.sessions.peek(id);
  }

  /** Every stored session itself, oldest first, for building views only (see readSession). */
  readSessions(): readonly Readonly<LocalSession>[] {
    return [...this.sessions.peekAll()].sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * Stores the session record; durable (the default) means fsynced before `settled()` resolves. Pass
   * `durable = false` for what is only a cache of backend state (transcript, agents, event cursor).
   */
  saveSession(session: LocalSession, durable = true): void {
    this.sessions.put(session.id, { ...session, updatedAt: Date.now() }, durable);
  }

  /** Applies `change` to the stored session in place and saves it; false when the session is unknown. */
  updateSession(id: string, change: (session: LocalSession) => void, durable = true): boolean {
    return this.sessions.update(
      id,
      (session) => {
        change(session);
        session.updatedAt = Date.now();
      },
      durable,
    );
  }

  /** How many entries the session's transcript holds. */
  transcriptCount(id: string): number {
    return this.transcripts.count(id);
  }

  /**
   * Entries `from` … `from + count` of the session's transcript (clamped): the newest from memory,
   * older ones read from its log (memory holds only a window of it).
   */
  transcriptPage(id: string, from: number, count: number): TranscriptEntry[] {
    return this.transcripts.page(id, from, count);
  }

  /** The newest `count` entries of the session's transcript, oldest first. */
  newestTranscript(id: string, count: number): TranscriptEntry[] {
    return this.transcripts.newest(id, count);
  }

  /** The session's whole transcript as it is now, streamed from its log (iterate it to its end or break out). */
  transcriptEntries(id: string): AsyncIterable<TranscriptEntry> {
    return this.transcripts.entries(id);
  }

  /** The session's first transcript entry `match` accepts (oldest first), or undefined. */
  findTranscriptEntry(id: string, match: (entry: TranscriptEntry) => boolean): Promise<TranscriptEntry | undefined> {
    return this.transcripts.find(id, match);
  }

  /** The session's newest transcript entry `match` accepts, or undefined. */
  findLastTranscriptEntry(id: string, match: (entry: TranscriptEntry) => boolean): Promise<TranscriptEntry | undefined> {
    return this.transcripts.findLast(id, match);
  }

  /** Which of `ids` the session's transcript already holds. */
  knownTranscriptIds(id: string, ids: readonly string[]): Promise<Set<string>> {
    return this.transcripts.known(id, ids);
  }

  /** About how many bytes the session's transcript takes as JSON lines (what a checkpoint carries of it). */
  transcriptBytes(id: string): number {
    return this.transcripts.bytes(id);
  }

  /**
   * Adds entries at the end of the session's transcript (appended to its log behind; durable only
   * when asked: the transcript is mostly a cache of the backend's events).
   */
  appendTranscript(id: string, entries: readonly TranscriptEntry[], durable = false): void {
    this.transcripts.append(id, entries, durable);
  }

  /**
   * Makes the session's transcript what `through` makes of its entries (a merge after a Move),
   * streamed: appended to its log when it only adds after it, else rewritten line by line. Resolves
   * once written (fsynced when `durable`); rejects, changing nothing, when it cannot be.
   */
  rewriteTranscript(
    id: string,
    through: (entries: AsyncIterable<TranscriptEntry>) => AsyncIterable<TranscriptEntry>,
    durable = true,
  ): Promise<void> {
    return this.transcripts.rewrite(id, through, durable);
  }

  /** A path in this device's scratch folder (emptied at every start) for a file made and removed by one step. */
  scratchFile(name: string): string {
    return join(this.scratchDir, name);
  }

  /**
   * The folder a checkpoint's provider files are unpacked into on this device: the session's own
   * (`runtime/exports/<session>/<handoff>`), kept while its record names them (see pruneExports).
   */
  exportsDir(sessionId: string, handoffId: string): string {
    return join(this.exportsRoot, sessionId, handoffId);
  }

  /** Removes the session's unpacked provider files, except the folder `keep` names (the one its record still uses). */
  async pruneExports(sessionId: string, keep: string | null = null): Promise<void> {
    const dir = join(this.exportsRoot, sessionId);
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const folder = join(dir, name);
      if (folder !== keep) await rm(folder, { recursive: true, force: true });
    }
  }

  progress(handoffId: string): HandoffProgress | undefined {
    return this.handoffs.get(handoffId);
  }

  listProgress(): HandoffProgress[] {
    return this.handoffs.all();
  }

  /** Stores a handoff's progress (durably unless told otherwise). */
  saveProgress(progress: HandoffProgress, durable = true): void {
    this.handoffs.put(progress.handoffId, progress, durable);
  }

  /** The progress record for a handoff, created (and stored, durably unless told otherwise) on first sight. */
  ensureProgress(handoffId: string, sessionId: string, role: 'source' | 'target', now: number, durable = true): HandoffProgress {
    const existing = this.handoffs.get(handoffId);
    if (existing) return existing;
    const created: HandoffProgress = {
      handoffId,
      sessionId,
      role,
      done: [],
      seenAt: now,
      checkpoint: null,
      blockers: [],
      resumeNote: null,
      driftWarnings: [],
      targetFolder: null,
      finished: false,
    };
    this.saveProgress(created, durable);
    return created;
  }

  /**
   * Resolves once every durable record put so far is on disk (with `all`, every record); rejects if
   * a write failed.
   */
  async settled(all = false): Promise<void> {
    await Promise.all([this.sessions.settled(all), this.handoffs.settled(all), this.transcripts.settled(all)]);
  }

  /**
   * Writes everything queued and brings the record files up to date from their journals, for a
   * stop: the next start reads the same records either way, but finds them in their own files.
   */
  async close(): Promise<void> {
    await Promise.all([this.sessions.close(), this.handoffs.close(), this.transcripts.settled(true)]);
  }

  /** Applies `change` to the stored progress record in place and saves it; false when it is unknown. */
  updateProgress(handoffId: string, change: (progress: HandoffProgress) => void, durable = true): boolean {
    return this.handoffs.update(handoffId, change, durable);
  }
}
