/**
 * The `voxsim` command and the README's set-up commands.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banner, commandHelp, COMMANDS, EXIT_USAGE, main, parseServeArgs, serve, USAGE, type CommandName, type RunningServer } from '../src/cli.js';
import { GROUPS } from '../src/cli/commands.js';
import { DEFAULT_SERVER_URL } from '../src/control/openapi.js';
import { VERSION } from '../src/version.js';
import { pipelineAssistant } from './support/fixtures.js';
import { startServer, stop, voxsim, within } from './support/processes.js';
import { captureConsole } from './support/console.js';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string; scripts: Record<string, string>; bin: Record<string, string> };

describe('voxsim serve arguments', () => {
  it('uses the documented defaults', () => {
    expect(parseServeArgs([])).toEqual({ port: 4010, host: '127.0.0.1', seed: 1, basePath: '/api', quiet: false });
    expect(parseServeArgs(['--exit-with-parent'])).toEqual({ port: 4010, host: '127.0.0.1', seed: 1, basePath: '/api', quiet: false, exitWithParent: true });
  });

  it('reads every flag', () => {
    expect(
      parseServeArgs(['--port', '5000', '--host', '0.0.0.0', '--seed', '9', '--base-path', 'v1/', '--start', '2026-03-02T09:00:00Z', '--admin-token', 'secret', '--speed', '60', '--state-file', 'state.json', '--scenario', 's.yaml', '--quiet']),
    ).toEqual({
      port: 5000,
      host: '0.0.0.0',
      seed: 9,
      basePath: '/v1',
      start: '2026-03-02T09:00:00Z',
      adminToken: 'secret',
      speed: 60,
      stateFile: 'state.json',
      scenario: 's.yaml',
      quiet: true,
    });
  });

  it.each([
    [['--start', '1970-01-01T00:00:00Z'], { start: '1970-01-01T00:00:00Z' }],
    [['--start', '9999-01-01T00:00:00Z'], { start: '9999-01-01T00:00:00Z' }],
    [['--speed', '0.001'], { speed: 0.001 }],
    [['--speed', '1000000'], { speed: 1_000_000 }],
  ])('takes %j, an edge of its range', (args, expected) => {
    expect(parseServeArgs(args)).toMatchObject(expected);
  });

  it('takes an empty base path as the root', () => {
    expect(parseServeArgs(['--base-path', '/']).basePath).toBe('');
  });

  it.each([
    [['--port', 'http'], '--port must be a port number'],
    [['--port', '70000'], '--port must be a port number'],
    [['--seed=-1'], '--seed must be a whole number'],
    [['--start', 'tomorrow'], '--start must be an ISO 8601 time'],
    [['--start', '+275760-09-13T00:00:00Z'], '--start must be a time from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z, got "+275760-09-13T00:00:00Z"'],
    [['--start', '9999-01-01T00:00:00.001Z'], '--start must be a time from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z, got "9999-01-01T00:00:00.001Z"'],
    [['--start', '1969-12-31T23:59:59Z'], '--start must be a time from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z, got "1969-12-31T23:59:59Z"'],
    [['--speed', '0.0009'], '--speed must be a number from 0.001 to 1000000 (60 = a minute per second), got "0.0009"'],
    [['--speed', '1000001'], '--speed must be a number from 0.001 to 1000000 (60 = a minute per second), got "1000001"'],
    [['--verbose'], "Unknown option '--verbose'"],
  ])('refuses %j', (args, message) => {
    expect(() => parseServeArgs(args)).toThrow(message);
  });
});

describe('voxsim command', () => {
  it('prints the version', async () => {
    const { lines, out } = captureConsole();
    expect(await main(['--version'], out)).toBe(0);
    expect(lines).toEqual([VERSION]);
    expect(VERSION).toBe(pkg.version);
  });

  // Issue 15 item 7 changed usage errors from exit 1 to exit 2.
  it('prints usage and fails on an unknown command', async () => {
    const { lines, out } = captureConsole();
    expect(await main(['launch'], out)).toBe(2);
    expect(lines[0]).toContain('Unknown command "launch"');
    expect(lines[0]).toContain('voxsim serve [--port 4010]');
  });

  it('prints usage and fails on bad flags without starting', async () => {
    const { lines, out } = captureConsole();
    expect(await main(['serve', '--port', 'x'], out)).toBe(2);
    expect(lines[0]).toContain('--port must be a port number');
  });

  it('names the URL, the default key and the control prefix in the banner', () => {
    expect(banner('http://127.0.0.1:4010/api')).toBe(
      [
        `voxsim ${VERSION} listening on http://127.0.0.1:4010/api`,
        '  API base URL:  http://127.0.0.1:4010/api',
        '  API key:       sim_test_key   (Authorization: Bearer sim_test_key)',
        '  Control API:   http://127.0.0.1:4010/api/__sim   (try http://127.0.0.1:4010/api/__sim/health)',
        '  Sandboxes:     http://127.0.0.1:4010/api/__sim/sandboxes   (voxsim sandbox create --url http://127.0.0.1:4010/api)',
      ].join('\n'),
    );
  });

  it('refuses webhook deliveries to itself under any loopback name', async () => {
    const running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: '2026-03-02T09:00:00Z' });
    try {
      const port = new URL(running.url).port;
      for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
        running.sim.webhooks.send({ account_id: 1, kind: 'conversation_ended', url: `http://${host}:${port}/api/user/me`, payload: {} });
      }
      await running.sim.clock.advance(0);
      const errors = running.sim.webhooks.deliveries().map((d) => d.attempts[0]?.error);
      expect(errors).toEqual(Array(3).fill("refused: the URL is the simulator's own API"));
    } finally {
      await running.close();
    }
  });

  it('serves the API and the control API under the base path', async () => {
    const running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: '2026-03-02T09:00:00Z' });
    try {
      const health = await fetch(`${running.url}/__sim/health`);
      expect(await health.json()).toEqual({ ok: true, version: VERSION, now: '2026-03-02T09:00:00Z' });
      const outside = await fetch(running.url.replace('/api', '/other'));
      expect(outside.status).toBe(404);
      expect(await outside.json()).toEqual({ message: 'The route other could not be found.' });
    } finally {
      await running.close();
    }
  });
});

/** Captures stdout and stderr apart. */
function streams() {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: { log: (s: string) => stdout.push(s), error: (s: string) => stderr.push(s) } as unknown as Console };
}

const SERVE_FLAGS = ['--port', '--host', '--seed', '--base-path', '--start', '--speed', '--state-file', '--state-dir', '--compact-after', '--scenario', '--admin-token', '--wire', '--catalog', '--quiet', '--stream-buffer', '--exit-with-parent', '--max-sandboxes', '--max-loaded-sandboxes', '--sandbox-ttl', '--open-sandboxes', '--shard', '--help'];
const EVENTS_FLAGS = ['--url', '--admin-token', '--type', '--account', '--since', '--json', '--no-color', '--help'];

/** The option lines of a help text: `  --flag VALUE   description`, as [flag, description]. */
function optionLines(help: string): [string, string][] {
  const options = help.split('\n').slice(help.split('\n').indexOf('Options:') + 1);
  return options.map((line) => {
    const m = /^ {2}(?:-h, )?(--[a-z-]+)(?: \S+)? {2,}(\S.*)$/.exec(line);
    expect(m, line).not.toBeNull();
    return [m![1]!, m![2]!];
  });
}

describe('voxsim COMMAND --help', () => {
  it.each([
    [['serve', '--help'], 'Usage: voxsim serve [options]'],
    [['serve', '-h'], 'Usage: voxsim serve [options]'],
    [['events', '--help'], 'Usage: voxsim events [options]'],
    [['scenario', '--help'], 'Usage: voxsim scenario run|list|schema|from-har [options]'],
    [['scenario', 'run', '--help'], 'Usage: voxsim scenario run FILE|NAME... [options]'],
    [['scenario', 'list', '--help'], 'Usage: voxsim scenario list [options]'],
    [['scenario', 'schema', '--help'], 'Usage: voxsim scenario schema [options]'],
  ])('%j prints the usage on stdout and exits 0', async (args, first) => {
    const { stdout, stderr, out } = streams();
    expect(await main(args, out)).toBe(0);
    expect(stderr).toEqual([]);
    expect(stdout).toHaveLength(1);
    expect(stdout[0]!.split('\n')[0]).toBe(first);
  });

  it('describes every serve option on one line', async () => {
    const { stdout, out } = streams();
    await main(['serve', '--help'], out);
    const options = optionLines(stdout[0]!);
    expect(options.map(([flag]) => flag)).toEqual(SERVE_FLAGS);
    for (const [, description] of options) expect(description.length).toBeGreaterThan(10);
    expect(stdout[0]!.split('\n')).toContain('  --port N                  port to listen on (default 4010; 0 picks a free one)');
  });

  it('describes every events option on one line', async () => {
    const { stdout, out } = streams();
    await main(['events', '--help'], out);
    expect(optionLines(stdout[0]!).map(([flag]) => flag)).toEqual(EVENTS_FLAGS);
  });

  it('lists the scenario commands in voxsim scenario --help', async () => {
    const { stdout, out } = streams();
    await main(['scenario', '--help'], out);
    expect(stdout[0]!.split('\n').slice(2, 6)).toEqual([
      'Scenario files. Commands:',
      '  run FILE|NAME...  play scenario files or shipped scenarios by name; exit 1 on a failure',
      '  list              list the shipped scenarios',
      '  schema            print the JSON Schema of scenario files',
    ]);
  });

  it('help answers even next to a bad flag, without starting', async () => {
    const { stdout, out } = streams();
    expect(await main(['serve', '--port', 'x', '--help'], out)).toBe(0);
    expect(stdout[0]).toBe(commandHelp('serve'));
  });

  it('prints a command’s help for `voxsim help <command>`', async () => {
    for (const [args, help] of [[['help', 'serve'], commandHelp('serve')], [['help', 'scenario', 'run'], commandHelp('scenario run')], [['help', 'openapi'], commandHelp('openapi')]] as const) {
      const { stdout, out } = streams();
      expect(await main([...args], out)).toBe(0);
      expect(stdout).toEqual([help]);
    }
  });
});

describe('help made from the command declarations', () => {
  const names = Object.keys(COMMANDS) as CommandName[];
  /** A declaration's flags (`--name`), in order, and their other names. */
  const declared = (name: CommandName) => Object.entries(COMMANDS[name].flags as Record<string, { also?: readonly string[] }>);

  it.each(names)('voxsim %s --help lists every flag of its declaration, in order, each on one line, and names its other names', async (name) => {
    const { stdout, stderr, out } = streams();
    expect(await main([...name.split(' '), '--help'], out)).toBe(0);
    expect(stderr).toEqual([]);
    const help = stdout[0]!;
    expect(help.split('\n')[0]).toMatch(new RegExp(`^Usage: voxsim ${name} `));
    expect(help).toContain(COMMANDS[name].about);
    const options = optionLines(help);
    expect(options.map(([flag]) => flag)).toEqual([...declared(name).map(([flag]) => `--${flag}`), '--help']);
    for (const [flag, spec] of declared(name)) {
      const line = options.find(([each]) => each === `--${flag}`)!;
      for (const other of spec.also ?? []) expect(line[1]).toContain(`--${other}`);
    }
  });

  /** A command's lines in the top-level usage: from `  voxsim NAME` to the next command. */
  function usageBlock(name: CommandName): string {
    const lines = USAGE.split('\n');
    const start = lines.findIndex((line) => line === `  voxsim ${name}` || line.startsWith(`  voxsim ${name} `));
    expect(start, name).toBeGreaterThan(0);
    return lines.slice(start, lines.findIndex((line, i) => i > start && line.startsWith('  voxsim '))).join('\n');
  }

  it('lists every flag of every command in the top-level usage, with the command\'s summary', () => {
    for (const name of names) {
      const block = usageBlock(name);
      const { summary } = COMMANDS[name];
      expect(block).toContain(summary);
      const required = (f: unknown) => (f as { required?: boolean }).required === true;
      // Required flags first, as in the command's usage line.
      const order = [...declared(name).filter(([, f]) => required(f)), ...declared(name).filter(([, f]) => !required(f))].map(([flag]) => flag);
      expect([...block.replace(summary, '').matchAll(/--([a-z-]+)/g)].map((m) => m[1]), name).toEqual(order);
    }
    // The flags it once lacked.
    expect(usageBlock('sandbox create')).toMatch(/\[--name NAME\][\s\S]*\[--start ISO-8601\][\s\S]*\[--ttl DURATION\]/);
  });

  it.each(Object.keys(GROUPS) as (keyof typeof GROUPS)[])('voxsim %s --help lists each of its commands with its summary', async (group) => {
    const { stdout, out } = streams();
    expect(await main([group, '--help'], out)).toBe(0);
    const help = stdout[0]!;
    expect(help.split('\n')[0]).toBe(`Usage: voxsim ${group} ${GROUPS[group].subcommands.join('|')} [options]`);
    for (const sub of GROUPS[group].subcommands) {
      expect(help.split('\n')).toContainEqual(expect.stringMatching(new RegExp(`^  ${sub}\\b.* {2}${COMMANDS[`${group} ${sub}` as CommandName].summary.replace(/[()|.$]/g, '\\$&')}$`)));
    }
  });

  it("names the server --url on events and sandbox (--server its other name there), and says openapi's --server names the document's URL", async () => {
    for (const name of ['events', 'sandbox create', 'sandbox list', 'sandbox delete'] as const) {
      expect(optionLines(commandHelp(name)).find(([flag]) => flag === '--url')?.[1]).toMatch(/^the server's API base URL \(default \$VOXSIM_URL or http:\/\/127\.0\.0\.1:4010\/api\)/);
    }
    expect(optionLines(commandHelp('sandbox create')).find(([flag]) => flag === '--url')?.[1]).toContain('--server is another name for it');
    expect(optionLines(commandHelp('openapi'))[0]).toEqual(['--server', `the URL the document names in its servers list (default ${DEFAULT_SERVER_URL}); nothing is contacted`]);
  });
});

describe('usage errors exit 2', () => {
  it('names an unknown serve option and the close one, then the serve usage', async () => {
    const { stdout, stderr, out } = streams();
    expect(await main(['serve', '--prot', '5000'], out)).toBe(EXIT_USAGE);
    expect(EXIT_USAGE).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr).toEqual([`unknown option --prot; did you mean --port?\n\n${commandHelp('serve')}`]);
  });

  it('suggests nothing when no option is close', async () => {
    const { stderr, out } = streams();
    expect(await main(['serve', '--verbose'], out)).toBe(2);
    expect(stderr[0]!.split('\n')[0]).toBe('unknown option --verbose');
  });

  it('names an unknown events option and the close one', async () => {
    const { stderr, out } = streams();
    expect(await main(['events', '--sinse', '3'], out)).toBe(2);
    expect(stderr).toEqual([`unknown option --sinse; did you mean --since?\n\n${commandHelp('events')}`]);
  });

  it('refuses an option of scenario run instead of reading it as a file', async () => {
    const { stdout, stderr, out } = streams();
    expect(await main(['scenario', 'run', '--seed', 'scenarios/voicemail-then-human.yaml'], out)).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr).toEqual([`unknown option --seed\n\n${commandHelp('scenario run')}`]);
  });

  it('answers 2 for scenario run without a file', async () => {
    const { stderr, out } = streams();
    expect(await main(['scenario', 'run'], out)).toBe(2);
    expect(stderr).toEqual([`No scenario file given.\n\n${commandHelp('scenario run')}`]);
  });

  it('answers 2 for an unknown scenario command, suggesting the close one', async () => {
    const { stderr, out } = streams();
    expect(await main(['scenario', 'lst'], out)).toBe(2);
    expect(stderr).toEqual([`Unknown scenario command "lst". Did you mean list?\n\n${commandHelp('scenario')}`]);
  });

  it.each([
    [['catalog'], 'No catalog command given.', 'catalog'],
    [['catalog', 'pul'], 'Unknown catalog command "pul". Did you mean pull?', 'catalog'],
    [['scenario'], 'No scenario command given.', 'scenario'],
  ] as const)('answers 2 for %j, with the group help', async (args, message, group) => {
    const { stdout, stderr, out } = streams();
    expect(await main([...args], out)).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr).toEqual([`${message}\n\n${commandHelp(group)}`]);
  });

  it('prints the help of a subcommand given --help, and exits 0', async () => {
    const { stdout, out } = streams();
    expect(await main(['catalog', 'pull', '--help'], out)).toBe(0);
    expect(stdout).toEqual([commandHelp('catalog pull')]);
  });

  it('answers 2 with the usage on stderr when no command is given', async () => {
    const { stdout, stderr, out } = streams();
    expect(await main([], out)).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr[0]).toContain('voxsim serve [--port 4010]');
  });

  it('suggests a close top-level option for an unknown command', async () => {
    const { stderr, out } = streams();
    expect(await main(['--verison'], out)).toBe(2);
    expect(stderr[0]!.split('\n')[0]).toBe('Unknown command "--verison". Did you mean --version?');
  });

  it('answers 2 and runs nothing when a scenario argument names no file and no shipped scenario', async () => {
    const { stdout, stderr, out } = streams();
    expect(await main(['scenario', 'run', 'voicemail-then-human', 'voicemail-then-humn'], out)).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr).toEqual([`no file and no shipped scenario is named "voicemail-then-humn"; did you mean voicemail-then-human? (voxsim scenario list shows them)\n\n${commandHelp('scenario run')}`]);
    const missing = streams();
    expect(await main(['scenario', 'run', 'scenarios/nope.yaml'], missing.out)).toBe(2);
    expect(missing.stderr).toEqual([`no such scenario file: scenarios/nope.yaml\n\n${commandHelp('scenario run')}`]);
  });

  it('keeps --help and --version at exit 0', async () => {
    expect(await main(['--help'], streams().out)).toBe(0);
    expect(await main(['--version'], streams().out)).toBe(0);
  });

  it('exits the process with 2 and the message on stderr for a --start beyond the clock range', async () => {
    const proc = voxsim(['serve', '--start', '+275760-09-13T00:00:00Z']);
    expect(await within(proc.closed, 'exit')).toEqual({ code: 2, signal: null });
    expect(proc.stdout()).toBe('');
    expect(proc.stderr()).toBe(`--start must be a time from 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z, got "+275760-09-13T00:00:00Z"\n\n${commandHelp('serve')}\n`);
  });

  it('exits the process with 2 and the message on stderr', async () => {
    const proc = voxsim(['serve', '--prot', '5000']);
    expect(await within(proc.closed, 'exit')).toEqual({ code: 2, signal: null });
    expect(proc.stdout()).toBe('');
    expect(proc.stderr()).toBe(`unknown option --prot; did you mean --port?\n\n${commandHelp('serve')}\n`);
  });
});

describe('voxsim scenario run on a scenario nested too deep', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'voxsim-deep-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports JSON nested 100,000 deep as the body depth limit at its line, exit 1', async () => {
    const file = join(dir, 'flow.json');
    writeFileSync(file, `{"name":"deep","given":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const proc = voxsim(['scenario', 'run', file]);
    const { code } = await within(proc.closed, 'the run');
    const stdout = proc.stdout();
    expect({ code, stdout }).toEqual({ code: 1, stdout: `ERROR  ${file}:1: The scenario may not nest more than 64 levels deep.\n\n0 passed, 1 failed\n` });
  });

  it('reports YAML block mappings nested 3,000 deep (where the YAML parser overflows) with the same message', async () => {
    const file = join(dir, 'block.yaml');
    writeFileSync(file, `name: deep\ngiven:\n${Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(2 + i)}a:`).join('\n')} 1\n`);
    const proc = voxsim(['scenario', 'run', file]);
    const { code } = await within(proc.closed, 'the run');
    const stdout = proc.stdout();
    expect(code).toBe(1);
    // The line is where the parser's stack ran out, which depends on the stack's size.
    expect(stdout).toMatch(new RegExp(`^ERROR  ${file}:\\d+: (given: The given|The scenario) may not nest more than 64 levels deep\\.\n\n0 passed, 1 failed\n$`));
  });
});

describe('voxsim serve when the port is in use', () => {
  let taken: RunningServer;
  let port: number;
  beforeAll(async () => {
    taken = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', quiet: true });
    port = Number(new URL(taken.url).port);
  });
  afterAll(() => taken.close());

  it('answers exit code 2 with one line naming the port', async () => {
    const { lines, out } = captureConsole();
    expect(await main(['serve', '--port', String(port), '--quiet'], out)).toBe(2);
    expect(lines).toEqual([`port ${port} is in use; pass --port`]);
  });

  it('exits the process with code 2, that line alone on stderr and no banner', async () => {
    const proc = voxsim(['serve', '--port', String(port)]);
    expect(await within(proc.closed, 'exit')).toEqual({ code: 2, signal: null });
    expect(proc.stderr()).toBe(`port ${port} is in use; pass --port\n`);
    expect(proc.stdout()).toBe('');
  });

  it('leaves the server already on the port serving', async () => {
    expect((await fetch(`${taken.url}/__sim/health`)).status).toBe(200);
  });
});

/**
 * Sends `request` as raw bytes and answers everything the server writes back until it
 * closes; with `open`, the client's side stays open (a body still to come) and the answer
 * is taken as soon as it is whole (its head and `Content-Length` bytes of body).
 */
function rawRequest(url: string, request: string, options: { open?: boolean } = {}): Promise<string> {
  const { hostname, port } = new URL(url);
  return within(
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      let answer = '';
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString();
        const head = answer.indexOf('\r\n\r\n');
        const length = /\r\ncontent-length: (\d+)/i.exec(answer.slice(0, head))?.[1];
        if (options.open && head >= 0 && length !== undefined && Buffer.byteLength(answer.slice(head + 4)) >= Number(length)) {
          socket.destroy();
          resolve(answer);
        }
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
      if (options.open) socket.write(request);
      else socket.end(request);
    }),
    'the raw answer',
  );
}

/** A raw HTTP/1.1 answer with a JSON body, as the server writes its own refusals. */
function rawJsonAnswer(status: string, body: unknown): string {
  const text = JSON.stringify(body);
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

describe('voxsim serve request limits', () => {
  const TOO_LARGE_HEADERS = { message: 'The request URL and headers may not be larger than 16 KB.' };
  const TOO_LARGE_BODY = { message: 'The request body may not be larger than 5 MB.' };
  const lines: string[] = [];
  let running: RunningServer;
  beforeAll(async () => {
    running = await serve({ port: 0, host: '127.0.0.1', seed: 1, basePath: '/api', start: '2026-03-02T09:00:00Z' }, (line) => lines.push(line));
  });
  afterAll(() => running.close());

  /** POST /__sim/accounts with a body of exactly `bytes` bytes (a long name). */
  const postAccount = (bytes: number) => {
    const shell = JSON.stringify({ name: '' });
    return fetch(`${running.url}/__sim/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x'.repeat(bytes - shell.length) }) });
  };
  const accountCount = () => running.sim.control.accounts.list().data.length;

  it('reads a body of exactly 5 MB (5,242,880 bytes) and validates it', async () => {
    const res = await postAccount(5 * 1024 * 1024);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ message: 'The name may not be greater than 255 characters.', errors: { name: ['The name may not be greater than 255 characters.'] } });
  });

  it('answers a body one byte over 5 MB with 413 shape A, as JSON, changing nothing', async () => {
    const before = accountCount();
    const res = await postAccount(5 * 1024 * 1024 + 1);
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(TOO_LARGE_BODY);
    expect(accountCount()).toBe(before);
  });

  it('answers a 50 MB body with the same 413 and keeps serving', async () => {
    const res = await fetch(`${running.url}/user/assistant`, { method: 'POST', headers: { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' }, body: 'x'.repeat(50 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual(TOO_LARGE_BODY);
    expect((await fetch(`${running.url}/__sim/health`)).status).toBe(200);
  });

  /** The status line, the Connection header and the JSON body of a raw answer. */
  const parts = (answer: string) => {
    const [head, body] = answer.split('\r\n\r\n');
    const lines = head!.split('\r\n');
    return { status: lines[0], connection: lines.find((line) => /^connection:/i.test(line)), body: JSON.parse(body!) as unknown };
  };

  it.each([
    ['an API body of 99,999,999,999 bytes', 'POST /api/__sim/accounts', 'application/json', 99_999_999_999, TOO_LARGE_BODY],
    ['a PUT /__sim/state body a byte over its 256 MB', 'PUT /api/__sim/state', 'application/json', 256 * 1024 * 1024 + 1, { message: 'The request body may not be larger than 256 MB.' }],
    ['an upload a byte over its 21 MB', 'POST /api/user/knowledgebases/1/documents', 'multipart/form-data; boundary=x', 21 * 1024 * 1024 + 1, { message: 'The request body may not be larger than 21 MB.' }],
  ])('answers 413 to %s as soon as its declared Content-Length says so, before the body arrives', async (_what, line, type, length, message) => {
    const before = accountCount();
    // The client sends the headers and a little of the body, and keeps its side open: the answer may not wait for the rest.
    // The connection stays open while the server drops the rest of the body (bounded: test/body-limits.test.ts).
    const answer = await rawRequest(running.url, `${line} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sim_test_key\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n{"name":"`, { open: true });
    expect(parts(answer)).toEqual({ status: 'HTTP/1.1 413 Payload Too Large', connection: 'Connection: keep-alive', body: message });
    expect(accountCount()).toBe(before);
  });

  it('reads on a declared Content-Length of exactly 5 MB, refusing its content, not its size', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(5 * 1024 * 1024 - 11) });
    expect(Buffer.byteLength(body)).toBe(5 * 1024 * 1024);
    const answer = await rawRequest(running.url, `POST /api/__sim/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    expect(parts(answer)).toMatchObject({ status: 'HTTP/1.1 422 Unprocessable Entity', body: { message: 'The name may not be greater than 255 characters.' } });
  });

  it('measures the body after undoing its Content-Encoding: 6 MB gzipped to a few KB is 413', async () => {
    const zipped = gzipSync(JSON.stringify({ name: 'x'.repeat(6 * 1024 * 1024) }));
    expect(zipped.length).toBeLessThan(64 * 1024);
    const res = await fetch(`${running.url}/__sim/accounts`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: zipped });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual(TOO_LARGE_BODY);
  });

  it('answers a body in an unknown Content-Encoding with 415 shape A', async () => {
    const res = await fetch(`${running.url}/__sim/accounts`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'squash' }, body: '{}' });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({ message: 'The request body\'s content encoding "squash" is not supported.' });
  });

  it('logs a refused body as a request line with its message', () => {
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual({
      level: 'info',
      msg: 'request',
      sim_time: '2026-03-02T09:00:00.000Z',
      method: 'POST',
      path: '/api/user/assistant',
      status: 413,
      duration_ms: expect.any(Number),
      error: TOO_LARGE_BODY.message,
    });
  });

  it('answers a 64 KB URL with 431 shape A as JSON, written whole before the connection closes', async () => {
    const answer = await rawRequest(running.url, `GET /api/__sim/health?pad=${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(answer).toBe(rawJsonAnswer('431 Request Header Fields Too Large', TOO_LARGE_HEADERS));
  });

  it('answers a 64 KB header with 431 shape A as JSON', async () => {
    const answer = await rawRequest(running.url, `GET /api/__sim/health HTTP/1.1\r\nHost: localhost\r\nX-Pad: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    expect(answer).toBe(rawJsonAnswer('431 Request Header Fields Too Large', TOO_LARGE_HEADERS));
  });

  it('answers 431 on a kept-alive connection after a request it served', async () => {
    const { hostname, port } = new URL(running.url);
    const socket = connect(Number(port), hostname);
    let answer = '';
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const served = new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString();
        if (answer.includes('"ok":true')) resolve();
      }),
    );
    socket.write('GET /api/__sim/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await within(served, 'the first answer');
    socket.end(`GET /api/__sim/health?pad=${'a'.repeat(64 * 1024)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    await within(closed, 'the close');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer.endsWith(rawJsonAnswer('431 Request Header Fields Too Large', TOO_LARGE_HEADERS))).toBe(true);
  });

  it('gives fetch the 431 and its JSON body for a 64 KB header', async () => {
    const res = await fetch(`${running.url}/__sim/health`, { headers: { 'x-pad': 'a'.repeat(64 * 1024) } });
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(TOO_LARGE_HEADERS);
  });

  it('answers a request line and headers of 16 KB (16,384 bytes in all)', async () => {
    const head = (pad: string) => `GET /api/__sim/health?pad=${pad} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`;
    const request = head('a'.repeat(16 * 1024 - head('').length));
    expect(request.length).toBe(16 * 1024);
    const answer = await rawRequest(running.url, request);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ ok: true, version: VERSION, now: '2026-03-02T09:00:00Z' });
  });

  it('refuses a request line and headers a little over 16 KB', async () => {
    const answer = await rawRequest(running.url, `GET /api/__sim/health?pad=${'a'.repeat(16 * 1024 + 100)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(answer).toBe(rawJsonAnswer('431 Request Header Fields Too Large', TOO_LARGE_HEADERS));
  });

  it('answers a request that is not HTTP with 400 shape A as JSON', async () => {
    expect(await rawRequest(running.url, 'HELLO\r\n\r\n')).toBe(rawJsonAnswer('400 Bad Request', { message: 'Malformed HTTP request.' }));
  });

  it('answers a body in a charset it cannot read with 415 shape A', async () => {
    const res = await fetch(`${running.url}/__sim/accounts`, { method: 'POST', headers: { 'content-type': 'application/json; charset=klingon' }, body: '{}' });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({ message: 'The request body\'s charset "klingon" is not supported; send UTF-8.' });
  });

  it('keeps serving after every refusal', async () => {
    const res = await fetch(`${running.url}/__sim/health`);
    expect(await res.json()).toEqual({ ok: true, version: VERSION, now: '2026-03-02T09:00:00Z' });
  });
});

describe('the voxsim command in the checkout', () => {
  it('is executable after the build, so `npx voxsim` runs it', () => {
    expect(statSync(`${root}dist/src/bin.js`).mode & 0o111).toBe(0o111);
    expect(execFileSync('npx', ['--no-install', 'voxsim', '--version'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()).toBe(VERSION);
    // npx starts npm, which takes seconds on a busy machine (19.75 s seen once against the 20 s default).
  }, 60_000);
});

describe('README set-up commands', () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');

  it('opens with exactly the install+start and install+test commands', () => {
    const block = /^# voxsim\n\n```sh\n([\s\S]*?)```/.exec(readme);
    expect(block).not.toBeNull();
    const commands = block![1]!.trim().split('\n').map((l) => l.replace(/\s+#.*$/, ''));
    expect(commands).toEqual(['npm install && npm start', 'npm install && npm test']);
  });

  it('has CI run the README test command', () => {
    const ci = readFileSync(`${root}.ci/run`, 'utf8');
    expect(ci).toMatch(/^npm install\b/m);
    expect(ci).toMatch(/^npm test\b/m);
  });

  it('starts a server with `npm start` that creates an assistant with the default key', async () => {
    // exec: npm's child is the server itself, so stopping npm stops it, by any signal (test/npm-start.test.ts).
    expect(pkg.scripts.start).toBe('exec node dist/src/bin.js serve --exit-with-parent');
    const server = await startServer([]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    const res = await fetch(`${server.url}/user/assistant`, {
      method: 'POST',
      headers: { authorization: 'Bearer sim_test_key', 'content-type': 'application/json' },
      body: JSON.stringify(pipelineAssistant({ name: 'Sales' })),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ message: 'Assistant created successfully.', data: { id: 1, name: 'Sales', status: 'inactive', type: 'outbound', mode: 'pipeline' } });
    expect(await stop(server)).toEqual({ code: 0, signal: null });
  });
});
