/**
 * Starting a session: the input is checked (a known provider, a permission level only where the
 * provider has levels, a workspace holding git repositories), the session is created on the
 * backend at generation 1 owned by this device with its sealed metadata, recorded locally, and
 * its provider started on the prompt. Adoption (session-adoption.ts) makes its record the same way.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Failure, Result } from '../../../shared/errors.ts';
import { fail, ok } from '../../../shared/errors.ts';
import {
  DEFAULT_PERMISSION_LEVEL,
  isProviderId,
  type PermissionLevel,
  PROVIDER_CAPABILITIES,
  PROVIDER_LABELS,
  type ProviderId,
} from '../../../shared/provider.ts';
import { newId } from '../../crypto/new-id.ts';
import type { LocalSession, LocalState } from '../../local-state/local-state.ts';
import type { BackendPort } from '../../ports/backend.ts';
import type { ChangeSink } from '../../ports/changes.ts';
import type { Clock } from '../../ports/clock.ts';
import type { GitPort, RepoSnapshot } from '../../ports/git.ts';
import type { RepoRef } from '../../ports/repo-ref.ts';
import type { SealPort } from '../../ports/seal.ts';
import type { SessionContent } from '../../ports/sessions.ts';
import type { EventSender } from './event-sender.ts';
import type { ProviderDriver } from './provider-driver.ts';
import { metaOf, sealSessionMeta } from './session-meta.ts';
import { learnedRecord } from './session-rebuild.ts';

/** What a new session is made of (start and adopt). */
export interface NewSessionInput {
  workspace: string;
  provider: string;
  title?: string;
  permission?: PermissionLevel;
}

/** A new session's input after checkNew: a known provider, its level, the workspace's repositories. */
export interface CheckedNewSession {
  workspace: string;
  provider: ProviderId;
  permission: PermissionLevel;
  snapshots: RepoSnapshot[];
}

export interface SessionStartDeps {
  state: Pick<LocalState, 'session' | 'saveSession' | 'appendTranscript'>;
  backend: Pick<BackendPort, 'createSession'>;
  seal: Pick<SealPort, 'sealJson'>;
  git: Pick<GitPort, 'repos'>;
  events: Pick<EventSender, 'published'>;
  driver: Pick<ProviderDriver, 'attach'>;
  clock: Clock;
  /** Where this part tells what it changed (a session's view, or only its transcript). */
  changes: ChangeSink;
  log(message: string): void;
}

/** `~/x` as the folder in this user's home (the path a person types); any other path as it is. */
function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}

/** Why `path` cannot be a session's workspace before git is asked (nothing there, a file, not absolute), or null. */
function missingFolder(path: string): Failure | null {
  const field = { field: 'workspace' };
  if (!isAbsolute(path))
    return fail(
      'workspace_not_absolute',
      `${path} is not a full path: give the folder from the root, e.g. /home/you/src/app or ~/src/app.`,
      field,
    );
  const kind = statSync(path, { throwIfNoEntry: false });
  if (kind === undefined)
    return fail(
      'workspace_missing',
      `There is no folder ${path} on this device. Check the path, or clone the repository there first.`,
      field,
    );
  if (!kind.isDirectory()) return fail('workspace_not_a_folder', `${path} is a file, not a folder: give the repository's folder.`, field);
  return null;
}

/**
 * Checks what a new session is made of: a known provider, a permission level only for a provider
 * that has levels, a workspace holding git repositories. Resolves to the input with its repositories.
 */
export async function checkNew(deps: Pick<SessionStartDeps, 'git'>, input: NewSessionInput): Promise<Result<CheckedNewSession>> {
  if (!isProviderId(input.provider)) return fail('unknown_provider', `No provider named ${input.provider}.`);
  if (input.permission !== undefined && !PROVIDER_CAPABILITIES[input.provider].permissions)
    return fail('invalid_argument', `${PROVIDER_LABELS[input.provider]} has no permission levels.`);
  const workspace = expandHome(input.workspace);
  const missing = missingFolder(workspace);
  if (missing) return missing;
  const snapshots = await deps.git.repos({ workspace, repoPaths: [] });
  if (snapshots.length === 0)
    return fail(
      'not_a_repository',
      `${workspace} is a folder, but not a git repository (nor does it hold one directly inside). Pick the folder of a clone, or make this one a repository: git init ${workspace} (then commit, and add a remote to move it).`,
      { field: 'workspace' },
    );
  const provider: ProviderId = input.provider;
  return ok({ workspace, provider, permission: input.permission ?? DEFAULT_PERMISSION_LEVEL, snapshots });
}

/** Creates the session `id` on the backend (generation 1, owned here) and its local record, with `content` as its history. */
export async function createRecord(
  deps: SessionStartDeps,
  input: CheckedNewSession,
  title: string,
  content: SessionContent = { agents: [], transcript: [] },
  id: string = newId(),
): Promise<Result<LocalSession>> {
  const repos: RepoRef[] = input.snapshots.map(({ relPath, remoteUrl, branch }) => ({ relPath, remoteUrl, branch }));
  const meta = metaOf({ title, provider: input.provider, permission: input.permission, workspace: input.workspace, repos });
  const created = await deps.backend.createSession(id, sealSessionMeta(deps.seal, id, meta));
  if (!created.ok) return created;
  deps.events.published(id, created.value.generation, meta);
  const now = deps.clock();
  const session: LocalSession = {
    ...learnedRecord(created.value, meta),
    workspace: input.workspace,
    repoPaths: input.snapshots.map((r) => r.path),
    agents: content.agents,
    createdAt: now,
    updatedAt: now,
  };
  deps.state.saveSession(session);
  deps.state.appendTranscript(id, content.transcript, true);
  return ok(session);
}

/** Starts a session on `workspace` with `provider`; this device owns it at generation 1. */
export async function startSession(deps: SessionStartDeps, input: NewSessionInput & { prompt: string }): Promise<Result<LocalSession>> {
  const checked = await checkNew(deps, input);
  if (!checked.ok) return checked;
  const title = input.title?.trim() || input.prompt.trim().split('\n')[0]?.slice(0, 80) || 'Untitled session';
  const created = await createRecord(deps, checked.value, title);
  if (!created.ok) return created;
  const id = created.value.id;
  const provider = deps.driver.attach(id, input.provider);
  const started = await provider.start(input.workspace, input.prompt);
  if (!started.ok) deps.log(`provider failed to start: ${started.message}`);
  deps.changes.emit('sessionChanged', { sessionId: id });
  return ok(deps.state.session(id)!);
}
