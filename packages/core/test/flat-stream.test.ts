import { describe, expect, it } from 'vitest';
import { FlatStream } from '../src/stream/flat-stream.js';

async function* batches(
  log: string[],
  list: number[][],
): AsyncGenerator<number[], void, undefined> {
  try {
    for (const batch of list) {
      await null;
      yield batch;
    }
  } finally {
    log.push('finally');
  }
}

describe('FlatStream', () => {
  it('hands out every event of every batch in order, skipping empty batches', async () => {
    const seen: number[] = [];
    for await (const n of new FlatStream(batches([], [[1, 2], [], [3], [4, 5, 6]]))) seen.push(n);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('answers calls made before the previous one settled, in order', async () => {
    const flat = new FlatStream(batches([], [[1], [2, 3], [4]]));
    const results = await Promise.all([
      flat.next(),
      flat.next(),
      flat.next(),
      flat.next(),
      flat.next(),
    ]);
    expect(results.map((r) => (r.done ? 'done' : r.value))).toEqual([1, 2, 3, 4, 'done']);
  });

  it('a consumer that stops early runs the batch generator’s finally', async () => {
    const log: string[] = [];
    for await (const n of new FlatStream(batches(log, [[1, 2], [3]]))) {
      if (n === 1) break;
    }
    expect(log).toEqual(['finally']);
  });

  it('an error thrown by the batch generator reaches the consumer after the events before it', async () => {
    async function* failing(): AsyncGenerator<number[], void, undefined> {
      yield [1, 2];
      throw new Error('broken');
    }
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const n of new FlatStream(failing())) seen.push(n);
      })(),
    ).rejects.toThrow('broken');
    expect(seen).toEqual([1, 2]);
  });
});
