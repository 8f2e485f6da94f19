/**
 * A fake device for the renderer's component tests, behind `window.baton`. It is built by the same
 * `buildDeviceApiClient` as the two real hosts, so it has exactly the contract's methods and events
 * (shared/device-api.ts); each answer a test gives is typed by the contract's outputs. Every call is
 * recorded; an input the contract's schema refuses, or a call the test gave no answer for, is a
 * problem the set-up fails the test on (dom-setup.ts), as the bridge would refuse it.
 */
import {
  inputs,
  type DeviceApiEvent,
  type DeviceApiEvents,
  type DeviceApiInput,
  type DeviceApiMethod,
  type DeviceApiOutputs,
  type DeviceStatusView,
} from '../../shared/device-api.ts';
import { buildDeviceApiClient, DeviceApiError, type DeviceApiClient } from '../../shared/device-bridge.ts';

/** What a method answers: a value, or a function of the call's input (async to hold the call open). */
export type Answer<M extends DeviceApiMethod> =
  DeviceApiOutputs[M] | ((input: DeviceApiInput<M>) => DeviceApiOutputs[M] | Promise<DeviceApiOutputs[M]>);

/** One call the renderer made, with its input. */
export type RecordedCall = { [M in DeviceApiMethod]: { method: M; input: DeviceApiInput<M> } }[DeviceApiMethod];

type Listener = (payload: unknown) => void;

/** The fake device: answers, recorded calls, pushed events. */
export class FakeDevice {
  readonly api: DeviceApiClient;
  readonly calls: RecordedCall[] = [];
  /** Calls the bridge would have refused or the test did not expect, in words. */
  readonly problems: string[] = [];
  private answers = new Map<DeviceApiMethod, Answer<DeviceApiMethod>>();
  private listeners = new Map<DeviceApiEvent, Set<Listener>>();

  constructor() {
    this.api = buildDeviceApiClient(
      (method, input) => this.call(method, input),
      (event, listener) => this.listen(event, listener),
    );
  }

  /** Sets what `method` answers from now on. */
  answer<M extends DeviceApiMethod>(method: M, answer: Answer<M>): void {
    this.answers.set(method, answer as Answer<DeviceApiMethod>);
  }

  /** Answers what the event bridge (use-device-events.ts) reloads on connecting: `status`, no sessions, no devices. */
  answerReload(status: DeviceStatusView): void {
    this.answer('getStatus', status);
    this.answer('listSessions', []);
    this.answer('listDevices', []);
  }

  /** The inputs of every call of `method` so far, in order. */
  callsOf<M extends DeviceApiMethod>(method: M): DeviceApiInput<M>[] {
    return this.calls.filter((call) => call.method === method).map((call) => call.input as DeviceApiInput<M>);
  }

  /** Pushes `event` to the page's subscribers, as the device runtime does. */
  emit<E extends DeviceApiEvent>(event: E, payload: DeviceApiEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(payload);
  }

  /** Forgets answers, calls, problems and subscribers (between tests). */
  reset(): void {
    this.answers.clear();
    this.listeners.clear();
    this.calls.length = 0;
    this.problems.length = 0;
  }

  private async call(method: DeviceApiMethod, input: unknown): Promise<unknown> {
    const parsed = inputs[method].safeParse(input);
    if (!parsed.success) {
      this.problems.push(`${method}: the bridge refuses ${JSON.stringify(input)}: ${parsed.error.message}`);
      throw new DeviceApiError('validation_failed', parsed.error.message);
    }
    this.calls.push({ method, input: parsed.data } as RecordedCall);
    const answer = this.answers.get(method);
    if (answer === undefined) {
      this.problems.push(`${method}: called with ${JSON.stringify(input)}, but the test gave it no answer`);
      throw new DeviceApiError('internal', `no answer for ${method}`);
    }
    return typeof answer === 'function' ? answer(parsed.data as never) : answer;
  }

  private listen(event: DeviceApiEvent, listener: Listener): () => void {
    const set = this.listeners.get(event) ?? new Set<Listener>();
    this.listeners.set(event, set);
    set.add(listener);
    return () => set.delete(listener);
  }
}

/** The one fake device of a test file's page (dom-setup.ts puts it behind `window.baton`). */
export const fakeDevice = new FakeDevice();

/** An answer the test releases later: the call stays open (its "pending" state shows) until `release`. */
export function heldAnswer<T>(): { answer: () => Promise<T>; release(value: T): void } {
  let release!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (release = resolve));
  return { answer: () => promise, release };
}
