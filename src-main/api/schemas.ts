/**
 * Zod schemas of every operation's input and output: THE contract. Types used by
 * the renderer and the doors are inferred from here, never re-declared. One file
 * per concern under schemas/; this barrel re-exports them all.
 * This module must stay importable from the browser (no Node built-ins).
 */
export { ErrorBody, LineByteRange, NewlineStyle, Version } from './schemas/common.ts';
export * from './schemas/files.ts';
export * from './schemas/read.ts';
export * from './schemas/outline.ts';
export * from './schemas/search.ts';
export * from './schemas/upsert.ts';
export * from './schemas/review.ts';
export * from './schemas/audit.ts';
export * from './schemas/app.ts';
export * from './schemas/edit.ts';
export * from './schemas/list.ts';
export * from './schemas/file-ops.ts';
export * from './schemas/time.ts';
