// A local stand-in for GitHub's API on 127.0.0.1: answers from a route table and
// records every request it receives, for the Action's end-to-end tests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRequestBody } from '../../support/request-body.ts';

export interface RecordedRequest {
  method: string;
  /** Path without the query, e.g. /repos/octo/shop/pulls/1/reviews. */
  path: string;
  query: URLSearchParams;
  authorization?: string;
  body: unknown;
}

export interface Answer {
  status: number;
  body?: unknown;
  /** Sent as is instead of `body` as JSON (a tarball, a raw file). */
  raw?: Buffer | string;
  headers?: Record<string, string>;
}

/** A route: `METHOD /path` with `:name` segments, answered by a value or a function of the request. */
export type Routes = Record<string, Answer | ((request: RecordedRequest, params: Record<string, string>) => Answer)>;

export interface FakeGitHub {
  url: string;
  requests: RecordedRequest[];
  /** Requests no route answered (they got a 404): a test asserts there are none it did not expect. */
  unanswered: RecordedRequest[];
  close(): Promise<void>;
}

function matchRoute(pattern: string, method: string, path: string): Record<string, string> | undefined {
  const [wantedMethod, wantedPath = ''] = pattern.split(' ');
  if (wantedMethod !== method) return undefined;
  const wanted = wantedPath.split('/');
  const got = path.split('/');
  if (wanted.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of wanted.entries()) {
    const actual = got[i] ?? '';
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(actual);
    else if (segment !== actual) return undefined;
  }
  return params;
}


export async function startFakeGitHub(routes: Routes): Promise<FakeGitHub> {
  const requests: RecordedRequest[] = [];
  const unanswered: RecordedRequest[] = [];
  const server: Server = createServer(async (incoming, response) => {
    const url = new URL(incoming.url ?? '/', 'http://127.0.0.1');
    const recorded: RecordedRequest = {
      method: incoming.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      authorization: incoming.headers.authorization,
      body: await readRequestBody(incoming),
    };
    requests.push(recorded);
    let answer: Answer = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
    const route = Object.entries(routes).find(([pattern]) => matchRoute(pattern, recorded.method, recorded.path));
    if (route) {
      const [pattern, handler] = route;
      const params = matchRoute(pattern, recorded.method, recorded.path) ?? {};
      answer = typeof handler === 'function' ? handler(recorded, params) : handler;
    } else {
      unanswered.push(recorded);
    }
    if (answer.raw !== undefined) {
      response.writeHead(answer.status, { 'content-type': 'application/octet-stream', ...answer.headers });
      response.end(answer.raw);
      return;
    }
    response.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    unanswered,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
