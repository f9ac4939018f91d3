/**
 * Runs the README's server walk-through (examples/server.sh, curl in bash) with `fetch`,
 * so the suite needs nothing outside package.json. It reads the script as the shell
 * would for the forms it uses: variable assignments with `${VAR:-default}`, single and
 * double quotes (with `$VAR` inside double quotes), `\` line continuations, comments,
 * `curl -s -f -X METHOD -H header -d data URL [> /dev/null]` and `echo`. Anything else
 * fails, so the script cannot grow a form this runner would silently skip.
 */

/** The words of each command of `script`, variables expanded. */
function commands(script: string, env: Record<string, string | undefined>): string[][] {
  const vars: Record<string, string> = {};
  const expand = (text: string) =>
    text.replace(/\$\{(\w+):-([^}]*)\}|\$\{(\w+)\}|\$(\w+)/g, (_all, withDefault: string, fallback: string, braced: string, bare: string) => {
      if (withDefault !== undefined) return vars[withDefault] ?? env[withDefault] ?? fallback;
      const name = braced ?? bare;
      return vars[name] ?? env[name] ?? '';
    });
  const result: string[][] = [];
  let words: string[] = [];
  let word: string | null = null;
  const endWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  const endCommand = () => {
    endWord();
    if (words.length === 0) return;
    const assignment = words.length === 1 ? /^(\w+)=([\s\S]*)$/.exec(words[0]!) : null;
    if (assignment) vars[assignment[1]!] = assignment[2]!;
    else if (!['set'].includes(words[0]!)) result.push(words);
    words = [];
  };
  for (let i = 0; i < script.length; i += 1) {
    const c = script[i]!;
    if (c === '\\' && script[i + 1] === '\n') {
      i += 1;
      endWord();
    } else if (c === '\n' || c === ';') endCommand();
    else if (c === ' ' || c === '\t') endWord();
    else if (c === '#' && word === null) while (i + 1 < script.length && script[i + 1] !== '\n') i += 1;
    else if (c === "'") {
      const end = script.indexOf("'", i + 1);
      word = (word ?? '') + script.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const end = script.indexOf('"', i + 1);
      word = (word ?? '') + expand(script.slice(i + 1, end));
      i = end;
    } else if (c === '$') {
      const match = /^\$\{\w+(:-[^}]*)?\}|^\$\w+/.exec(script.slice(i))![0];
      word = (word ?? '') + expand(match);
      i += match.length - 1;
    } else word = (word ?? '') + c;
  }
  endCommand();
  return result;
}

/** What running `script` prints, with `VOXSIM_URL` (and any other variable) from `env`. */
export async function runCurlScript(script: string, env: Record<string, string | undefined>): Promise<string> {
  let stdout = '';
  for (const words of commands(script, env)) {
    const [name, ...args] = words;
    if (name === 'echo') {
      stdout += `${args.join(' ')}\n`;
      continue;
    }
    if (name !== 'curl') throw new Error(`The walk-through runs only curl and echo, not: ${words.join(' ')}`);
    let method: string | undefined;
    let url: string | undefined;
    let body: string | undefined;
    let fail = false;
    let discard = false;
    const headers = new Headers();
    for (let i = 0; i < args.length; i += 1) {
      const arg = args[i]!;
      if (arg === '-X') method = args[(i += 1)];
      else if (arg === '-H') {
        const header = args[(i += 1)]!;
        const at = header.indexOf(':');
        headers.set(header.slice(0, at).trim(), header.slice(at + 1).trim());
      } else if (arg === '-d') body = args[(i += 1)];
      else if (arg === '>' && args[i + 1] === '/dev/null') {
        discard = true;
        i += 1;
      } else if (/^-[sf]+$/.test(arg)) fail ||= arg.includes('f');
      else if (!arg.startsWith('-') && url === undefined) url = arg;
      else throw new Error(`curl option the walk-through runner does not know: ${arg}`);
    }
    // curl -d sends a POST with a form content type unless a header says otherwise.
    if (body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded');
    const res = await fetch(url!, { method: method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body !== undefined && { body }) });
    const text = await res.text();
    if (fail && res.status >= 400) throw new Error(`curl -f: ${method ?? 'GET'} ${url} answered ${res.status}: ${text}`);
    if (!discard) stdout += text;
  }
  return stdout;
}
