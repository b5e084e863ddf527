import type { ToolDefinition } from '@yourtool/core';

/** Tool definitions the scenarios declare. */
export const CONFORMANCE_TOOLS: Record<'read_file' | 'get_time' | 'render_chart', ToolDefinition> =
  {
    read_file: {
      name: 'read_file',
      description: 'Read a UTF-8 text file from the workspace.',
      input_schema: {
        type: 'object',
        properties: { path: { type: 'string', description: 'Workspace-relative path' } },
        required: ['path'],
      },
      side_effects: 'read',
      requires_workspace: true,
    },
    get_time: {
      name: 'get_time',
      description: 'Current time in ISO-8601.',
      input_schema: { type: 'object', properties: {} },
      side_effects: 'none',
      requires_workspace: false,
    },
    render_chart: {
      name: 'render_chart',
      description: 'Render a chart of the given series to a PNG.',
      input_schema: {
        type: 'object',
        properties: { series: { type: 'array', items: { type: 'number' } } },
        required: ['series'],
      },
      side_effects: 'write',
      requires_workspace: true,
    },
  };
