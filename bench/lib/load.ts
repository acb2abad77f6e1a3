/**
 * A small closed-loop load generator (the role autocannon would play, without the
 * dependency): N keep-alive connections, each sending the next request as soon as the
 * previous response has been read in full, for a fixed duration. Counts completed
 * requests, bytes, non-2xx statuses, errors, responses whose length differs from the
 * expected one, and latency percentiles.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface LoadOptions {
  port: number;
  /** POSTed to: the request bodies, sent in turn (a page asked for several records). */
  path: string;
  bodies: string[];
  /** GET these paths in turn instead (a REST read), with no body; `path` and `bodies` are then unused. */
  getPaths?: string[];
  connections: number;
  durationMs: number;
  /** Each body's response length: responses of another length count as `unexpectedBodies` (a 503 or an error body, say). */
  expectedBytes?: number[];
  /** Sent with every request besides the content headers (a bearer token, say). */
  headers?: Record<string, string>;
}

export interface LoadResult {
  durationMs: number;
  requests: number;
  requestsPerSecond: number;
  bytes: number;
  non2xx: number;
  errors: number;
  unexpectedBodies: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections, maxFreeSockets: options.connections });
  const requests = options.getPaths
    ? options.getPaths.map((path, index) => {
        const requestOptions: http.RequestOptions = {
          agent,
          host: '127.0.0.1',
          port: options.port,
          path,
          method: 'GET',
          headers: { accept: 'application/json', ...options.headers },
        };
        return { payload: undefined, requestOptions, expectedBytes: options.expectedBytes?.[index] };
      })
    : options.bodies.map((body, index) => {
        const payload = Buffer.from(body);
        const requestOptions: http.RequestOptions = {
          agent,
          host: '127.0.0.1',
          port: options.port,
          path: options.path,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': payload.length, accept: 'application/json', ...options.headers },
        };
        return { payload, requestOptions, expectedBytes: options.expectedBytes?.[index] };
      });
  let sent = 0;
  const latencies: number[] = [];
  let bytes = 0;
  let non2xx = 0;
  let errors = 0;
  let unexpectedBodies = 0;

  const once = () =>
    new Promise<void>((resolve) => {
      const { payload, requestOptions, expectedBytes } = requests[sent++ % requests.length]!;
      const startedAt = performance.now();
      const request = http.request(requestOptions, (response) => {
        let length = 0;
        response.on('data', (chunk: Buffer) => {
          length += chunk.length;
        });
        response.on('end', () => {
          latencies.push(performance.now() - startedAt);
          bytes += length;
          if (response.statusCode! < 200 || response.statusCode! >= 300) non2xx++;
          else if (expectedBytes !== undefined && length !== expectedBytes) unexpectedBodies++;
          resolve();
        });
        response.on('error', () => {
          errors++;
          resolve();
        });
      });
      request.on('error', () => {
        errors++;
        resolve();
      });
      request.end(payload);
    });

  const startedAt = performance.now();
  const endsAt = startedAt + options.durationMs;
  const worker = async () => {
    while (performance.now() < endsAt) await once();
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  // The last requests finish after endsAt; the rate is over the time they took.
  const durationMs = performance.now() - startedAt;
  agent.destroy();

  return loadResultOf({ latencies, durationMs, bytes, non2xx, errors, unexpectedBodies });
}

/** A load's figures from its requests' latencies (sorted here) and counts. */
export function loadResultOf(
  counts: Omit<LoadResult, 'requests' | 'requestsPerSecond' | 'latencyMs'> & { latencies: number[] },
): LoadResult {
  const { latencies, durationMs, ...rest } = counts;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    ...rest,
    durationMs: Math.round(durationMs),
    requests: latencies.length,
    requestsPerSecond: round((latencies.length / durationMs) * 1000),
    latencyMs: {
      p50: round(at(0.5)),
      p90: round(at(0.9)),
      p99: round(at(0.99)),
      max: round(latencies[latencies.length - 1] ?? NaN),
      mean: round(latencies.reduce((sum, l) => sum + l, 0) / latencies.length),
    },
  };
}

/** One request; resolves to its status and body. */
export function fetchOnce(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
