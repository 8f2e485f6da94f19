/**
 * A backend a device hosts for its account: what the device asks of whatever runs it (in its own
 * process, or in a child process: the desktop app's), and the messages between the device and such a
 * child, declared once here. The device sends `start` (with the request) or `stop`; the child answers
 * each `start` with `started` or `failed`, and says `stopped` before it exits.
 */
import { z } from 'zod';

/** The port a hosted backend takes at its first start, when it is free. */
export const DEFAULT_HOSTED_PORT = 8787;

export const HostingRequest = z.strictObject({
  /** The data folder (made when missing; a store there is opened as it is). */
  dataDir: z.string().min(1),
  /** The port to listen on. */
  port: z.number().int().min(0).max(65535),
  /** When false and the port is taken, a free one is used instead (nobody else relies on it yet). */
  portFixed: z.boolean(),
  /** Whether other machines may reach it (every address of the machine) or only this one (127.0.0.1). */
  shared: z.boolean(),
  /** Names and addresses its certificate names besides loopback (devices pin its key, not the names). */
  names: z.array(z.string().max(300)).max(64),
});
export type HostingRequest = z.infer<typeof HostingRequest>;

/** A hosted backend that serves: its port and the fingerprint of its key (which devices pin). */
export const HostingStarted = z.strictObject({
  port: z.number().int().min(1).max(65535),
  fingerprint: z.string().regex(/^sha256:[0-9a-f]{64}$/),
});
export type HostingStarted = z.infer<typeof HostingStarted>;

/** What the device sends the child that runs its backend. */
export const HostingCommand = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('start'), request: HostingRequest }),
  z.strictObject({ op: z.literal('stop') }),
]);
export type HostingCommand = z.infer<typeof HostingCommand>;

/** What the child answers. */
export const HostingReply = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('started'), started: HostingStarted }),
  z.strictObject({ op: z.literal('failed'), code: z.string().max(100), message: z.string().max(2000) }),
  z.strictObject({ op: z.literal('stopped') }),
]);
export type HostingReply = z.infer<typeof HostingReply>;
