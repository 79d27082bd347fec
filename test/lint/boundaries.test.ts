import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the import rule enforces doors -> api -> review -> engine', () => {
  it('fails an engine module that imports from api, review, doors, electron or react', async () => {
    for (const spec of ['../api/handle.ts', '../review/queue.ts', '../doors/cli/main.ts', 'electron', 'react', 'node:http']) {
      const msgs = await violations('src-main/engine/x.ts', `import '${spec}';\n`);
      expect(msgs, spec).toHaveLength(1);
    }
  });

  it('fails a door that reaches past the api into engine or review', async () => {
    expect(await violations('src-main/doors/cli/x.ts', `import '../../engine/errors.ts';\n`)).toHaveLength(1);
    expect(await violations('src-main/doors/http/x.ts', `import '../../review/store.ts';\n`)).toHaveLength(1);
  });

  it('fails the renderer importing engine code or Node built-ins', async () => {
    expect(await violations('src-renderer/x.ts', `import '../src-main/engine/errors.ts';\n`)).toHaveLength(1);
    expect(await violations('src-renderer/x.ts', `import 'node:fs';\n`)).toHaveLength(1);
  });

  it('allows the imports that follow the direction', async () => {
    expect(await violations('src-main/api/x.ts', `import '../engine/errors.ts';\n`)).toHaveLength(0);
    expect(await violations('src-main/doors/cli/x.ts', `import '../../api/handle.ts';\n`)).toHaveLength(0);
    expect(await violations('src-main/doors/electron/x.ts', `import 'electron';\n`)).toHaveLength(0);
    expect(await violations('src-renderer/x.ts', `import type { FileInfo } from '../src-main/api/schemas.ts';\n`)).toHaveLength(0);
  });
});
