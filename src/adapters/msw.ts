/**
 * `voxsim/msw`: the simulator as MSW request handlers. Only requests under `baseUrl`
 * are answered, so an integrator's own handlers (for their webhook URL, say) still
 * receive everything else.
 */
// First: it checks Node and msw before msw itself is loaded.
import './msw-runtime.js';
import { HttpResponse, http, type HttpHandler } from 'msw';
import { FileBody } from '../core/files.js';
import { foldQuery, type SimRequest } from '../core/http.js';
import { answerText } from '../core/json.js';
import { isMultipart } from '../core/multipart.js';
import type { Wire } from '../core/wire.js';
import type { Simulator } from '../simulator.js';

export { MIN_MSW, MIN_NODE, runtimeProblem } from './msw-runtime.js';

export interface HandlersOptions {
  /** The platform base URL the client under test is configured with, e.g. `https://api.example.test/api`. */
  baseUrl: string;
  /** The wire of these handlers' answers; default the simulator's (`createSimulator({ wire })`). */
  wire?: Wire;
}

/** The base URL split into the origin and the path prefix that requests must start with. */
function baseOf(baseUrl: string): { origin: string; prefix: string } {
  const url = new URL(baseUrl);
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
}

/**
 * MSW handlers answering every request under `baseUrl` from `sim`.
 * @example
 * const server = setupServer(...handlers(sim, { baseUrl: 'https://api.example.test/api' }))
 * server.listen()
 */
export function handlers(sim: Simulator, options: HandlersOptions): HttpHandler[] {
  const { origin, prefix } = baseOf(options.baseUrl);
  // STYLE: webhook URLs under the simulator's own base URL are refused, not looped back.
  sim.webhooks.refuseUnder(`${origin}${prefix}`);
  // live-platform H.7: the simulator's files are served under the base URL its client uses.
  sim.setBaseUrl(`${origin}${prefix}`);
  const inBase = (url: URL) => url.origin === origin && (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`));
  return [
    http.all(
      ({ request }) => inBase(new URL(request.url)),
      async ({ request }) => {
        const url = new URL(request.url);
        const readsBody = request.method !== 'GET' && request.method !== 'HEAD';
        // An upload is carried as bytes: its size counts bytes, and a binary file is no text.
        const upload = readsBody && isMultipart(request.headers.get('content-type') ?? undefined);
        const simRequest: SimRequest = {
          method: request.method,
          path: url.pathname.slice(prefix.length) || '/',
          query: foldQuery(url.searchParams),
          url: request.url,
          ...(options.wire !== undefined && { wire: options.wire }),
          headers: Object.fromEntries(request.headers),
          body: readsBody && !upload ? await request.text() : null,
          ...(upload && { bytes: new Uint8Array(await request.arrayBuffer()) }),
          encoded: true,
        };
        const response = await sim.handle(simRequest);
        // A file (a recording, an attachment: live-platform H.7) is sent as its bytes.
        if (response.body instanceof FileBody) {
          const { bytes, contentType } = response.body;
          return new HttpResponse(bytes.slice().buffer, { status: response.status, headers: { ...response.headers, 'content-type': contentType, 'content-length': String(bytes.length) } });
        }
        return new HttpResponse(answerText(response.body), {
          status: response.status,
          headers: { 'content-type': 'application/json', ...response.headers },
        });
      },
    ),
  ];
}
