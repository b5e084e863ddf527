/**
 * Reads a V8 CPU profile (`.cpuprofile`): self time by package and by frame, and inclusive time
 * (a frame anywhere on the sampled stack, counted once per sample) for our packages' frames.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The parts of a `.cpuprofile` this reads. */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const PROFILER = '(the profiler itself)';

/** Where a frame's code lives: a dependency, one of our packages, node, or the VM. */
export function whereOf(url: string): string {
  if (url === '') return '(native/vm)';
  if (url === 'node:inspector') return PROFILER;
  if (url.startsWith('node:')) return 'node internals';
  const dependency = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dependency) return dependency[1] as string;
  const workspace = /\/packages\/([^/]+)\//.exec(url);
  if (workspace) return `@yourtool/${workspace[1]}`;
  if (url.includes('/tools/bench/')) return 'bench harness';
  return url;
}

const nameOf = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'}  ${whereOf(url)}${url ? `:${lineNumber + 1}` : ''}`;
};

/** A profile's figures, in µs. */
export interface ProfileSummary {
  totalUs: number;
  packages: Map<string, number>;
  selfByFrame: Map<string, number>;
  /** Our packages' frames, each sample counted once per frame on its stack. */
  inclusiveByFrame: Map<string, number>;
}

/** Adds up one profile's samples; see the module comment. */
export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const add = (map: Map<string, number>, key: string, us: number) =>
    map.set(key, (map.get(key) ?? 0) + us);
  const summary: ProfileSummary = {
    totalUs: 0,
    packages: new Map(),
    selfByFrame: new Map(),
    inclusiveByFrame: new Map(),
  };
  for (const [id, us] of self) {
    const node = byId.get(id);
    // the in-process profiler's own start and stop are not the program's work
    if (!node || whereOf(node.callFrame.url) === PROFILER) continue;
    summary.totalUs += us;
    add(summary.packages, whereOf(node.callFrame.url), us);
    add(summary.selfByFrame, nameOf(node), us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (!frame || !whereOf(frame.callFrame.url).startsWith('@yourtool/')) continue;
      const name = nameOf(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      add(summary.inclusiveByFrame, name, us);
    }
  }
  return summary;
}

/** The summary as text: the top `rows` of each table. */
export function formatSummary(summary: ProfileSummary, rows = 25): string {
  const pct = (us: number) =>
    `${((us / summary.totalUs) * 100).toFixed(1).padStart(5)}% ${(us / 1000).toFixed(0).padStart(6)} ms`;
  const table = (title: string, map: Map<string, number>, n: number) =>
    [
      `\n${title}:`,
      ...[...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([name, us]) => `  ${pct(us)}  ${name}`),
    ].join('\n');
  return [
    `${(summary.totalUs / 1000).toFixed(0)} ms sampled`,
    table('self time by package', summary.packages, 12),
    table('top frames (self time)', summary.selfByFrame, rows),
    table('our frames (inclusive time)', summary.inclusiveByFrame, rows),
  ].join('\n');
}
