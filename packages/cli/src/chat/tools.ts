import { mkdir, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { defineTool, type ToolHandler } from '@yourtool/session';

/** Largest file `read_file` returns whole; longer files are cut with a note. */
export const MAX_READ_BYTES = 256 * 1024;

/** `path` inside `workspace`, or an error a model can read: paths never leave the workspace. */
async function inside(workspace: string, path: string): Promise<string> {
  const root = await realpath(workspace);
  const target = resolve(root, path);
  const outside = (p: string) => {
    const rel = relative(root, p);
    return rel.startsWith('..') || isAbsolute(rel);
  };
  if (outside(target)) throw new Error(`${path} is outside the workspace`);
  // a symlink inside may still point outside: check where the nearest existing part leads
  let existing = target;
  for (;;) {
    try {
      const real = await realpath(existing);
      if (outside(real)) throw new Error(`${path} leads outside the workspace`);
      return target;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
      const parent = dirname(existing);
      if (parent === existing) return target;
      existing = parent;
    }
  }
}

const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a UTF-8 text file of the workspace. Paths are relative to the workspace.',
  side_effects: 'read',
  input_schema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'File path, relative to the workspace' } },
    required: ['path'],
  },
  run: async ({ path }, context) => {
    const file = await inside(context.workspace_path, path);
    const data = await readFile(file, { signal: context.signal });
    if (data.length <= MAX_READ_BYTES) return data.toString('utf8');
    return `${data.subarray(0, MAX_READ_BYTES).toString('utf8')}\n[cut: the file has ${data.length} bytes]`;
  },
});

const listFilesTool = defineTool({
  name: 'list_files',
  description: 'List the entries of a directory of the workspace (directories end with /).',
  side_effects: 'read',
  input_schema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'Directory, relative (default ".")' } },
  },
  run: async ({ path }, context) => {
    const dir = await inside(context.workspace_path, path ?? '.');
    if (!(await stat(dir)).isDirectory()) throw new Error(`${path} is not a directory`);
    const entries = await readdir(dir, { withFileTypes: true });
    const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
    return names.length > 0 ? names.join('\n') : '(empty directory)';
  },
});

const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Write a UTF-8 text file of the workspace (created, or replaced whole). The user confirms each write.',
  side_effects: 'write',
  input_schema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace' },
      content: { type: 'string', description: 'The whole new content' },
    },
    required: ['path', 'content'],
  },
  run: async ({ path, content }, context) => {
    const file = await inside(context.workspace_path, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content, { signal: context.signal });
    return `wrote ${Buffer.byteLength(content)} bytes to ${path}`;
  },
});

/**
 * The chat's tools on the session's workspace: `read_file` and `list_files` (read) and
 * `write_file` (write: asks for confirmation). Paths stay inside the workspace.
 */
export function workspaceTools(): ToolHandler[] {
  return [readFileTool, listFilesTool, writeFileTool];
}
