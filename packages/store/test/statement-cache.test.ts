import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cachingStatements } from '../src/connect.js';

describe('cachingStatements', () => {
  it('hands back the statement compiled for the same SQL', () => {
    const sqlite = new Database(':memory:');
    const db = cachingStatements(sqlite);
    const first = db.prepare('select 1 as one');
    expect(db.prepare('select 1 as one')).toBe(first);
    expect(db.prepare('select 2 as two')).not.toBe(first);
    db.close();
    expect(sqlite.open).toBe(false);
  });

  it('never hands out a statement that is still iterating', () => {
    const sqlite = new Database(':memory:');
    sqlite.exec('create table t (n integer); insert into t values (1), (2), (3)');
    const db = cachingStatements(sqlite);
    const sql = 'select n from t order by n';
    const iterating = db.prepare(sql);
    const rows = iterating.iterate([]);
    rows.next();
    const other = db.prepare(sql);
    expect(other).not.toBe(iterating);
    expect(other.all([])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    rows.return?.();
    expect(db.prepare(sql)).toBe(iterating);
    db.close();
  });

  it('keeps at most `capacity` statements, dropping the least recently used', () => {
    const sqlite = new Database(':memory:');
    const db = cachingStatements(sqlite, 2);
    const a = db.prepare('select 1');
    const b = db.prepare('select 2');
    expect(db.prepare('select 1')).toBe(a); // a is now the most recent
    db.prepare('select 3'); // drops b
    expect(db.prepare('select 1')).toBe(a);
    expect(db.prepare('select 2')).not.toBe(b);
    db.close();
  });
});
