/**
 * Every `voxsim` command as one declaration (issue 45): its name, its arguments, what it
 * does, and each flag's name, type, default, other names and help line. The parser of a
 * command's flags, its `--help`, the top-level usage and a usage error's suggestion are
 * all made from these tables (src/cli/help.ts), so none of them can drift from another.
 *
 * This module is data only and imports nothing: the main (src/cli/main.ts) reads it for
 * `voxsim --version`, `--help` and `COMMAND --help` without loading any command.
 */

/** One flag of a command. */
export interface FlagSpec {
  /** A string takes a value (`--port 4010`, `--port=4010`); a boolean is a switch. */
  readonly type: 'string' | 'boolean';
  /** The value's name in the help (`--port N`); strings only. */
  readonly value?: string;
  /** The value when the flag is absent (a string's; a switch is false, a repeatable flag []). */
  readonly default?: string;
  /** May be given more than once; the values in order. */
  readonly multiple?: boolean;
  /** Shown without brackets in the usage (the command checks that it is there). */
  readonly required?: boolean;
  /** Other names of the same flag (`--server` for sandbox's `--url`); one of them at a time. */
  readonly also?: readonly string[];
  /** One line in the command's `--help`. */
  readonly help: string;
}

/** One command: `voxsim NAME [ARGS] [flags]`. */
export interface CommandSpec {
  /** Its arguments in the usage (`FILE|NAME...`); a command without it takes none. */
  readonly args?: string;
  /** One line in the top-level usage and in its group's `--help`. */
  readonly summary: string;
  /** What it does, in its `--help`. */
  readonly about: string;
  readonly flags: Readonly<Record<string, FlagSpec>>;
}

/** A command group (`voxsim scenario run|list|...`): its subcommands are commands of their own. */
export interface GroupSpec {
  readonly about: string;
  readonly subcommands: readonly string[];
}

/** The server a client command talks to when neither its flag nor `$VOXSIM_URL` names one (`voxsim serve`'s defaults). */
export const DEFAULT_URL = 'http://127.0.0.1:4010/api';

/** `--url` of the commands that talk to a running server. */
const URL_HELP = `the server's API base URL (default $VOXSIM_URL or ${DEFAULT_URL})`;
const ADMIN_TOKEN = { type: 'string', value: 'TOKEN', help: "the server's admin token (default $VOXSIM_ADMIN_TOKEN)" } as const;
/** `voxsim sandbox`'s `--url`; `--server`, its name before issue 45, still works. */
const SANDBOX_URL = { type: 'string', value: 'URL', also: ['server'], help: `${URL_HELP}; --server is another name for it` } as const;
const WIRE = { type: 'string', value: 'spec|live' } as const;
const BASE_PATH_IN_HAR = { type: 'string', value: 'PATH', default: '/api', help: "the platform's base path in the recorded URLs (default /api)" } as const;

/** Each command, in the order of the top-level usage (and of a suggestion for a mistyped one). */
export const COMMANDS = {
  serve: {
    summary: 'start the standalone server (API, control API, event stream and dashboard)',
    about: 'Starts the standalone server (API, control API, event stream and dashboard).',
    flags: {
      port: { type: 'string', value: 'N', default: '4010', help: 'port to listen on (default 4010; 0 picks a free one)' },
      host: { type: 'string', value: 'HOST', default: '127.0.0.1', help: 'address to bind (default 127.0.0.1; others need --admin-token)' },
      seed: { type: 'string', value: 'N', default: '1', help: 'seed of the generated data, 0 to 2147483647 (default 1)' },
      'base-path': { type: 'string', value: 'PATH', default: '/api', help: 'path the API is served under (default /api; / for the root)' },
      start: { type: 'string', value: 'ISO-8601', help: 'time the simulated clock starts at, 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z (default now)' },
      speed: { type: 'string', value: 'N', help: 'run the clock in real time, N times as fast, 0.001 to 1000000 (default: moves only when told)' },
      'state-file': { type: 'string', value: 'FILE', help: 'load the state from FILE (and its FILE.log.N change logs) at start; log every change there before answering' },
      'state-dir': { type: 'string', value: 'DIR', help: "keep the server's state (DIR/server.json) and every sandbox (DIR/sandboxes.json, DIR/sandboxes/) in DIR across restarts" },
      'compact-after': { type: 'string', value: 'SIZE', help: 'fold the change logs into a new FILE once they reach SIZE (default 64mb, at least 1kb)' },
      scenario: { type: 'string', value: 'FILE', help: "start in a scenario's state (its given and scripts, not its steps)" },
      'admin-token': { type: 'string', value: 'TOKEN', help: 'require Authorization: Bearer TOKEN on the control API' },
      wire: { ...WIRE, help: 'wire format of the answers (default spec)' },
      catalog: { type: 'string', value: 'FILE', help: "a catalog document (JSON or YAML) that replaces or extends the wire's catalog (docs/catalog.md)" },
      quiet: { type: 'boolean', help: 'no request log lines' },
      'stream-buffer': { type: 'string', value: 'SIZE', help: 'bytes that may wait for one event-stream consumer (default 4mb, at least 1kb)' },
      'exit-with-parent': { type: 'boolean', help: 'stop once the process that started the server is gone (npm start sets it)' },
      'max-sandboxes': { type: 'string', value: 'N', help: 'sandboxes the server holds at most, 0 to 10000 (default 100; 0: none)' },
      'max-loaded-sandboxes': { type: 'string', value: 'N', help: 'with --state-dir: sandboxes held in memory at most, 1 to 10000 (default 1000); the least recently used idle ones are unloaded to their files and load again on their next request' },
      'sandbox-ttl': { type: 'string', value: 'DURATION', help: 'how long a sandbox may stay idle before it is removed, 1m to 365d (default 24h)' },
      'open-sandboxes': { type: 'boolean', help: "anyone who reaches the server may create a sandbox (listing and deleting others stay the admin's)" },
      shard: { type: 'string', value: 'NAME', help: "this shard's name, carried by every sandbox key it mints (docs/sandboxes.md: sharding)" },
    },
  },
  events: {
    summary: "follow a server's events, one line each (--json: raw JSON lines)",
    about: "Follows a server's events, one line each, until Ctrl-C or the server stops.",
    flags: {
      url: { type: 'string', value: 'URL', help: URL_HELP },
      'admin-token': ADMIN_TOKEN,
      type: { type: 'string', value: 'PREFIX', multiple: true, help: 'only events whose type starts with PREFIX (repeatable, or comma-separated)' },
      account: { type: 'string', value: 'ID', help: "only this account's events" },
      since: { type: 'string', value: 'SEQ', help: 'replay the events after SEQ first' },
      json: { type: 'boolean', help: 'print raw JSON lines' },
      'no-color': { type: 'boolean', help: 'no colours (also NO_COLOR)' },
    },
  },
  'scenario run': {
    args: 'FILE|NAME...',
    summary: 'play scenario files or shipped scenarios by name; exit 1 on a failure',
    about: 'Plays each scenario on a fresh simulator and prints its timeline; a NAME is a shipped scenario (voxsim scenario list).',
    flags: {},
  },
  'scenario list': {
    summary: 'list the shipped scenarios',
    about: 'Lists the shipped scenarios: the name to run them by, their name and description.',
    flags: {},
  },
  'scenario schema': {
    summary: 'print the JSON Schema of scenario files',
    about: 'Prints the JSON Schema of scenario files (scenario.schema.json).',
    flags: {},
  },
  'scenario from-har': {
    args: 'FILE',
    summary: 'write a scenario that reproduces a recorded session (HAR)',
    about:
      "Writes a scenario that reproduces a recorded session (FILE, HAR 1.2): request steps with $refs for the ids it created, advance_to between them as recorded, and expect with each answer's status and closed-set values.",
    flags: {
      wire: { ...WIRE, help: "the wire the scenario runs on (default the simulator's, spec)" },
      out: { type: 'string', value: 'FILE', help: 'write the scenario to FILE (default: print it)' },
      'base-path': BASE_PATH_IN_HAR,
    },
  },
  record: {
    summary: 'record a session with the real platform through a local proxy',
    about:
      "Records a session with the real platform: point your client at the printed URL with your own key; every request under the base path goes to URL unchanged and its answer comes back unchanged, and each exchange is written to FILE.har (valid after each one; Authorization, cookies and keys in query strings redacted). Ctrl-C stops.",
    flags: {
      upstream: { type: 'string', value: 'URL', required: true, help: "the platform's base URL, e.g. https://api.example.com/api" },
      out: { type: 'string', value: 'FILE.har', required: true, help: 'the HAR 1.2 file to write (each exchange appended; a valid HAR after each one)' },
      port: { type: 'string', value: 'N', default: '4011', help: 'port to listen on (default 4011; 0 picks a free one)' },
      host: { type: 'string', value: 'HOST', default: '127.0.0.1', help: 'address to bind (default 127.0.0.1; others need --admin-token)' },
      'base-path': { type: 'string', value: 'PATH', default: '/api', help: 'path the client uses under the proxy (default /api)' },
      'admin-token': { type: 'string', value: 'TOKEN', help: 'require Authorization: Bearer TOKEN on {base}/__record (the status of the recording)' },
      quiet: { type: 'boolean', help: 'no line per exchange' },
    },
  },
  drift: {
    args: 'FILE.har',
    summary: 'replay a recording on a fresh simulator, report where the answers differ (exit 1)',
    about:
      'Replays a recorded session (HAR 1.2 from voxsim record, a browser, Playwright or mitmproxy) on a fresh simulator, in recorded order on its virtual clock, and reports where the answers differ: status, the body shape at every depth, closed-set values and echoes. Exit 0 when nothing differs, 1 when something does, 2 for a file that cannot be read.',
    flags: {
      wire: { ...WIRE, help: 'wire format voxsim answers in (default spec; live for the live platform)' },
      given: { type: 'string', value: 'SCENARIO', help: "seed what the session used but did not create from the scenario's given" },
      catalog: { type: 'string', value: 'FILE', help: "a catalog document (JSON or YAML, docs/catalog.md) of the recorded account's own, as voxsim serve --catalog takes it" },
      json: { type: 'boolean', help: 'print the report as one JSON document' },
      html: { type: 'string', value: 'FILE', help: 'also write the report as a self-contained HTML page' },
      'base-path': BASE_PATH_IN_HAR,
      start: { type: 'string', value: 'ISO-8601', help: "where the replay's clock starts (default: the upstream's clock when the session read it, else the first entry's time)" },
    },
  },
  trigger: {
    args: 'KIND',
    summary: 'send one sample webhook event (post-call, conversation-ended, read-receipt) to a receiver',
    about:
      "Sends one sample event of KIND to the receiver at URL, as the simulator sends it (the documented body, its headers, a read receipt signed with X-Signature-256), and prints the receiver's status and body. KIND is one of:\n  post-call           a campaign call that booked a demo (the assistant's post-call webhook)\n  conversation-ended  a website chat that ended by inactivity\n  read-receipt        a template message delivered (signed with --secret, else with a sample secret it prints)\nExit 0 when the receiver answers 2xx, 1 when it answers anything else, refuses or does not answer in time, 2 for a usage error.",
    flags: {
      url: { type: 'string', value: 'URL', required: true, help: 'the receiver to send the event to, e.g. http://127.0.0.1:3000/webhooks' },
      secret: { type: 'string', value: 'S', help: "read-receipt only: the signing secret to sign the body with (default: the sample sender's, printed)" },
      wire: { ...WIRE, help: 'the wire whose body to send (default spec; live for the live platform)' },
      timeout: { type: 'string', value: 'SECONDS', default: '10', help: 'how long the receiver has to answer (default 10, as the simulator waits)' },
    },
  },
  openapi: {
    summary: 'print the OpenAPI 3.1 document of the platform and control API',
    about: 'Prints the OpenAPI 3.1 document of the platform API (spec and live routes) and the control API, as a server serves it at {base_url}/__sim/openapi.json.',
    flags: {
      // Not a server to talk to (that is --url elsewhere): the URL the document's `servers` names.
      server: { type: 'string', value: 'URL', help: `the URL the document names in its servers list (default ${DEFAULT_URL}); nothing is contacted` },
    },
  },
  'catalog pull': {
    summary: 'write the catalog of a running platform as a catalog document',
    about:
      'Reads the catalog routes of a running platform (the live one, or another voxsim) with KEY and writes a catalog document that voxsim serve --catalog takes (to stdout without --out). A refusal or a network error is one line and exit 2.',
    flags: {
      from: { type: 'string', value: 'URL', required: true, help: "the platform's API base URL, such as http://127.0.0.1:4010/api" },
      key: { type: 'string', value: 'KEY', required: true, help: 'an API key of an account on that platform' },
      out: { type: 'string', value: 'FILE', help: 'write the document to FILE instead of stdout' },
    },
  },
  'catalog schema': {
    summary: 'print the JSON Schema of catalog documents',
    about: 'Prints the JSON Schema of catalog documents (catalog.schema.json).',
    flags: {},
  },
  'sandbox create': {
    summary: 'make a sandbox on a running server, print its key',
    about:
      'Makes a sandbox on a running server and prints its API key alone, for export FAMULOR_API_KEY=$(voxsim sandbox create ...). A refusal or a server it cannot reach is one line and exit 2.',
    flags: {
      url: SANDBOX_URL,
      'admin-token': ADMIN_TOKEN,
      seed: { type: 'string', value: 'N', help: 'seed of its generated data, 0 to 2147483647 (default 1)' },
      wire: { ...WIRE, help: "wire format of its answers (default the server's)" },
      name: { type: 'string', value: 'NAME', help: 'a name to tell it by in the list' },
      start: { type: 'string', value: 'ISO-8601', help: "time its clock starts at (default the server's --start, else now)" },
      ttl: { type: 'string', value: 'DURATION', help: "how long it may stay idle before it is removed, 1m to 365d (default the server's --sandbox-ttl)" },
      json: { type: 'boolean', help: 'print the whole sandbox as JSON' },
    },
  },
  'sandbox list': {
    summary: "list a server's sandboxes (the admin's)",
    about: "Lists a running server's sandboxes, oldest first (the admin's).",
    flags: {
      url: SANDBOX_URL,
      'admin-token': ADMIN_TOKEN,
      json: { type: 'boolean', help: 'print them as JSON' },
    },
  },
  'sandbox delete': {
    args: '[ID]',
    summary: 'delete a sandbox by its id (the admin\'s) or by its own --key',
    about: 'Deletes a sandbox: by its id with the admin token, or by its own key. Its keys answer 401 from then on.',
    flags: {
      url: SANDBOX_URL,
      'admin-token': ADMIN_TOKEN,
      key: { type: 'string', value: 'KEY', help: "the sandbox's own key (no id needed)" },
      json: { type: 'boolean', help: 'print the answer as JSON' },
    },
  },
} as const satisfies Record<string, CommandSpec>;

/** The command groups: `voxsim GROUP SUB ...`, each SUB a command above (`scenario run`). */
export const GROUPS = {
  scenario: { about: 'Scenario files.', subcommands: ['run', 'list', 'schema', 'from-har'] },
  catalog: { about: 'Catalog documents (docs/catalog.md).', subcommands: ['pull', 'schema'] },
  sandbox: { about: "A running server's sandboxes (docs/sandboxes.md).", subcommands: ['create', 'list', 'delete'] },
} as const satisfies Record<string, GroupSpec>;

export type CommandName = keyof typeof COMMANDS;
export type GroupName = keyof typeof GROUPS;
