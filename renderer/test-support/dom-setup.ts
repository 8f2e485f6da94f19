/**
 * Set-up of each renderer component test file (vitest project "renderer-dom", happy-dom): the page's
 * device is the fake, installed before any store binds to it; after each test the page is emptied,
 * the stores are back to their first state, and a call the bridge would refuse or the test did not
 * answer fails the test.
 */
import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, expect } from 'vitest';
import type { BatonApi } from '../api/device-api.ts';
import { fakeDevice } from './fake-device-api.ts';

/** A zustand store, put back to its first state by the returned function. */
function resetter<T>(store: { getInitialState(): T; setState(state: T, replace: true): void }): () => void {
  return () => store.setState(store.getInitialState(), true);
}

// renderer/api/device-api.ts binds to window.baton when it is first imported (the stores import it),
// so the fake goes in before they load.
// The fake is the page's API type: a method or event the contract gains or changes reaches it too.
const api: BatonApi = fakeDevice.api;
window.baton = api;
const resetStores = await Promise.all([
  import('../stores/devices-store.ts').then((m) => resetter(m.useDevicesStore)),
  import('../stores/handoffs-store.ts').then((m) => resetter(m.useHandoffsStore)),
  import('../stores/progress-store.ts').then((m) => resetter(m.useProgressStore)),
  import('../stores/sessions-store.ts').then((m) => resetter(m.useSessionsStore)),
  import('../stores/status-store.ts').then((m) => resetter(m.useStatusStore)),
]);

afterEach(() => {
  cleanup();
  const problems = [...fakeDevice.problems];
  fakeDevice.reset();
  for (const reset of resetStores) reset();
  expect(problems, 'calls the fake device refused').toEqual([]);
});
