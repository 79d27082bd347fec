/**
 * The CLI's commands, in the order `folio --help` lists them. A command module
 * exports one register function; main.ts walks this table, and no command imports
 * main.ts, so the import graph stays one way.
 */
import type { Command } from 'commander';
import type { CliIO } from './cli-io.ts';
import { registerInfo } from './info.ts';
import { registerMcp } from './mcp.ts';
import { registerRead } from './read.ts';
import { registerSearch } from './search.ts';
import { registerList } from './list.ts';
import { registerOutline } from './outline.ts';
import { registerUpsert } from './upsert.ts';
import { registerEdit } from './edit.ts';
import { registerPatch } from './patch.ts';
import { registerServe } from './serve.ts';
import { registerOpen } from './open.ts';
import { registerReview } from './review.ts';
import { registerFileOps } from './file-ops.ts';
import { registerTime } from './time.ts';
import { registerMerge } from './merge.ts';
import { registerQuery } from './query.ts';

export const COMMANDS: readonly ((program: Command, io: CliIO) => void)[] = [
  registerInfo,
  registerMcp,
  registerRead,
  registerSearch,
  registerList,
  registerOutline,
  registerUpsert,
  registerEdit,
  registerPatch,
  registerServe,
  registerOpen,
  registerReview,
  registerFileOps,
  registerTime,
  registerMerge,
  registerQuery,
];
