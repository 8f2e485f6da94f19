/**
 * The wire shape of the device API when it is carried over a message channel (the headless host's
 * WebSocket bridge), and the client type both hosts expose to the renderer. Derived from
 * shared/device-api.ts so the Electron preload and the browser client cannot drift.
 */
import { z } from 'zod';
import {
  EVENT_NAMES,
  inputs,
  type DeviceApiEvent,
  type DeviceApiEvents,
  type DeviceApiHandlers,
  type DeviceApiMethod,
} from './device-api.ts';

/** The path of the WebSocket bridge on the headless host. */
export const DEVICE_API_PATH = '/api';

/** The query parameter carrying the per-launch token (page URL and socket URL). */
export const TOKEN_PARAM = 'token';

/** Every device API method name, in declaration order. */
export const METHOD_NAMES = Object.keys(inputs) as DeviceApiMethod[];

export const BridgeRequest = z.strictObject({
  id: z.number().int().nonnegative(),
  method: z.string().min(1).max(64),
  input: z.unknown(),
});
export type BridgeRequest = z.infer<typeof BridgeRequest>;

export interface BridgeError {
  code: 'unknown_method' | 'validation_failed' | 'invalid_message' | 'forbidden' | 'internal';
  message: string;
  details?: Record<string, unknown>;
}

export type BridgeResponse = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: BridgeError };

export type BridgeEvent = { [E in DeviceApiEvent]: { event: E; payload: DeviceApiEvents[E] } }[DeviceApiEvent];

/** `statusChanged` → `onStatusChanged`. */
export type SubscriptionName<E extends DeviceApiEvent> = `on${Capitalize<E>}`;

/** One `on<Event>` per device event; each returns its unsubscribe function. */
export type DeviceApiSubscriptions = {
  [E in DeviceApiEvent as SubscriptionName<E>]: (listener: (payload: DeviceApiEvents[E]) => void) => () => void;
};

/** What the renderer calls: one async method per device API method plus the event subscriptions. */
export type DeviceApiClient = DeviceApiHandlers & DeviceApiSubscriptions;

/** The subscription method name of an event. */
export function subscriptionName<E extends DeviceApiEvent>(event: E): SubscriptionName<E> {
  return `on${event[0]!.toUpperCase()}${event.slice(1)}` as SubscriptionName<E>;
}

/**
 * Builds a DeviceApiClient from two primitives: `call(method, input)` and `listen(event, listener)`.
 * Both hosts (Electron preload, browser WebSocket client) use it, so the shape is written once.
 */
export function buildDeviceApiClient(
  call: (method: DeviceApiMethod, input: unknown) => Promise<unknown>,
  listen: (event: DeviceApiEvent, listener: (payload: unknown) => void) => () => void,
): DeviceApiClient {
  const client: Record<string, unknown> = {};
  for (const method of METHOD_NAMES) client[method] = (input: unknown) => call(method, input);
  for (const event of EVENT_NAMES) client[subscriptionName(event)] = (listener: (payload: unknown) => void) => listen(event, listener);
  return client as DeviceApiClient;
}

/** A refused device API call, carried to the renderer with its code. */
export class DeviceApiError extends Error {
  constructor(
    readonly code: BridgeError['code'],
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DeviceApiError';
  }
}

/** Turns a bridge answer into its result, or throws a DeviceApiError with the refusal's code. */
export function unwrapAnswer(answer: { ok: true; result: unknown } | { ok: false; error: BridgeError }): unknown {
  if (answer.ok) return answer.result;
  throw new DeviceApiError(answer.error.code, answer.error.message, answer.error.details);
}
