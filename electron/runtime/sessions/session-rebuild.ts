/**
 * Rebuilding a session record this device lost (its file truncated or unreadable) from what the
 * account keeps: the sealed session metadata gives the title, provider, repositories and, for a
 * session this device owns, the workspace it published; the sealed event stream gives the
 * transcript and agent map (the caller pulls it). When the workspace is not on this device any
 * more, the session needs attention, with the reason and the fix, instead of sitting owned but
 * stuck; a later start finds the workspace back and lets it run again.
 */
import type { Session } from '../../../shared/api/sessions.ts';
import { DEFAULT_PERMISSION_LEVEL } from '../../../shared/provider.ts';
import { noPermissions } from '../../local-state/session-permissions.ts';
import type { LocalSession, LocalState } from '../../local-state/local-state.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { GitPort } from '../../ports/git.ts';
import type { SealPort } from '../../ports/seal.ts';
import { openSessionMeta, type SessionMeta } from './session-meta.ts';

export interface RebuildDeps {
  selfId: string;
  state: Pick<LocalState, 'saveSession' | 'updateSession'>;
  seal: Pick<SealPort, 'openJson'>;
  git: Pick<GitPort, 'repos'>;
}

/** The attention code of an owned session rebuilt without its workspace. */
export const WORKSPACE_MISSING = 'workspace_missing';
/** The attention code of an owned session whose record and metadata both could not be read. */
const RECORD_UNREADABLE = 'local_record_unreadable';

/** How to get a workspace back: each repository by its remote and branch. */
function restoreFix(meta: SessionMeta): string {
  const repos = meta.repos
    .map(
      (r) =>
        `clone ${r.remoteUrl ?? 'its remote'}${r.branch ? `, branch ${r.branch}` : ''}${r.relPath === '.' ? '' : `, into ${r.relPath}`}`,
    )
    .join('; ');
  return `Put the workspace back at ${meta.workspace}${repos ? ` (${repos})` : ''}, then restart Baton on this device.`;
}

/** The repository paths of `workspace` on this device; empty when it holds none (or is gone). */
async function reposAt(git: RebuildDeps['git'], workspace: string): Promise<string[]> {
  if (workspace === '') return [];
  return (await git.repos({ workspace, repoPaths: [] })).map((repo) => repo.path);
}

/**
 * A local record of a session learned from the backend's `record` and its opened metadata (null
 * when it could not be opened): no workspace on this device yet; transcript and agents start empty
 * (the event stream fills them).
 */
export function learnedRecord(record: Session, meta: SessionMeta | null): LocalSession {
  return {
    id: record.id,
    title: meta?.title ?? `Session ${record.id.slice(0, 8)}`,
    workspace: '',
    repoPaths: [],
    provider: meta?.provider ?? 'unknown',
    permission: meta?.permission ?? DEFAULT_PERMISSION_LEVEL,
    repos: meta?.repos ?? [],
    ownerDeviceId: record.ownerDeviceId,
    generation: record.generation,
    inputBlock: null,
    providerResume: null,
    needsAttention: null,
    freshCloneOn: meta?.freshCloneOn ?? null,
    moveBlock: null,
    agents: [],
    eventCursor: 0,
    permissions: { ...noPermissions(), rules: meta?.permissionRules ?? [] },
    continueWith: meta?.continueWith ?? null,
    providerChanges: meta?.providerChanges ?? [],
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/**
 * Saves a record rebuilt from the backend's `record` for a session whose local file could not be
 * read (`why`), and returns it. Transcript and agents start empty: the event stream fills them.
 */
export async function rebuildRecord(deps: RebuildDeps, record: Session, why: string): Promise<LocalSession> {
  const meta = openSessionMeta(deps.seal, record);
  const session = learnedRecord(record, meta.ok ? meta.value : null);
  const lost = `This device's record of the session could not be read (${why})`;
  if (record.ownerDeviceId === deps.selfId && !meta.ok) {
    session.needsAttention = {
      handoffId: null,
      code: RECORD_UNREADABLE,
      message: `${lost}, and the account's copy of its metadata could not be opened (${meta.code}).`,
      fix:
        meta.code === 'key_version_missing'
          ? 'Open Baton on an enrolled device that holds every account key version so it shares them with this one, then restart Baton here.'
          : 'Restore the session record from a backup of this device profile, then restart Baton here.',
    };
  } else if (record.ownerDeviceId === deps.selfId && meta.ok) {
    session.workspace = meta.value.workspace;
    session.repoPaths = await reposAt(deps.git, meta.value.workspace);
    if (session.repoPaths.length === 0) {
      session.needsAttention = {
        handoffId: null,
        code: WORKSPACE_MISSING,
        message: `${lost}. It was rebuilt from the account's copy, but its workspace ${meta.value.workspace} is not on this device any more.`,
        fix: restoreFix(meta.value),
      };
    }
  }
  if (session.needsAttention) session.inputBlock = { code: 'needs_attention', message: session.needsAttention.message };
  deps.state.saveSession(session);
  return session;
}

/**
 * For an owned session that needs attention because its workspace was missing: when the workspace
 * is back, clears the attention (and records its repositories) and answers true.
 */
export async function workspaceBack(deps: RebuildDeps, session: Readonly<LocalSession>): Promise<boolean> {
  if (session.needsAttention?.code !== WORKSPACE_MISSING) return false;
  const repoPaths = await reposAt(deps.git, session.workspace);
  if (repoPaths.length === 0) return false;
  deps.state.updateSession(session.id, (s) => {
    s.repoPaths = repoPaths;
    s.needsAttention = null;
    s.inputBlock = null;
  });
  return true;
}

export interface SessionRebuildDeps extends RebuildDeps {
  /** This device's name, as the note in the transcript (seen on every device) names it. */
  selfName?: string;
  /** Reads the session's event stream into its transcript and agent map (event-puller.ts). */
  pullEvents(sessionId: string): Promise<void>;
  /** Adds a Baton note to the session's transcript and appends it (event-sender.ts). */
  note(sessionId: string, text: string): void;
  /** Where this part tells what it changed (a session's view, or only its transcript). */
  changes: ChangeSink;
  log(message: string): void;
}

/**
 * Rebuilds a session whose local record could not be read (`why`) from the backend's record and
 * event stream, and says so in its transcript when this device owns it.
 */
export async function rebuildSession(deps: SessionRebuildDeps, record: Session, why: string): Promise<void> {
  const session = await rebuildRecord(deps, record, why);
  await deps.pullEvents(record.id);
  // Nothing of the session runs here now: an agent the last snapshot caught running was interrupted.
  deps.state.updateSession(record.id, (s) => {
    s.agents = s.agents.map((a) => (a.status === 'running' || a.status === 'starting' ? { ...a, status: 'interrupted' } : a));
  });
  deps.log(`session ${record.id}: its local record could not be read (${why}); rebuilt from the backend`);
  if (session.ownerDeviceId === deps.selfId) {
    const state = session.needsAttention ? `; it needs attention: ${session.needsAttention.fix ?? ''}` : '';
    deps.note(
      record.id,
      `${deps.selfName ?? 'This device'}'s record of the session could not be read (${why}); it was rebuilt from the account's sealed session metadata and event stream${state}`,
    );
  }
  deps.changes.emit('sessionChanged', { sessionId: record.id });
}
