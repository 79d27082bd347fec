#!/usr/bin/env node
// Folio CLI entry. Runs the TypeScript sources through tsx's loader so a checkout
// (npm run folio, npm link, npx) needs no separate build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src-main/doors/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
