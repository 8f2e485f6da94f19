/** The ids the device API's inputs carry, bounded the same way in every area. */
import { z } from 'zod';

/** A Baton session's id. */
export const SessionId = z.string().min(1).max(64);
/** An enrolled device's id. */
export const DeviceId = z.string().min(1).max(64);
