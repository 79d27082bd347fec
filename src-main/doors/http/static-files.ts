/** Serves the built renderer (out/renderer) read-only, never a path outside it. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, resolve, isAbsolute, sep } from 'node:path';
import { HTML_SECURITY_HEADERS } from './renderer-csp.ts';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** The file under rendererDir that urlPath names, or null when it escapes rendererDir. */
export function rendererFileOf(rendererDir: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const wanted = decoded === '/' || decoded === '' ? '/index.html' : decoded;
  const file = resolve(rendererDir, '.' + wanted);
  const rel = relative(rendererDir, file);
  if (rel === '' || rel.startsWith('..' + sep) || rel === '..' || isAbsolute(rel)) return null;
  return join(rendererDir, rel);
}

export async function serveRendererFile(rendererDir: string, urlPath: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
    return;
  }
  const file = rendererFileOf(rendererDir, urlPath);
  const info = file ? await stat(file).catch(() => null) : null;
  if (!file || !info?.isFile()) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end('not found\n');
    return;
  }
  const ext = extname(file).toLowerCase();
  const headers: Record<string, string | number> = {
    'Content-Type': contentTypeOf(file),
    'Content-Length': info.size,
    'X-Content-Type-Options': 'nosniff',
  };
  if (ext === '.html') Object.assign(headers, HTML_SECURITY_HEADERS);
  res.writeHead(200, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}
