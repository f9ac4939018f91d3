/**
 * `voxsim catalog pull|schema` (issue 27): writes the catalog of a running platform as a
 * catalog document, prints the JSON Schema of catalog documents. Their `--help` is the
 * main's (src/cli/main.ts).
 */
import { CatalogPullError, pullCatalog } from '../adapters/catalog-client.js';
import { catalogJsonSchema } from '../domain/catalog/document.js';
import { fsReason } from '../state/persist.js';
import { EXIT_USAGE, parseFlags, usageError, usageMessage } from './help.js';

type Out = Pick<Console, 'log' | 'error'>;

/** `voxsim catalog schema`: the JSON Schema of catalog documents. */
export function catalogSchemaCommand(args: string[], out: Out): number {
  try {
    parseFlags('catalog schema', args);
  } catch (error) {
    return usageError(out, usageMessage(error as Error, 'catalog schema'), 'catalog schema');
  }
  out.log(JSON.stringify(catalogJsonSchema(), null, 2));
  return 0;
}

/**
 * `voxsim catalog pull --from URL --key KEY [--out FILE]` (issue 27). A pull that is
 * refused or cannot reach the platform is one line and exit 2.
 */
export async function catalogPullCommand(args: string[], out: Out): Promise<number> {
  const command = 'catalog pull';
  let values: { from?: string; key?: string; out?: string };
  try {
    ({ values } = parseFlags(command, args));
    if (values.from === undefined || !/^https?:\/\/[^/]/.test(values.from)) throw new Error(`--from must be the platform's API base URL, such as http://127.0.0.1:4010/api${values.from === undefined ? '' : `, got "${values.from}"`}`);
    if (values.key === undefined || values.key === '') throw new Error('--key must be an API key of the platform');
  } catch (error) {
    return usageError(out, usageMessage(error as Error, command), command);
  }
  try {
    const text = `${JSON.stringify(await pullCatalog(values.from, values.key), null, 2)}\n`;
    if (values.out === undefined) process.stdout.write(text);
    else {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(values.out, text);
      out.error(`Wrote the catalog of ${values.from} to ${values.out}.`);
    }
    return 0;
  } catch (error) {
    if (error instanceof CatalogPullError) out.error(`voxsim catalog pull: ${error.message}`);
    else if ((error as NodeJS.ErrnoException).code !== undefined) out.error(`voxsim catalog pull: cannot write ${values.out} (${fsReason(error)})`);
    else throw error;
    return EXIT_USAGE;
  }
}
