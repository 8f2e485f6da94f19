/**
 * The memory link backed by the user's Baton account. A pointer is sealed under the account data
 * key and filed under a keyed topic of the slug, so the backend sees neither the slug nor the pointer.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { fail, ok, type ActionResult, type Result } from '../../shared/errors.ts';
import { keyedTopic } from '../crypto/keyed-topic.ts';
import type { KeyRing } from '../crypto/key-ring.ts';
import { sealJson, unsealJson } from '../crypto/sealed-json.ts';
import type { SealContext } from '../crypto/envelope.ts';
import { loadProfile } from '../enrollment/profile.ts';
import { createBackendClient } from '../sync/backend-client.ts';
import { BackendTrust } from '../sync/backend-trust.ts';
import { guardMemoryLink, noBackend, noBackendLink, type MemoryLink, type MemoryPointer } from './memory-link.ts';

/** The two backend routes the link uses (putMemory, listMemory), as a narrow port. */
export interface MemoryBackendPort {
  putMemory(body: { itemId: string; topic: string; sealedBody: string }): Promise<ActionResult>;
  listMemory(topic: string): Promise<Result<Array<{ sealedBody: string; createdAt: number }>>>;
}

/** What sealing needs from an enrolled profile. */
export interface MemoryKeys {
  accountId: string;
  ring: KeyRing;
}

const TOPIC_LABEL = 'handoff-slug';
const Pointer = z.object({ slug: z.string(), goal: z.string(), path: z.string(), repo: z.string() });

/** A failed backend call as a skip: it did not answer, or it refused (with its code). */
const backendFailed = (failure: { code: string; message: string }) =>
  noBackend(
    failure.code === 'unreachable'
      ? `the account backend did not answer: ${failure.message}`
      : `the account backend refused: ${failure.code}: ${failure.message}`,
  );
const context = (accountId: string, topic: string): SealContext => ({ purpose: 'memory-pointer', accountId, subject: topic });

/** A link storing sealed pointers through `backend`; any backend failure reads as no_backend (with why), never as an exception. */
export function accountMemoryLink(keys: MemoryKeys, backend: MemoryBackendPort): MemoryLink {
  const topicOf = (slug: string) => keyedTopic(keys.ring, TOPIC_LABEL, slug);
  return guardMemoryLink({
    async remember(pointer: MemoryPointer) {
      const topic = topicOf(pointer.slug);
      if (topic === null) return noBackend('this device holds no account key yet');
      const sealedBody = sealJson(keys.ring, context(keys.accountId, topic), pointer);
      const put = await backend.putMemory({ itemId: randomBytes(16).toString('base64url'), topic, sealedBody });
      return put.ok ? { status: 'stored' } : backendFailed(put);
    },
    async recall(slug: string) {
      const topic = topicOf(slug);
      if (topic === null) return noBackend('this device holds no account key yet');
      const listed = await backend.listMemory(topic);
      if (!listed.ok) return backendFailed(listed);
      const items = [...listed.value]
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((item) => unsealJson(keys.ring, context(keys.accountId, topic), item.sealedBody, Pointer))
        .flatMap((opened) => (opened.ok && opened.value.slug === slug ? [opened.value] : []));
      return { status: 'recalled', count: items.length, items };
    },
  });
}

/** A link whose every call is skipped with no_backend, saying why. */
function skippedLink(detail: string): MemoryLink {
  return { remember: async () => noBackend(detail), recall: async () => noBackend(detail) };
}

/**
 * The memory link for this machine: the account of the enrolled device profile in `profileDir`,
 * or skipped with no_backend when there is no profile (or it is not enrolled). Never throws.
 */
export async function openMemoryLink(
  profileDir: string | undefined,
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<MemoryLink> {
  if (profileDir === undefined) return noBackendLink;
  let loaded: ReturnType<typeof loadProfile>;
  try {
    loaded = loadProfile(profileDir);
  } catch (error) {
    return skippedLink(`cannot read the device profile: ${(error as Error).message}`);
  }
  if (!loaded.ok) return skippedLink(loaded.message);
  const { info, ring, identity } = loaded.value;
  if (info.status !== 'enrolled' || info.accountId === null) return skippedLink(`the device profile is ${info.status}, not enrolled`);
  const client = createBackendClient({
    baseUrl: info.backendUrls,
    signer: identity,
    trust: new BackendTrust(info.backendPins),
    attempts: 1,
    timeoutMs: options.timeoutMs ?? 5000,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return accountMemoryLink(
    { accountId: info.accountId, ring },
    {
      async putMemory(body) {
        const result = await client.call('putMemory', { body });
        return result.ok ? ok(undefined) : fail(result.code, result.message);
      },
      async listMemory(topic) {
        const result = await client.call('listMemory', { query: { topic } });
        return result.ok ? ok(result.value.items) : fail(result.code, result.message);
      },
    },
  );
}
