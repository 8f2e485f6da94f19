/**
 * The one event bridge: subscribes to every device event once and writes it into the stores.
 * On every (re)connection — reported at once when already open — it reloads what the stores hold,
 * so a dropped socket never leaves stale state.
 */
import { useEffect } from 'react';
import { api, onConnection } from '../api/device-api.ts';
import { useDevicesStore } from '../stores/devices-store.ts';
import { showBrowserNotice } from '../model/browser-notices.ts';
import { useHandoffsStore } from '../stores/handoffs-store.ts';
import { useProgressStore } from '../stores/progress-store.ts';
import { useSessionsStore } from '../stores/sessions-store.ts';
import { useStatusStore } from '../stores/status-store.ts';
import { navigate } from './use-route.ts';

/** Reloads every store from the device. */
function reloadAll(): void {
  void useStatusStore.getState().load();
  void useSessionsStore.getState().load();
  void useDevicesStore.getState().load();
  const sessions = useSessionsStore.getState();
  for (const sessionId of Object.keys(sessions.details)) void sessions.loadDetail(sessionId).catch(() => undefined);
}

/** Subscribes the stores to the device's events for the lifetime of the app. */
export function useDeviceEvents(): void {
  useEffect(() => {
    const openSession = (sessionId: string) => navigate({ screen: 'session', sessionId });
    const stops = [
      api.onStatusChanged((status) => useStatusStore.getState().setStatus(status)),
      api.onSessionsChanged((sessions) => useSessionsStore.getState().setSessions(sessions)),
      api.onSessionChanged((detail) => useSessionsStore.getState().setDetail(detail)),
      api.onSessionActivity((activity) => useSessionsStore.getState().applyActivity(activity)),
      api.onDevicesChanged((devices) => useDevicesStore.getState().setDevices(devices)),
      api.onHandoffChanged((handoff) => {
        useProgressStore.getState().handoffChanged(handoff);
        useSessionsStore.getState().applyHandoff(handoff);
        useHandoffsStore.getState().applyHandoff(handoff, useStatusStore.getState().status?.deviceId ?? null);
      }),
      api.onHandoffProgress((report) => useProgressStore.getState().apply(report)),
      api.onMoveNotice((notice) => showBrowserNotice(notice, openSession)),
      api.onNoticeClicked(({ sessionId }) => openSession(sessionId)),
      onConnection((state) => {
        useStatusStore.getState().setConnection(state);
        if (state === 'open') reloadAll();
      }),
      // A session that left the device's list takes what this page held of its moves with it.
      useSessionsStore.subscribe((state, before) => {
        if (state.loaded && state.sessions !== before.sessions) useHandoffsStore.getState().keepSessions(state.sessions.map((s) => s.id));
      }),
    ];
    return () => stops.forEach((stop) => stop());
  }, []);
}
