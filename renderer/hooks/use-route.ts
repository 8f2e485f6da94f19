/** Hash routes of the app (the query string carries the host token and is left alone). */
import { useSyncExternalStore } from 'react';

export type Route = { screen: 'sessions' } | { screen: 'session'; sessionId: string } | { screen: 'devices' };

/** Parses a location hash into a route; anything unknown is the sessions screen. */
export function parseRoute(hash: string): Route {
  const session = /^#\/sessions\/([^/]+)$/.exec(hash);
  if (session) return { screen: 'session', sessionId: decodeURIComponent(session[1]!) };
  if (hash === '#/devices') return { screen: 'devices' };
  return { screen: 'sessions' };
}

/** The href of a route. */
export function routeHref(route: Route): string {
  if (route.screen === 'session') return `#/sessions/${encodeURIComponent(route.sessionId)}`;
  return route.screen === 'devices' ? '#/devices' : '#/';
}

/** Navigates to a route. */
export function navigate(route: Route): void {
  window.location.hash = routeHref(route);
}

function subscribe(notify: () => void): () => void {
  window.addEventListener('hashchange', notify);
  return () => window.removeEventListener('hashchange', notify);
}

/** The current route, re-rendering on hash changes. */
export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parseRoute(hash);
}
