/**
 * One device API call to a running device, from the command line: over the headless host's
 * WebSocket bridge, authorised by the token in the device's `ui:` address (what `baton device`
 * prints), so a command acts through the device that owns the sessions instead of opening its
 * profile beside it.
 */
import { WebSocket } from 'ws';
import type { DeviceApiInput, DeviceApiMethod, DeviceApiOutputs } from '../shared/device-api.ts';
import { DEVICE_API_PATH, TOKEN_PARAM, unwrapAnswer, type BridgeResponse } from '../shared/device-bridge.ts';

/** Calls `method` on the device whose UI address (with its token) is `uiUrl`; a refused call throws with the bridge's message. */
export async function callDevice<M extends DeviceApiMethod>(
  uiUrl: string,
  method: M,
  input: DeviceApiInput<M>,
): Promise<DeviceApiOutputs[M]> {
  const page = new URL(uiUrl);
  const token = page.searchParams.get(TOKEN_PARAM) ?? '';
  const socket = new WebSocket(`ws://${page.host}${DEVICE_API_PATH}?${TOKEN_PARAM}=${encodeURIComponent(token)}`);
  try {
    return await new Promise<DeviceApiOutputs[M]>((resolve, reject) => {
      socket.once('error', (error) => reject(new Error(`cannot reach the device at ${page.host}: ${error.message}`)));
      socket.once('close', () => reject(new Error('the device closed the connection (is the address and its token right?)')));
      socket.once('open', () => socket.send(JSON.stringify({ id: 1, method, input })));
      socket.on('message', (data) => {
        const answer = JSON.parse(data.toString()) as Partial<BridgeResponse>;
        if (answer.id !== 1) return; // an event, not our answer
        try {
          resolve(unwrapAnswer(answer as BridgeResponse) as DeviceApiOutputs[M]);
        } catch (error) {
          reject(error as Error);
        }
      });
    });
  } finally {
    socket.close();
  }
}
