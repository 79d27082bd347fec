/**
 * The app's doors (Electron, `folio serve`) index the file they show while they
 * paint it: that indexing is background work, its threads niced so the first lines
 * come first. Every other door (the CLI, MCP over stdio) runs the index threads
 * of a command someone waits for at normal priority.
 */
export { indexInBackground } from '../engine/index/builder.ts';
