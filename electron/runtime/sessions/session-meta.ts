/**
 * A session's metadata as the owner seals it on the backend (never in clear there): title,
 * provider, permission level and "Allow for this session" rules, the owner's workspace path and its
 * repositories. Another device learns the session from it; the owner rebuilds a lost local record from it.
 */
import { z } from 'zod';
import type { Session } from '../../../shared/api/sessions.ts';
import type { Result } from '../../../shared/errors.ts';
import { ContinueWithSchema, PROVIDER_CHANGES_MAX, ProviderChangeSchema } from '../../../shared/agent-switch.ts';
import { PermissionRuleSchema } from '../../../shared/permission-request.ts';
import { DEFAULT_PERMISSION_LEVEL, PermissionLevel } from '../../../shared/provider.ts';
import type { LocalSession } from '../../local-state/local-state.ts';
import { RepoRefSchema } from '../../local-state/record-parts.ts';
import type { SealPort } from '../../ports/seal.ts';

const MetaSchema = z.object({
  title: z.string(),
  provider: z.string(),
  /** Older metadata has none: the default level. */
  permission: PermissionLevel.default(DEFAULT_PERMISSION_LEVEL),
  /** The session's "Allow for this session" rules (older metadata: none). */
  permissionRules: z.array(PermissionRuleSchema).max(200).default([]),
  /** The owner's workspace path (on the device that published it). */
  workspace: z.string(),
  repos: z.array(RepoRefSchema),
  /** The device asked to clone the repositories afresh on the move to it (absent: none). */
  freshCloneOn: z.string().nullable().default(null),
  /** The agent the owner's move asked its target to continue with (older metadata: none). */
  continueWith: ContinueWithSchema.nullable().default(null),
  /** Where the session's agent changed, oldest first (older metadata: none). */
  providerChanges: z.array(ProviderChangeSchema).max(PROVIDER_CHANGES_MAX).default([]),
});
export type SessionMeta = z.infer<typeof MetaSchema>;

/** The sealed metadata of a session record (a record not yet made has no rules). */
export function metaOf(
  s: Pick<LocalSession, 'title' | 'provider' | 'permission' | 'workspace' | 'repos'> &
    Partial<Pick<LocalSession, 'permissions' | 'freshCloneOn' | 'continueWith' | 'providerChanges'>>,
): SessionMeta {
  const permissionRules = s.permissions?.rules ?? [];
  const { title, provider, permission, workspace, repos } = s;
  const agents = { continueWith: s.continueWith ?? null, providerChanges: s.providerChanges ?? [] };
  return { title, provider, permission, permissionRules, workspace, repos, freshCloneOn: s.freshCloneOn ?? null, ...agents };
}

/** Seals `meta` for the session. */
export function sealSessionMeta(seal: Pick<SealPort, 'sealJson'>, sessionId: string, meta: SessionMeta): string {
  return seal.sealJson(meta, { kind: 'session-meta', sessionId });
}

/** Opens a backend session record's metadata; a failure says why (a key version this device lacks, a bad shape). */
export function openSessionMeta(seal: Pick<SealPort, 'openJson'>, record: Pick<Session, 'id' | 'sealedMeta'>): Result<SessionMeta> {
  const opened = seal.openJson(record.sealedMeta, { kind: 'session-meta', sessionId: record.id });
  if (!opened.ok) return opened;
  const parsed = MetaSchema.safeParse(opened.value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, code: 'malformed_meta', message: 'The session metadata does not have the expected shape.' };
}
