/**
 * A Console for `main()` and the CLI's commands that keeps what they print: `log` and
 * `error` lines in one list, in the order printed.
 */
export function captureConsole(): { lines: string[]; text: () => string; out: Console } {
  const lines: string[] = [];
  const keep = (line: string) => void lines.push(line);
  return { lines, text: () => lines.join('\n'), out: { log: keep, error: keep } as unknown as Console };
}
