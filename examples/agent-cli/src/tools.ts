import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { defineTool, type ToolHandler } from '@yourtool/session';

/** A path of the workspace; one that would leave it is refused (the model reads the error). */
function inWorkspace(workspace: string, path: string): string {
  const file = resolve(workspace, path);
  const rel = relative(workspace, file);
  if (rel === '' || rel.startsWith('..') || resolve(workspace, rel) !== file) {
    throw new Error(`${path} is not a file of the workspace`);
  }
  return file;
}

/**
 * The agent's two tools: `read_file` (side effect `read`: runs at once) and `write_file`
 * (`write`: the session asks the agent's confirm hook first).
 */
export function agentTools(workspace: string): ToolHandler[] {
  const readFileTool = defineTool({
    name: 'read_file',
    description: 'Read a UTF-8 text file of the workspace.',
    side_effects: 'read',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string', description: 'relative to the workspace' } },
      required: ['path'],
    },
    run: ({ path }, { signal }) =>
      readFile(inWorkspace(workspace, path), { encoding: 'utf8', signal }),
  });
  const writeFileTool = defineTool({
    name: 'write_file',
    description: 'Write a UTF-8 text file of the workspace, replacing it whole.',
    side_effects: 'write',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
    run: async ({ path, content }, { signal }) => {
      const file = inWorkspace(workspace, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content, { signal });
      return `wrote ${path}`;
    },
  });
  return [readFileTool, writeFileTool];
}
