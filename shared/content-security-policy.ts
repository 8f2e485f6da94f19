/**
 * The renderer page's Content-Security-Policy, written once. The built page carries it as a meta tag
 * (vite.renderer.config.ts), the Electron shell adds it as a header to every response
 * (electron/main.ts) and the headless host sends it as a header with every answer
 * (electron/host/static-files.ts); electron/shell/shell-build.test.ts checks that all three agree.
 *
 * Our own scripts, styles, images, fonts and connections only: 'self' covers the headless host's
 * WebSocket, on the page's own host and port. No plugins, no <base>, no form targets, no framing.
 */

const DIRECTIVES: readonly (readonly [name: string, sources: string])[] = [
  ['default-src', "'none'"],
  ['script-src', "'self'"],
  ['style-src', "'self'"],
  ['img-src', "'self' data:"],
  ['font-src', "'self'"],
  ['connect-src', "'self'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
  ['object-src', "'none'"],
  ['frame-ancestors', "'none'"],
];

/** Directives a policy in a <meta> tag cannot carry: browsers ignore them there, and say so in the console. */
export const HEADER_ONLY_DIRECTIVES: readonly string[] = ['frame-ancestors'];

const written = (directives: readonly (readonly [string, string])[]) =>
  directives.map(([name, sources]) => `${name} ${sources}`).join('; ');

/** The policy as a response header carries it. */
export const CONTENT_SECURITY_POLICY = written(DIRECTIVES);

/** The same policy as the page's meta tag carries it: without the header-only directives. */
export const META_CONTENT_SECURITY_POLICY = written(DIRECTIVES.filter(([name]) => !HEADER_ONLY_DIRECTIVES.includes(name)));

/** The policy under the Vite dev server: its inline refresh script and its hot-reload socket allowed too. */
export const DEV_SERVER_CONTENT_SECURITY_POLICY = written(
  DIRECTIVES.map(([name, sources]): readonly [string, string] => {
    if (name === 'script-src') return [name, `${sources} 'unsafe-inline'`];
    if (name === 'connect-src') return [name, `${sources} ws://localhost:*`];
    return [name, sources];
  }),
);
