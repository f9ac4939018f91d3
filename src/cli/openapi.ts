/** `voxsim openapi`: prints the OpenAPI 3.1 document of the platform and control API. */
import { openApiDocument } from '../control/openapi.js';
import { SERVER_ROUTES } from '../sandboxes/host.js';
import { parseFlags, usageError, usageMessage } from './help.js';

/**
 * `voxsim openapi [--server URL]` (its `--help` is the main's): the document
 * `GET {base_url}/__sim/openapi.json` answers. Its `--server` is the URL the document
 * names, not a server it talks to.
 */
export function openApiCommand(args: string[], out: Pick<Console, 'log' | 'error'>): number {
  let server: string | undefined;
  try {
    ({ values: { server } } = parseFlags('openapi', args));
  } catch (error) {
    return usageError(out, usageMessage(error as Error, 'openapi'), 'openapi');
  }
  out.log(JSON.stringify(openApiDocument(SERVER_ROUTES, server === undefined ? {} : { serverUrl: server }), null, 2));
  return 0;
}
