/**
 * A local webhook receiver for scenario runs: `$receiver` in a scenario is its base URL.
 * It answers every POST with 200 `{"received": true}` and keeps what it got; outages are
 * scripted with `webhook_failures` in front of it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private server: Server | undefined;
  url = '';

  /** Listens on a free loopback port. */
  async start(): Promise<string> {
    // node:http is loaded when a scenario first listens, not while voxsim is imported (issue 29).
    const { createServer } = await import('node:http');
    this.server = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (text += chunk));
      req.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Kept as text.
        }
        this.received.push({ path: req.url ?? '/', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
