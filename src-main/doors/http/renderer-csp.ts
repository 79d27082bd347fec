/**
 * The Content-Security-Policy of every page of the renderer, in the browser
 * (`folio serve`) and in Electron. Everything comes from the app's own origin;
 * no inline script, no eval, no third-party host. `worker-src 'self' blob:` is
 * there for Monaco's web workers; `style-src` allows inline style because Monaco
 * injects <style> elements at runtime (scripts stay strict).
 */
export const RENDERER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers sent with every HTML page: the CSP plus no referrer (the URL carries the token). */
export const HTML_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': RENDERER_CSP,
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};
