import { describe, expect, it } from 'vitest';
import { inputs } from './device-api.ts';
import { backendInputs } from './device-api/backend.ts';
import { deviceInputs } from './device-api/devices.ts';
import { moveInputs } from './device-api/moves.ts';
import { permissionInputs } from './device-api/permissions.ts';
import { sessionInputs } from './device-api/sessions.ts';

const areas = { deviceInputs, backendInputs, sessionInputs, permissionInputs, moveInputs };

describe('the device API method table', () => {
  it('holds every method of every area, each declared in one area only', () => {
    const declared = Object.values(areas).flatMap((area) => Object.keys(area));
    expect(new Set(declared).size).toBe(declared.length);
    expect(Object.keys(inputs).sort()).toEqual([...declared].sort());
  });

  it('takes each method its own area schema', () => {
    for (const area of Object.values(areas))
      for (const [method, schema] of Object.entries(area)) expect(inputs[method as keyof typeof inputs], method).toBe(schema);
  });
});
