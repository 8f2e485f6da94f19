/** Building blocks shared by every API schema. */
import { z } from 'zod';

/** Ids the backend or a device makes: 16–64 url-safe characters. */
export const Id = z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, 'must be an id of 16–64 url-safe characters');

/** A base64url string (sealed bodies, keys, signatures). Bounded so no field can exhaust memory. */
export const B64 = (max = 1 << 20) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

/** A lower-case hex SHA-256 digest. */
export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lower-case hex SHA-256 digest');

/** Milliseconds since the epoch. */
export const Millis = z.number().int().nonnegative();

/** A session ownership generation: starts at 1, +1 per completed transfer. */
export const Generation = z.number().int().positive();

export const ErrorBody = z.strictObject({
  error: z.strictObject({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});
