/**
 * Reads a V8 sampling heap profile (`.heapprofile`): bytes allocated by package and by frame
 * (self), and for our packages' frames inclusive of what they call.
 */
import { whereOf } from './cpu-profile.js';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** The part of a `.heapprofile` this reads. */
export interface HeapProfile {
  head: HeapNode;
}

const nameOf = ({ callFrame: { functionName, url, lineNumber } }: HeapNode) =>
  `${functionName || '(anonymous)'}  ${whereOf(url)}${url ? `:${lineNumber + 1}` : ''}`;

const add = (map: Map<string, number>, key: string, bytes: number) =>
  map.set(key, (map.get(key) ?? 0) + bytes);

/** Bytes by package, by frame, and by our frames inclusive; the text of the top `rows`. */
export function formatHeapProfile(profile: HeapProfile, rows = 25): string {
  const packages = new Map<string, number>();
  const selfByFrame = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, ours: readonly string[]) => {
    const name = nameOf(node);
    const mine = whereOf(node.callFrame.url).startsWith('@yourtool/') && !ours.includes(name);
    const stack = mine ? [...ours, name] : ours;
    if (node.selfSize > 0) {
      total += node.selfSize;
      add(packages, whereOf(node.callFrame.url), node.selfSize);
      add(selfByFrame, name, node.selfSize);
      for (const frame of stack) add(inclusive, frame, node.selfSize);
    }
    for (const child of node.children) walk(child, stack);
  };
  walk(profile.head, []);
  const mb = (bytes: number) =>
    `${((bytes / total) * 100).toFixed(1).padStart(5)}% ${(bytes / 1e6).toFixed(1).padStart(7)} MB`;
  const table = (title: string, map: Map<string, number>, n: number) =>
    [
      `\n${title}:`,
      ...[...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([key, bytes]) => `  ${mb(bytes)}  ${key}`),
    ].join('\n');
  return [
    `${(total / 1e6).toFixed(1)} MB allocated (sampled)`,
    table('allocated by package (self)', packages, 12),
    table('top frames (self)', selfByFrame, rows),
    table('our frames (inclusive)', inclusive, rows),
  ].join('\n');
}
