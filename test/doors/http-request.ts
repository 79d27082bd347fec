/** A plain node:http request for the HTTP door tests: exact headers in and out, no cookie jar, no redirects followed. */
import { request } from 'node:http';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function httpRequest(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolveAnswer, rejectAnswer) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', rejectAnswer);
    req.end(opts.body);
  });
}

/** The `name=value` of the Set-Cookie an answer carries, and its attributes. */
export function cookieOf(answer: Answer): { pair: string; attributes: string[] } {
  const header = answer.headers['set-cookie'];
  const line = Array.isArray(header) ? header[0]! : (header ?? '');
  const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
  return { pair, attributes };
}

/**
 * Opens a page URL as a browser would: when the server trades a token for a cookie
 * (303 + Set-Cookie), the page the redirect names, fetched with that cookie.
 */
export async function openAsBrowser(url: string): Promise<Answer> {
  const first = await httpRequest(url, { headers: { 'sec-fetch-site': 'none' } });
  if (first.status !== 303) return first;
  const cookie = cookieOf(first).pair;
  return httpRequest(new URL(String(first.headers.location), url).href, { headers: { cookie, 'sec-fetch-site': 'none' } });
}

/**
 * Sends a body of `bodyBytes` (with a Content-Length, or chunked when `chunked`),
 * 1 MiB at a time, until the server answers; the answer, however much was sent.
 */
export function sendLargeBody(url: string, o: { method?: string; headers?: Record<string, string>; bodyBytes: number; chunked?: boolean }): Promise<Answer> {
  return new Promise((resolveAnswer, rejectAnswer) => {
    const headers = { 'content-type': 'application/json', ...o.headers, ...(o.chunked ? {} : { 'content-length': String(o.bodyBytes) }) };
    let answered = false;
    const req = request(url, { method: o.method ?? 'POST', headers }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => {
        resolveAnswer({ status: res.statusCode ?? 0, headers: res.headers, text });
        req.destroy();
      });
    });
    // The server may close while we are still sending: that is the point, once it answered.
    req.on('error', (err) => {
      if (!answered) rejectAnswer(err);
    });
    const chunk = Buffer.alloc(1 << 20, 0x20);
    let sent = 0;
    const pump = () => {
      while (!answered && sent < o.bodyBytes) {
        const n = Math.min(chunk.length, o.bodyBytes - sent);
        sent += n;
        if (!req.write(chunk.subarray(0, n))) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}
