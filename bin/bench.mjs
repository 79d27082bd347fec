#!/usr/bin/env node
// `npm run bench -- [NAME ...] [--size 2G]`: runs benchmarks from bench/ (TypeScript via tsx).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../bench/main.ts');
process.exitCode = await main(process.argv.slice(2));
