/**
 * The error codes are a closed union (engine/errors.ts) that agents and scripts
 * act on, so the docs that list them must list every one: README's CLI
 * conventions and docs/API.md. A code added to the union without its line in
 * the docs fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src-main/engine/errors.ts';

const missingFrom = (text: string) => ERROR_CODES.filter((code) => !text.includes(`\`${code}\``));

describe('every error code is documented', () => {
  it('in README.md', () => {
    expect(missingFrom(readFileSync('README.md', 'utf8'))).toEqual([]);
  });

  it('in docs/API.md', () => {
    expect(missingFrom(readFileSync('docs/API.md', 'utf8'))).toEqual([]);
  });

  it('and the check sees a missing one', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(missingFrom(readme.replaceAll('`no_timestamps`', 'no_timestamps'))).toEqual(['no_timestamps']);
  });
});
