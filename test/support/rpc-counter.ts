import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One JSON-RPC call seen by the relay: its method, first parameter, and when it arrived. */
export interface RpcCall {
  method: string;
  firstParam: unknown;
  at: number;
}

/**
 * A JSON-RPC relay in front of a real chain endpoint that records every call it passes on,
 * so a test can count what the gateway asks the chain. Only the path is observed; every
 * answer is the chain's own.
 */
export class RpcCounter {
  readonly calls: RpcCall[] = [];
  private server: Server | null = null;
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      this.relay(request, response).catch((error: unknown) => {
        response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(String(error));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Records the JSON-RPC calls of one request and passes it on to the chain. */
  private async relay(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    try {
      const parsed = JSON.parse(body.toString()) as
        { method?: string; params?: unknown[] } | Array<{ method?: string; params?: unknown[] }>;
      for (const call of Array.isArray(parsed) ? parsed : [parsed])
        this.calls.push({ method: String(call.method), firstParam: call.params?.[0], at: Date.now() });
    } catch {
      // Not JSON: passed on as it is, the chain answers it.
    }
    const answer = await fetch(this.target, {
      method: request.method,
      headers: { 'content-type': 'application/json' },
      body: request.method === 'POST' ? body : undefined,
    });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  }

  /** The calls of `method` whose first parameter contains `text` (a signature, say). */
  callsOf(method: string, text: string): RpcCall[] {
    return this.calls.filter((call) => call.method === method && JSON.stringify(call.firstParam ?? null).includes(text));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
