/** `voxsim openapi`: prints the OpenAPI 3.1 document of the platform and control API. */
import { parseArgs } from 'node:util';
import { openApiDocument } from '../control/openapi.js';
import { SERVER_ROUTES } from '../sandboxes/host.js';
import { commandHelp, usageError, usageMessage, wantsHelp } from './help.js';

/** `voxsim openapi [--server URL]`: the document `GET {base_url}/__sim/openapi.json` answers. */
export function openApiCommand(args: string[], out: Pick<Console, 'log' | 'error'>): number {
  if (wantsHelp(args)) {
    out.log(commandHelp('openapi'));
    return 0;
  }
  let server: string | undefined;
  try {
    ({ values: { server } } = parseArgs({ args, options: { server: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    return usageError(out, usageMessage(error as Error, 'openapi'), 'openapi');
  }
  out.log(JSON.stringify(openApiDocument(SERVER_ROUTES, server === undefined ? {} : { serverUrl: server }), null, 2));
  return 0;
}
