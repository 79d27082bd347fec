/**
 * How long this process lives, as its door says: a CLI command ends in a moment;
 * `folio serve`, `folio mcp` and the app run for hours (the default). Work that
 * costs up front to pay back later (review/automerge.ts: V8's optimizing tier for
 * Automerge's wasm) asks here.
 */
let shortLived = false;

/** Says the process ends soon (a one-shot CLI command). Has effect on what is loaded after it. */
export function preferQuickStart(): void {
  shortLived = true;
}

export function isShortLived(): boolean {
  return shortLived;
}
