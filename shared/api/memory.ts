/**
 * Sealed memory pointers (handoff packets' memory link). The topic is an opaque tag the devices
 * derive from the slug with a keyed hash, so the backend never learns branch names.
 */
import { z } from 'zod';
import { B64, Id, Millis } from './common.ts';

export const Topic = z.string().regex(/^[0-9a-f]{64}$/, 'must be a keyed hex digest');

export const MemoryItem = z.strictObject({ id: Id, topic: Topic, deviceId: Id, sealedBody: B64(64 << 10), createdAt: Millis });
export const PutMemoryRequest = z.strictObject({ itemId: Id, topic: Topic, sealedBody: B64(64 << 10) });
export const MemoryListResponse = z.strictObject({ items: z.array(MemoryItem) });
