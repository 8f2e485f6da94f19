/** Matches a request to an entry of the route table (shared/api/routes.ts), deriving patterns from its paths. */
import { routes, type RouteName, type RouteSpec } from '../../shared/api/routes.ts';

interface Compiled {
  name: RouteName;
  spec: RouteSpec;
  pattern: RegExp;
  params: string[];
}

export type RouteMatch =
  { ok: true; name: RouteName; spec: RouteSpec; params: Record<string, string> } | { ok: false; code: 'not_found' | 'method_not_allowed' };

const compiled: Compiled[] = (Object.entries(routes) as [RouteName, RouteSpec][]).map(([name, spec]) => {
  const params: string[] = [];
  const source = spec.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { name, spec, pattern: new RegExp(`^${source}$`), params };
});

/** Finds the route for `method` and `pathname`; an unknown path is not_found, a known one with another method method_not_allowed. */
export function matchRoute(method: string, pathname: string): RouteMatch {
  let pathKnown = false;
  for (const route of compiled) {
    const m = route.pattern.exec(pathname);
    if (!m) continue;
    pathKnown = true;
    if (route.spec.method !== method) continue;
    const params: Record<string, string> = {};
    try {
      route.params.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1]!)));
    } catch {
      return { ok: false, code: 'not_found' };
    }
    return { ok: true, name: route.name, spec: route.spec, params };
  }
  return { ok: false, code: pathKnown ? 'method_not_allowed' : 'not_found' };
}
