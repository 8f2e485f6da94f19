/**
 * The one place a device API call from a renderer is checked before the runtime sees it:
 * the method must exist and its input must pass the method's schema in shared/device-api.ts.
 * Used by the headless WebSocket bridge and by the Electron IPC bridge alike.
 */
import { inputs, type DeviceApiHandlers, type DeviceApiMethod } from '../../../shared/device-api.ts';
import type { BridgeError } from '../../../shared/device-bridge.ts';

export type DispatchOutcome = { ok: true; result: unknown } | { ok: false; error: BridgeError };

/** Whether `method` names a device API method (own keys only: no prototype names). */
export function isDeviceApiMethod(method: unknown): method is DeviceApiMethod {
  return typeof method === 'string' && Object.prototype.hasOwnProperty.call(inputs, method);
}

/** What was wrong with a call's input, in words: its issues' own sentences (a schema's bare defaults name the field). */
function inputMessage(method: string, issues: { path: string; message: string }[]): string {
  const said = issues.map(({ path, message }) => (/[.!?]$/.test(message) ? message : `${path || 'The input'}: ${message}.`));
  return said.length > 0 ? said.join(' ') : `Invalid input for ${method}.`;
}

/**
 * Validates `input` against `inputs[method]` and runs the handler; unknown methods and invalid
 * inputs are refused without calling anything, and a handler failure becomes an `internal` error.
 */
export async function dispatchDeviceCall(handlers: DeviceApiHandlers, method: unknown, input: unknown): Promise<DispatchOutcome> {
  if (!isDeviceApiMethod(method)) {
    return { ok: false, error: { code: 'unknown_method', message: `Unknown device API method: ${String(method).slice(0, 64)}` } };
  }
  const parsed = inputs[method].safeParse(input ?? {});
  if (!parsed.success) {
    // Each issue names its field (`details.issues[].path`), so the UI shows it beside that field.
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    return { ok: false, error: { code: 'validation_failed', message: inputMessage(method, issues), details: { issues } } };
  }
  const handler = handlers[method] as (value: unknown) => Promise<unknown>;
  try {
    return { ok: true, result: await handler(parsed.data) };
  } catch (error) {
    return { ok: false, error: { code: 'internal', message: error instanceof Error ? error.message : 'The device runtime failed.' } };
  }
}
